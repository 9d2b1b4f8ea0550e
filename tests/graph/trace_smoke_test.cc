// Smoke test: the spec §13 walkthrough program traces, re-propagates and gets runtime asserts.
#include <gtest/gtest.h>

#include "engine/graph/passes/dce.h"
#include "engine/graph/passes/repropagate.h"
#include "engine/graph/passes/runtime_asserts.h"
#include "engine/graph/tracer.h"
#include "engine/program/builder.h"

namespace sf::graph {
namespace {

using namespace program::ex;
using program::DType;
using program::ProgramBuilder;

program::Program walkthrough() {
  return ProgramBuilder()
      .tensor("x", DType::kFloat32, {8}, program::randn_data(7))
      .tensor_values("m", DType::kBool, {8}, {1, 0, 1, 1, 0, 0, 1, 0})
      .tensor_values("t", DType::kInt64, {1}, {3})
      .assign("a", call("index", {v("x"), v("m")}))
      .assign("b", mul(call("index", {v("x"), v("m")}), i(2)))
      .assign("k", call("item", {v("t")}))
      .check(le(v("k"), call("size", {v("a"), i(0)})), "k fits")
      .assign("s", add(call("slice", {v("a"), i(0), i(0), v("k")}),
                       call("slice", {v("b"), i(0), i(0), v("k")})))
      .ret({v("s")})
      .build();
}

TEST(TraceSmoke, Walkthrough) {
  Trace t = trace_program(walkthrough());
  std::string g = t.graph.print();
  std::cout << g << t.env->state_str();
  EXPECT_NE(g.find("{u0: size(0)}"), std::string::npos);
  EXPECT_NE(g.find("{u1: ()}"), std::string::npos);
  Graph g2 = repropagate(t);
  std::cout << g2.print() << t.env->state_str();
  RuntimeAssertReport r = insert_runtime_asserts(g2, *t.env);
  eliminate_dead_code(g2, *t.env);
  std::cout << g2.print();
  EXPECT_GE(r.range_asserts, 2);
  EXPECT_TRUE(r.unplaced.empty());
}

}  // namespace
}  // namespace sf::graph
