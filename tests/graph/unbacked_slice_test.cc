// Unbacked slicing (PyTorch's slice_forward fake impl): an undecidable clamp binds fresh size and
// storage-offset symbols at the slice with their range asserts, and the run computes them; with
// the user's checks in place the size is u1 - u0 statically. Narrow goes through the same slice.
#include <gtest/gtest.h>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "oracles/pipeline.h"
#include "tests/graph/test_util.h"

namespace sf::graph {
namespace {

using namespace sf::graph::testing;

std::string size0(const Graph& g, const std::string& name) {
  Node* n = find_node(g, name);
  if (!n) return "<missing>";
  return n->value.tensor()->sizes()[0].str();
}

TEST(UnbackedSlice, UndecidableBoundsBindFreshSizeAndOffset) {
  auto r = run_on_cpu(
      "input x: f32[10, 3] = randn(seed=1)\n"
      "input t: i64[2] = [2, 7]\n"
      "a, b = tolist(t)\n"
      "s = slice(x, 0, a, b)\n"
      "return s\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  const Trace& t = *r.trace;
  // u0, u1 from tolist; the slice binds its size and its storage offset.
  EXPECT_EQ(bindings_of(t.graph, "slice"), "{u2: size(0), u3: storage_offset()}");
  EXPECT_EQ(size0(t.graph, "slice"), "u2");
  EXPECT_EQ(range_of(*t.env, U(2)), "[0, 10]");
  EXPECT_EQ(range_of(*t.env, U(3)), "[0, int_oo]");
  // The run computed them from the clamp written out: 7 - 2 rows, starting at row 2.
  ASSERT_TRUE(r.run.has_value());
  EXPECT_EQ(r.run->sigma.at(U(2)).i, 5);
  EXPECT_EQ(r.run->sigma.at(U(3)).i, 6);
}

TEST(UnbackedSlice, ChecksMakeTheSizeStatic) {
  // With 0 <= a <= b <= n the clamp is decided: no fresh symbol, size b - a, no guard needed.
  auto r = run_on_cpu(
      "input x: f32[10, 3] dynamic(0) = randn(seed=1)\n"
      "input t: i64[2] = [2, 7]\n"
      "a, b = tolist(t)\n"
      "check(a >= 0, \"start\")\n"
      "check(a <= b, \"ordered\")\n"
      "check(b <= size(x, 0), \"stop\")\n"
      "s = slice(x, 0, a, b)\n"
      "check(size(s, 0) == b - a, \"static\")\n"
      "return s\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  EXPECT_EQ(bindings_of(r.trace->graph, "slice"), "{}");
  EXPECT_EQ(size0(r.trace->graph, "slice"), "-u0 + u1");
}

TEST(UnbackedSlice, MaxOfDifferenceFoldsUnderFacts) {
  // Max(0, b - a) was only folded on ranges: branching on it was a data-dependent error.
  auto r = run_on_cpu(
      "input t: i64[2] = [2, 7]\n"
      "a, b = tolist(t)\n"
      "check(a <= b, \"ordered\")\n"
      "m = max(b - a, 0)\n"
      "z = zeros([m])\n"
      "if size(z, 0) == b - a:\n"
      "  r = z\n"
      "else:\n"
      "  r = z + 1\n"
      "return r\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  Node* z = find_node(r.trace->graph, "zeros");
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(r.trace->env->simplify(z->value.tensor()->sizes()[0].expr())->str(), "-u0 + u1");
}

TEST(UnbackedSlice, BackedBoundsGuardAsUpstream) {
  Trace t = trace(
      "input x: f32[10] dynamic(0) = randn(seed=1)\n"
      "s = slice(x, 0, 2, 5)\n"
      "return s\n");
  EXPECT_EQ(bindings_of(t.graph, "slice"), "{}");
  EXPECT_EQ(size0(t.graph, "slice"), "3");
}

TEST(UnbackedSlice, NarrowWithUnknownSignStartIsItsLength) {
  auto r = run_on_cpu(
      "input x: i64[8] = arange()\n"
      "input t: i64[1] = [-3]\n"
      "k = item(t)\n"
      "s = narrow(x, 0, k, 3)\n"
      "return s\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  Node* n = find_node(r.trace->graph, "narrow");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(r.trace->env->simplify(n->value.tensor()->sizes()[0].expr())->str(), "3");
  ASSERT_TRUE(r.run.has_value());
  // x.narrow(0, -3, 3) is x[5:8].
  ASSERT_EQ(r.run->outputs.size(), 1u);
  EXPECT_EQ(r.run->outputs[0].str(), r.eager->outputs[0].str());
}

TEST(UnbackedSlice, SliceOfAnEmptyDimKeepsItsFreshSymbolBound) {
  // The size's range asserts pin it to 0; it is still bound (and renamed on re-propagation).
  auto r = run_on_cpu(
      "input x: i64[0] = arange()\n"
      "input t: i64[1] = [1]\n"
      "k = item(t)\n"
      "s = slice(x, 0, k)\n"
      "return s\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  EXPECT_EQ(bindings_of(r.trace->graph, "slice"), "{u1: size(0), u2: storage_offset()}");
}

}  // namespace
}  // namespace sf::graph
