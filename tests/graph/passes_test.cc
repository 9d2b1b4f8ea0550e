// The graph passes on traced programs (spec §5.1): runtime-assert placement relative to binding
// nodes, re-bucketing, the None bucket, dropped implied checks; DCE that keeps binding sites whose
// symbols are still used; and that none of the analysis passes allocates or leaves pending symbols.
#include <gtest/gtest.h>

#include "engine/graph/passes/dce.h"
#include "engine/graph/passes/repropagate.h"
#include "engine/graph/passes/runtime_asserts.h"
#include "oracles/invariants/graph_invariants.h"
#include "tests/graph/test_util.h"

namespace sf::graph {
namespace {

using namespace sf::graph::testing;

TEST(RuntimeAsserts, RangeAssertsFollowEachBindingNode) {
  Trace t = trace(
      "input x: f32[6] = arange()\ninput m: bool[6] = [True, False, True, True, False, True]\n"
      "input r: i64[3] = [1, 2, 0]\n"
      "a = index(x, m)\nb = repeat_interleave(r)\nc = relu(a)\nreturn c, b\n");
  RuntimeAssertReport rep = insert_runtime_asserts(t.graph, *t.env);
  EXPECT_EQ(listing(t.graph),
            (std::vector<std::string>{"index", "assert(u0 >= 0)", "assert(u0 <= 6)",
                                      "repeat_interleave", "assert(u1 >= 0)", "relu", "output"}));
  EXPECT_EQ(rep.range_asserts, 3) << "no upper bound for repeat_interleave (size-like, no max)";
  EXPECT_EQ(rep.deferred_asserts, 0);
  EXPECT_TRUE(rep.unplaced.empty());
}

TEST(RuntimeAsserts, TwoSymbolAssertGoesAfterTheLaterBinding) {
  Trace t = trace(
      "input t: i64[1] = [2]\ninput y: i64[5] = [1, 0, 3, 2, 0]\n"
      "k = item(t)\nz = zeros([3])\nnz = nonzero(y)\n"
      "check(k <= size(nz, 0), \"k fits\")\nreturn slice(nz, 0, 0, k), z\n");
  EXPECT_EQ(bucket(*t.env, U(1)), std::vector<std::string>{"u0 <= u1"});
  RuntimeAssertReport rep = insert_runtime_asserts(t.graph, *t.env);
  // The slice cannot decide k >= 0: it binds a fresh size u2 with its own asserts after it.
  EXPECT_EQ(listing(t.graph),
            (std::vector<std::string>{"item", "assert(u0 <= 5)", "zeros", "nonzero",
                                      "assert(u1 >= 0)", "assert(u1 <= 5)", "assert(u0 <= u1)",
                                      "size", "le", "slice", "assert(u2 >= 0)", "assert(u2 <= 5)",
                                      "assert(u2 <= u1)", "output"}))
      << "u0's upper bound 5 comes from u1's range; the check node itself is dropped";
  EXPECT_EQ(rep.deferred_asserts, 2);
  EXPECT_EQ(rep.range_asserts, 5);
  EXPECT_EQ(rep.dropped_checks, 1);
}

TEST(RuntimeAsserts, RebucketsWhenASymbolIsBoundLater) {
  ShapeEnv env;
  SymInt a = env.create_unbacked_symint();
  SymInt b = env.create_unbacked_symint();
  env.clear_pending_fresh_unbacked_symbols();
  ASSERT_TRUE(
      env.guard_or_defer_runtime_assert(sym::eq(sym::add(U(0), U(1)), sym::integer(10)), "sum"));
  ASSERT_EQ(bucket(env, U(1)), std::vector<std::string>{"Eq(u0 + u1, 10)"});
  Graph g;
  g.add(NodeKind::kPlaceholder, "t", {});
  Node* n1 = g.add(NodeKind::kCall, "item_b", {});
  n1->op = program::OpKind::kItem;
  n1->value = Value(b);
  n1->unbacked_bindings = {{U(1), KeyPath{}}};
  g.add(NodeKind::kCall, "between", {})->value = Value(SymInt(3));
  Node* n0 = g.add(NodeKind::kCall, "item_a", {});
  n0->op = program::OpKind::kItem;
  n0->value = Value(a);
  n0->unbacked_bindings = {{U(0), KeyPath{}}};
  // A check that nothing implies stays in the graph (and is not re-emitted as an assert).
  Node* c = g.add(NodeKind::kCheck, "check", {});
  c->assert_expr = sym::le(U(0), sym::integer(7));
  g.add(NodeKind::kOutput, "output", {NodeArg::of(n0), NodeArg::of(n1)});
  RuntimeAssertReport rep = insert_runtime_asserts(g, env);
  EXPECT_EQ(listing(g),
            (std::vector<std::string>{"item_b", "between", "item_a", "assert(Eq(u0 + u1, 10))",
                                      "check(u0 <= 7)", "output"}));
  EXPECT_TRUE(rep.unplaced.empty());
  EXPECT_EQ(rep.dropped_checks, 0);
  EXPECT_EQ(rep.deferred_asserts, 1);
  // The env's own buckets are untouched (the pass works on a copy).
  EXPECT_EQ(bucket(env, U(1)), std::vector<std::string>{"Eq(u0 + u1, 10)"});
}

TEST(RuntimeAsserts, NoneBucketIsEmittedRightAfterPlaceholders) {
  TraceOptions opts;
  opts.settings.prefer_deferred_runtime_asserts_over_guards = true;
  Trace t = trace(
      "input x: f32[6, 3] dynamic(0) dynamic(1) = randn(seed=1)\ninput t: i64[1] = [3]\n"
      "k = item(t)\nr = relu(x)\ncheck(size(x, 0) > size(x, 1), \"tall\")\nreturn r, k\n",
      opts);
  EXPECT_TRUE(t.env->guards().empty()) << "deferred instead of guarded";
  ASSERT_EQ(bucket(*t.env, ExprRef()).size(), 1u);
  std::string expr = bucket(*t.env, ExprRef())[0];
  RuntimeAssertReport rep = insert_runtime_asserts(t.graph, *t.env);
  std::vector<std::string> l = listing(t.graph);
  ASSERT_GE(l.size(), 2u);
  EXPECT_EQ(l[0], "assert(" + expr + ")") << ::testing::PrintToString(l);
  EXPECT_EQ(l[1], "item");
  EXPECT_EQ(rep.deferred_asserts, 1);
  EXPECT_EQ(rep.dropped_checks, 1) << "the program's own check is implied by the assert";
  EXPECT_EQ(count_kind(t.graph, NodeKind::kCheck), 0);
  // Without the setting the same check is an ordinary guard and the None bucket stays empty.
  Trace g = trace(
      "input x: f32[6, 3] dynamic(0) dynamic(1) = randn(seed=1)\n"
      "check(size(x, 0) > size(x, 1), \"tall\")\nreturn x\n");
  EXPECT_EQ(g.env->guards().size(), 1u);
  EXPECT_TRUE(bucket(*g.env, ExprRef()).empty());
}

TEST(RuntimeAsserts, ImpliedChecksAreDropped) {
  Trace t = trace(
      "input y: i64[5] = [1, 0, 3, 2, 0]\ninput t: i64[1] = [2]\n"
      "nz = nonzero(y)\nn = size(nz, 0)\n"
      "check(n <= 5, \"implied by range\")\n"
      "k = item(t)\ncheck(k >= 1, \"new fact\")\n"
      "check(k + n >= 1, \"implied by both\")\nreturn nz, k\n");
  // A check node is recorded for every symbolic condition, even one already static (n <= 5).
  EXPECT_EQ(count_kind(t.graph, NodeKind::kCheck), 3);
  EXPECT_TRUE(bucket(*t.env, U(0)).empty()) << "a statically true check records no assert";
  RuntimeAssertReport rep = insert_runtime_asserts(t.graph, *t.env);
  EXPECT_EQ(rep.dropped_checks, 3);
  EXPECT_EQ(count_kind(t.graph, NodeKind::kCheck), 0);
  std::vector<std::string> l = listing(t.graph);
  EXPECT_EQ(position(l, "assert(u1 >= 1)"), position(l, "item") + 1) << ::testing::PrintToString(l);
}

TEST(Dce, RemovesUnusedBindingSiteButKeepsOneWhoseSymbolIsUsedLater) {
  Trace t = trace(
      "input x: f32[6] = arange()\ninput m: bool[6] = [True, False, True, True, False, True]\n"
      "input y: i64[5] = [1, 0, 3, 2, 0]\n"
      "a = nonzero(y)\nb = index(x, m)\nc = index(x, m)\nd = x + 1.0\nreturn c\n");
  ASSERT_EQ(bindings_of(t.graph, "index_1"), "{}");
  int removed = eliminate_dead_code(t.graph, *t.env);
  EXPECT_EQ(removed, 2);
  EXPECT_EQ(find_node(t.graph, "nonzero"), nullptr) << "u0 is used nowhere";
  EXPECT_EQ(find_node(t.graph, "add"), nullptr);
  ASSERT_NE(find_node(t.graph, "index"), nullptr) << "u1 is used by index_1's value";
  EXPECT_EQ(listing(t.graph), (std::vector<std::string>{"index", "index_1", "output"}));
}

TEST(Dce, RangeAssertsKeepAnUnusedBindingSiteAlive) {
  Trace t = trace("input y: i64[5] = [1, 0, 3, 2, 0]\na = nonzero(y)\nreturn y\n");
  insert_runtime_asserts(t.graph, *t.env);
  EXPECT_EQ(eliminate_dead_code(t.graph, *t.env), 0);
  EXPECT_EQ(listing(t.graph),
            (std::vector<std::string>{"nonzero", "assert(u0 >= 0)", "assert(u0 <= 5)", "output"}));
}

TEST(Dce, KeepsMutationsAndChecks) {
  Trace t = trace(
      "input y: i64[3] = [1, 2, 3]\ninput t: i64[1] = [2]\n"
      "y2 = add_(y, 1)\nk = item(t)\ncheck(k > 0, \"pos\")\nreturn t\n");
  eliminate_dead_code(t.graph, *t.env);
  EXPECT_NE(find_node(t.graph, "add_"), nullptr);
  EXPECT_EQ(count_kind(t.graph, NodeKind::kCheck), 1);
  EXPECT_NE(find_node(t.graph, "item"), nullptr) << "the check still uses u0";
}

TEST(Passes, AnalysisPassesAllocateNothingAndLeavePendingEmpty) {
  Trace t = trace(
      "input x: f32[8, 4] dynamic(0) = randn(seed=7)\n"
      "input m: bool[8] = [True, False, True, True, False, False, True, False]\n"
      "input t: i64[1] = [3]\n"
      "a = index(x, m)\nk = item(t)\ncheck(k <= size(a, 0), \"k fits\")\n"
      "return sum(slice(a, 0, 0, k), [1])\n");
  Graph g = repropagate(t);
  int64_t ints = t.env->unbacked_symint_counter();
  std::string state = t.env->state_str();
  RuntimeAssertReport rep = insert_runtime_asserts(g, *t.env);
  eliminate_dead_code(g, *t.env);
  EXPECT_TRUE(t.env->pending_fresh_unbacked_symbols().empty());
  EXPECT_EQ(t.env->unbacked_symint_counter(), ints);
  EXPECT_EQ(t.env->state_str(), state) << "the passes only read the ShapeEnv";
  EXPECT_TRUE(rep.unplaced.empty());
  EXPECT_TRUE(oracles::check_def_before_use(g, *t.env).empty());
  std::vector<std::string> l = listing(g);
  EXPECT_EQ(position(l, "assert(u1 <= u0)"), position(l, "item") + 2)
      << ::testing::PrintToString(l);
}

}  // namespace
}  // namespace sf::graph
