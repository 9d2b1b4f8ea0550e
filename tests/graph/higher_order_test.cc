// cond, while_loop, invoke_subgraph, scan and associative_scan through the tracer, the passes and
// the CPU run (spec §6): what the HOP node binds (merged sizes, loop int outputs, a region's fresh
// symbols per call), what stays inside the subgraphs, lifted symbols, asserts placed in the
// subgraph that recorded them, a region traced once for many calls, and INV-22 and the memo oracle
// firing on broken states.
#include <gtest/gtest.h>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "oracles/invariants/graph_invariants.h"
#include "oracles/memo_oracle.h"
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
      "def window(a, s, e):\n  check(s <= e, \"ordered\")\n  return slice(a, 0, s, e) + 0\n"
      "def whole(a, s, e):\n  return a + 0\n"
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

const char* kRegion =
    "input x: i64[5] dynamic(0) = [3, 0, 2, 0, 1]\n"
    "def region(a):\n  n = item(sum(a, [0]))\n  k = nonzero(a)\n  return a * 2, n, k + 0\n"
    "y0, n0, k0 = invoke_subgraph(region, [x])\n"
    "y1, n1, k1 = invoke_subgraph(region, [x])\n"
    "y2, n2, k2 = invoke_subgraph(region, [x])\n"
    "y3, n3, k3 = invoke_subgraph(region, [y0])\n"
    "return n0 + n1 + n2 + n3, k1, k3, size(k2, 0)\n";

std::vector<Node*> nodes_of(const Graph& g, NodeKind kind) {
  std::vector<Node*> out;
  for (Node* n : g.nodes()) {
    if (n->kind == kind) out.push_back(n);
  }
  return out;
}

TEST(HigherOrder, InvokeSubgraphTracesTheRegionOnceAndEachCallBindsItsOwnSymbols) {
  Trace t = trace(kRegion);
  std::vector<Node*> calls = nodes_of(t.graph, NodeKind::kInvokeSubgraph);
  ASSERT_EQ(calls.size(), 4u);
  // One subgraph for the four calls (the fourth's operand has the same dtype and sizes).
  for (Node* c : calls) EXPECT_EQ(c->subgraphs.at(0), calls[0]->subgraphs.at(0));
  EXPECT_EQ(bindings_of(*calls[0]->subgraphs[0], "item"), "{u0: ()}");
  // Each call binds a fresh int and a fresh size: eight symbols, none the region's own.
  std::set<std::string> bound;
  for (Node* c : calls) {
    ASSERT_EQ(c->unbacked_bindings.size(), 2u) << bindings_str(c->unbacked_bindings);
    for (const auto& [s, path] : c->unbacked_bindings) bound.insert(s->str());
  }
  EXPECT_EQ(bound.size(), 8u);
  EXPECT_FALSE(bound.count("u0") || bound.count("u1"));
  auto r = run_on_cpu(kRegion);
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  ASSERT_TRUE(r.plan.has_value());
  EXPECT_EQ(r.plan->subplans.size(), 1u) << "the calls share the region's plan";
  EXPECT_EQ(r.run->outputs[0].str(), "30");  // 6 three times, then the sum of y0 = x * 2
}

TEST(HigherOrder, MemoOracleFiresWhenACallHandsOutTheRegionsOwnSymbol) {
  Trace t = trace(kRegion);
  oracles::MemoInputs in;
  in.env = t.env.get();
  in.traced = &t.graph;
  EXPECT_TRUE(oracles::check_memo(in).violations.empty());
  // Broken on purpose: the second call returns the region's own values (u0, the nonzero's u1),
  // as a cache without fresh symbols per call site would (upstream PR #149297).
  Node* second = nodes_of(t.graph, NodeKind::kInvokeSubgraph).at(1);
  second->value = second->subgraphs[0]->output()->value;
  oracles::OracleReport broken = oracles::check_memo(in);
  ASSERT_FALSE(broken.violations.empty());
  EXPECT_NE(broken.violations[0].details.find("which its subgraph allocates"), std::string::npos)
      << broken.violations[0].details;
}

TEST(HigherOrder, ConstantPredicateCondIsACallOfTheTakenBranch) {
  Trace t = trace(
      "input x: i64[4] = [0, 2, 0, 3]\n"
      "def nz(a):\n  return nonzero(a)\ndef none(a):\n  return nonzero(a * 0)\n"
      "r = cond(True, nz, none, [x])\nreturn r\n");
  std::vector<Node*> calls = nodes_of(t.graph, NodeKind::kInvokeSubgraph);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->function_names, "nz");
  EXPECT_TRUE(nodes_of(t.graph, NodeKind::kCond).empty());
}

TEST(HigherOrder, MapTracesTheFunctionOnARowAndStacksItsOutputs) {
  const char* program =
      "input x: i64[3, 4] dynamic(0) = [1, 0, 2, 0, 0, 0, 0, 3, 5, 5, 0, 1]\n"
      "def row_stats(r):\n  k = nonzero(r)\n  t = item(sum(r, [0]))\n"
      "  return count_nonzero(r, [0]) + size(k, 0), r * t\n"
      "a, b = map(row_stats, [x])\nreturn a, b\n";
  Trace t = trace(program);
  std::vector<Node*> maps = nodes_of(t.graph, NodeKind::kMap);
  ASSERT_EQ(maps.size(), 1u);
  // A row of x is i64[4]; the outputs stack to [s, ...], and the node binds nothing: the
  // nonzero's and the item's symbols stay in the subgraph (bound anew for every row).
  EXPECT_EQ(value_type_str(maps[0]->subgraphs.at(0)->placeholders().at(0)->value), "i64[4]");
  EXPECT_EQ(value_type_str(maps[0]->value).find("(i64[s"), 0u) << value_type_str(maps[0]->value);
  EXPECT_TRUE(maps[0]->unbacked_bindings.empty());
  EXPECT_EQ(bindings_of(*maps[0]->subgraphs[0], "nonzero"), "{u0: size(0)}");
  auto r = run_on_cpu(program);
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  EXPECT_EQ(r.run->outputs[0].str(), "i64[3] [4, 2, 6]");
  EXPECT_EQ(r.run->outputs[1].str(), "i64[3, 4] [3, 0, 6, 0, 0, 0, 0, 9, 55, 55, 0, 11]");
}

