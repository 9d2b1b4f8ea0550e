// cond and while_loop through the tracer, the passes and the CPU run (spec §6): what the HOP node
// binds (merged sizes, loop int outputs), what stays inside the subgraphs, lifted symbols,
// asserts placed in the subgraph that recorded them, and INV-22 firing on a broken state.
#include <gtest/gtest.h>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "oracles/invariants/graph_invariants.h"
#include "oracles/pipeline.h"
#include "tests/graph/test_util.h"

namespace sf::graph {
namespace {

using namespace sf::graph::testing;

const char* kLeak =
    "input x: i64[6] = [1, 0, 3, 0, 5, 6]\ninput t: i64[1] = [2]\n"
    "def then_fn(a, k):\n  nz = nonzero(a)\n  return nz, k + 1\n"
    "def else_fn(a, k):\n  return unsqueeze(a * 2, 1), k\n"
    "k = item(t)\nr, j = cond(k > 1, then_fn, else_fn, [x, k])\nreturn r, j\n";

TEST(HigherOrder, CondBindsMergedOutputsAndKeepsBranchSymbolsInside) {
  Trace t = trace(kLeak);
  Node* c = find_node(t.graph, "cond");
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->subgraphs.size(), 2u);
  // u0 = item; u1 = the branch's nonzero; the cond binds a fresh size u2 (hull [0, 6]) and a
  // fresh int u3 (k + 1 vs k differ).
  EXPECT_EQ(bindings_str(c->unbacked_bindings), "{u2: [0].size(0), u3: [1]}");
  EXPECT_EQ(range_of(*t.env, U(2)), "[0, 6]");
  EXPECT_EQ(bindings_of(*c->subgraphs[0], "nonzero"), "{u1: size(0)}");
  // The subgraph's placeholders: the operands (k's symbol is its own placeholder's value).
  std::vector<Node*> ph = c->subgraphs[0]->placeholders();
  ASSERT_EQ(ph.size(), 2u);
  EXPECT_EQ(ph[0]->input_name, "a");
  EXPECT_EQ(ph[1]->value.str(), "u0");
  EXPECT_TRUE(oracles::check_bindings(t.graph, *t.env, oracles::SymbolWindow::all(*t.env)).empty());
}

TEST(HigherOrder, Inv22FiresWhenAHopNodeBindsABranchSymbol) {
  Trace t = trace(kLeak);
  Node* c = find_node(t.graph, "cond");
  ASSERT_NE(c, nullptr);
  std::vector<oracles::Violation> ok;
  oracles::check_hop_scoping(c, ok);
  EXPECT_TRUE(ok.empty());
  // Broken on purpose: the branch's u1 escapes to the cond node.
  c->unbacked_bindings.emplace(U(1), KeyPath{KeyEntry::sequence(0)});
  std::vector<oracles::Violation> broken;
  oracles::check_hop_scoping(c, broken);
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_EQ(broken[0].invariant, "INV-22");
}

TEST(HigherOrder, CondRunsOnTheCpuAndAgreesWithEager) {
  auto r = run_on_cpu(kLeak);
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  ASSERT_TRUE(r.run.has_value());
  EXPECT_EQ(r.run->outputs[0].str(), r.eager->outputs[0].str());
  EXPECT_EQ(r.run->outputs[1].i, 3);
  ASSERT_TRUE(r.plan.has_value());
  EXPECT_EQ(r.plan->subplans.size(), 2u);
}

TEST(HigherOrder, WhileLoopIntCarriesAreUnbackedPlaceholdersAndOutputsAreFresh) {
  auto r = run_on_cpu(
      "input x: i64[6] = [1, 0, 3, 0, 5, 6]\n"
      "def more(i, acc, v):\n  return i < 3\n"
      "def step(i, acc, v):\n  nz = nonzero(v)\n  return i + 1, acc + size(nz, 0), v - 1\n"
      "i, total, w = while_loop(more, step, [0, 0, x])\nreturn i, total, w\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  Node* w = find_node(r.trace->graph, "while_loop");
  ASSERT_NE(w, nullptr);
  // u0, u1: the int carries inside (ignored: never bound outside); u2: the body's nonzero;
  // u3, u4: the loop's int outputs, bound at the node.
  EXPECT_EQ(bindings_str(w->unbacked_bindings), "{u3: [0], u4: [1]}");
  EXPECT_EQ(bindings_of(*w->subgraphs[1], "nonzero"), "{u2: size(0)}");
  EXPECT_EQ(w->subgraphs[0]->placeholders()[0]->value.str(), "u0");
  EXPECT_EQ(r.run->outputs[0].i, 3);
  EXPECT_EQ(r.run->outputs[1].i, 15);
  EXPECT_EQ(r.run->outputs[2].str(), r.eager->outputs[2].str());
}

TEST(HigherOrder, AssertRecordedInABranchStaysInIt) {
  auto r = run_on_cpu(
      "input x: i64[10] = arange()\ninput t: i64[2] = [3, 7]\n"
      "def window(a, s, e):\n  check(s <= e, \"ordered\")\n  return slice(a, 0, s, e)\n"
      "def whole(a, s, e):\n  return a\n"
      "s, e = tolist(t)\nw = cond(e > 5, window, whole, [x, s, e])\nreturn w\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  ASSERT_TRUE(r.final_graph.has_value());
  std::vector<std::string> outer = listing(*r.final_graph);
  EXPECT_EQ(position(outer, "assert(u0 <= u1)"), -1) << "not hoisted to the caller";
  Node* c = find_node(*r.final_graph, "cond");
  ASSERT_NE(c, nullptr);
  std::vector<std::string> inner = listing(*c->subgraphs[0]);
  EXPECT_GE(position(inner, "assert(u0 <= u1)"), 0);
  EXPECT_EQ(position(listing(*c->subgraphs[1]), "assert(u0 <= u1)"), -1);
}

TEST(HigherOrder, WhileCarryMustKeepItsShape) {
  EXPECT_THROW(trace("input x: i64[4] = [1, 0, 2, 0]\n"
                     "def more(i, v):\n  return i < 2\n"
                     "def shrink(i, v):\n  return i + 1, squeeze(nonzero(v), 1)\n"
                     "i, w = while_loop(more, shrink, [0, x])\nreturn w\n"),
               UserError);
}

}  // namespace
}  // namespace sf::graph