TEST(HigherOrder, ScanCarriesAndStacksAndBindsItsIntCarryAtTheNode) {
  const char* program =
      "input x: i64[3, 4] dynamic(0) = [1, 0, 2, 0, 0, 0, 0, 3, 5, 5, 0, 1]\n"
      "def step(acc, total, r):\n  k = nonzero(r)\n"
      "  return acc + size(k, 0), total + r, sum(r, [0])\n"
      "n, tot, ys = scan(step, [0, zeros([4], dtype=i64)], [x])\nreturn n, tot, ys\n";
  Trace t = trace(program);
  std::vector<Node*> scans = nodes_of(t.graph, NodeKind::kScan);
  ASSERT_EQ(scans.size(), 1u);
  // The int carry is a placeholder symbol inside (never bound outside) and a fresh symbol the
  // node binds; the tensor carry keeps its shape; the per-row sums stack to [s].
  Node* s = scans[0];
  EXPECT_EQ(s->carry_args.size(), 2u);
  EXPECT_EQ(s->mapped_args.size(), 1u);
  ASSERT_EQ(s->unbacked_bindings.size(), 1u) << bindings_str(s->unbacked_bindings);
  EXPECT_EQ(s->unbacked_bindings.begin()->second, KeyPath{KeyEntry::sequence(0)});
  EXPECT_EQ(value_type_str(s->value.elems()[1]), "i64[4]");
  EXPECT_EQ(value_type_str(s->value.elems()[2]).find("i64[s"), 0u);
  auto r = run_on_cpu(program);
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  EXPECT_EQ(r.run->outputs[0].str(), "6");
  EXPECT_EQ(r.run->outputs[2].str(), "i64[3] [3, 3, 11]");
}

TEST(HigherOrder, AssociativeScanFoldsRowsOfItsDimAndKeepsTheCombinesSymbolsInside) {
  // A linear recurrence over dim 1 (negative: -1) of two operands; the combine's item() is its
  // own symbol, bound inside, never at the node (the outputs keep the operands' shapes).
  const char* program =
      "input a: i64[2, 3] dynamic(1) = [1, 2, 3, 1, 1, 2]\n"
      "input b: i64[2, 3] dynamic(1) = [0, 1, 1, 5, 0, 1]\n"
      "def lin(a1, b1, a2, b2):\n  t = item(sum(a2, [0]))\n  check(t >= 1, \"positive\")\n"
      "  return a1 * a2, b1 * a2 + b2\n"
      "p, h = associative_scan(lin, [a, b], -1)\nreturn p, h\n";
  Trace t = trace(program);
  std::vector<Node*> scans = nodes_of(t.graph, NodeKind::kAssociativeScan);
  ASSERT_EQ(scans.size(), 1u);
  Node* s = scans[0];
  EXPECT_EQ(s->scan_dim, 1);
  // The left rows' slots, then the right rows': the operands twice.
  ASSERT_EQ(s->carry_args.size(), 2u);
  ASSERT_EQ(s->mapped_args.size(), 2u);
  EXPECT_EQ(s->args.at(s->carry_args[0]).node, s->args.at(s->mapped_args[0]).node);
  EXPECT_TRUE(s->unbacked_bindings.empty()) << bindings_str(s->unbacked_bindings);
  std::vector<Node*> ph = s->subgraphs.at(0)->placeholders();
  ASSERT_EQ(ph.back()->input_name, "b2");
  EXPECT_EQ(value_type_str(ph.back()->value), "i64[2]");
  EXPECT_EQ(bindings_of(*s->subgraphs[0], "item"), "{u0: ()}");
  EXPECT_EQ(value_type_str(s->value.elems()[0]).find("i64[2, s"), 0u);
  auto r = run_on_cpu(program);
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  // Row 0 of a: 1, 1*2, 1*2*3; of h: 0, 0*2 + 1, 1*3 + 1. Row 1: 1, 1, 2; 5, 5*1 + 0, 5*2 + 1.
  EXPECT_EQ(r.run->outputs[0].str(), "i64[2, 3] [1, 2, 6, 1, 1, 2]");
  EXPECT_EQ(r.run->outputs[1].str(), "i64[2, 3] [0, 1, 4, 5, 5, 11]");
}

TEST(HigherOrder, AssociativeScanOverNoRowsRunsNoCombineAndItsCheckStaysInside) {
  // The check fails on any row it would see, but over an empty dim (nonzero of zeros) and over
  // one row nothing is combined: eager and the plan both run no combine and raise nothing.
  const char* program =
      "input x: i64[4] = [0, 0, 0, 0]\ninput y: i64[1, 2] = [7, 7]\n"
      "def never(a, b):\n  check(item(sum(b, [0])) < 0, \"never holds\")\n  return a + b\n"
      "e = associative_scan(never, [nonzero(x)], 0)\n"
      "f = associative_scan(never, [y], 0)\nreturn e, f\n";
  auto r = run_on_cpu(program);
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  EXPECT_EQ(r.run->outputs[0].str(), "i64[0, 1] []");
  EXPECT_EQ(r.run->outputs[1].str(), "i64[1, 2] [7, 7]");
}

}  // namespace
}  // namespace sf::graph
