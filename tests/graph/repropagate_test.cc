// Re-propagation with rebinding (spec §2.12, §4.3, INV-17): every binding site allocates a fresh
// symbol after the epoch bump and is renamed back to the old one; skipping the bump on a program
// whose binding site memo-hits an input mask is a "possible memo disaster".
#include "engine/graph/passes/repropagate.h"

#include <gtest/gtest.h>

#include "engine/base/errors.h"
#include "oracles/invariants/graph_invariants.h"
#include "tests/graph/test_util.h"

namespace sf::graph {
namespace {

using namespace sf::graph::testing;

// One binding site of every kind: boolean index, masked_select, unique with counts (tuple path),
// repeat_interleave (both forms), bool/float/int item, tolist, a divisibility factor, and an
// unbacked input dim (bound by its placeholder, never re-allocated).
constexpr const char* kAllSites =
    "input x: f32[4, 3] = randn(seed=4)\n"
    "input m: bool[4] = [True, False, True, True]\n"
    "input r: i64[3] = [2, 0, 1]\n"
    "input q: i64[5] unbacked(0) = [1, 1, 2, 5, 5]\n"
    "input b: bool[1] = [True]\n"
    "input f: f32[1] = [0.5]\n"
    "a = index(x, m)\n"
    "ms = masked_select(x, x > 0)\n"
    "v, c = unique(q, return_counts=True)\n"
    "ri = repeat_interleave(r)\n"
    "rj = repeat_interleave(x, r, 1)\n"
    "bi = item(b)\n"
    "fi = item(f)\n"
    "k0, k1 = tolist(slice(r, 0, 0, 2))\n"
    "check_is_size(k0)\n"
    "check(k0 % 2 == 0, \"even\")\n"
    "return a, ms, v, c, ri, rj, bi, fi, k0 + k1\n";

void expect_rebound(Trace& t, const RepropagateOptions& opts) {
  int64_t traced_ints = t.env->unbacked_symint_counter();
  int64_t traced_floats = t.env->unbacked_symfloat_counter();
  oracles::SymbolWindow old_window = oracles::SymbolWindow::all(*t.env);
  Graph g = repropagate(t, opts);
  ASSERT_EQ(g.size(), t.graph.size());
  EXPECT_TRUE(t.env->pending_fresh_unbacked_symbols().empty()) << "INV-1";
  std::vector<Node*> olds = t.graph.nodes(), news = g.nodes();
  int rebound = 0;
  for (size_t i = 0; i < olds.size(); ++i) {
    const Node* o = olds[i];
    const Node* n = news[i];
    ASSERT_EQ(o->name, n->name);
    if (o->kind == NodeKind::kPlaceholder || o->unbacked_bindings.empty()) continue;
    SCOPED_TRACE(o->name);
    if (o->derived_binding) {
      EXPECT_EQ(bindings_str(n->unbacked_bindings), bindings_str(o->unbacked_bindings));
      continue;
    }
    ASSERT_EQ(n->unbacked_bindings.size(), o->unbacked_bindings.size());
    auto oi = o->unbacked_bindings.begin();
    for (const auto& [fresh, path] : n->unbacked_bindings) {
      const auto& [old, old_path] = *oi++;
      EXPECT_EQ(keypath_str(path), keypath_str(old_path));
      bool is_float = fresh->str().rfind("zuf", 0) == 0;
      int64_t idx = std::stoll(fresh->str().substr(is_float ? 3 : 1));
      EXPECT_GE(idx, is_float ? traced_floats : traced_ints) << fresh->str() << " is not fresh";
      EXPECT_EQ(t.env->unbacked_renamings().at(fresh), old);
      EXPECT_EQ(t.env->resolve_renaming(fresh), old);
      EXPECT_EQ(t.env->replace(fresh), t.env->replace(old)) << "INV-7(iii)";
      EXPECT_EQ(t.env->replace(fresh), old == U(7) ? sym::mul(sym::integer(2), U(9)) : old);
      ++rebound;
    }
  }
  EXPECT_EQ(rebound, 9);
  EXPECT_TRUE(oracles::check_retrace_rebinding(t.graph, g, *t.env).empty())
      << oracles::violations_str(oracles::check_retrace_rebinding(t.graph, g, *t.env));
  EXPECT_TRUE(oracles::check_bindings(t.graph, *t.env, old_window).empty());
  oracles::SymbolWindow fresh = oracles::SymbolWindow::all(*t.env);
  fresh.first_int = traced_ints;
  fresh.first_float = traced_floats;
  std::vector<oracles::Violation> vs = oracles::check_bindings(g, *t.env, fresh);
  EXPECT_TRUE(vs.empty()) << oracles::violations_str(vs);
  EXPECT_TRUE(oracles::check_def_before_use(g, *t.env).empty());
}

TEST(Repropagate, EveryBindingSiteIsFreshAndRenamedBack_SameFakeMode) {
  Trace t = trace(kAllSites);
  EXPECT_EQ(binding_sites(t.graph),
            (std::vector<std::string>{"index {u1: size(0)}", "masked_select {u2: size(0)}",
                                      "unique {u3: [0].size(0)}", "repeat_interleave {u4: size(0)}",
                                      "repeat_interleave_1 {u5: size(1)}", "item {u6: int()}",
                                      "item_1 {zuf0: ()}", "item_2 {u7: ()}", "floordiv {u9: ()}",
                                      "item_3 {u8: ()}"}));
  expect_rebound(t, RepropagateOptions{});
}

TEST(Repropagate, EveryBindingSiteIsFreshAndRenamedBack_FreshFakeMode) {
  Trace t = trace(kAllSites);
  const fake::FakeMode* before = t.mode.get();
  RepropagateOptions opts;
  opts.fresh_fake_mode = true;
  expect_rebound(t, opts);
  EXPECT_NE(t.mode.get(), before);
  // The unbacked input is re-fakified through its stateful context: same symbol, no new binding.
  EXPECT_EQ(t.env->unbacked_inputs().size(), 1u);
  EXPECT_EQ(t.env->unbacked_inputs().count(U(0)), 1u);
}

TEST(Repropagate, RepeatedRepropagationKeepsResolvingToOriginalNames) {
  Trace t = trace("input t: i64[5] = [1, 0, 3, 2, 0]\nnz = nonzero(t)\nreturn nz\n");
  Graph g1 = repropagate(t);
  Graph g2 = repropagate(t);
  EXPECT_EQ(bindings_of(g1, "nonzero"), "{u1: size(0)}");
  EXPECT_EQ(bindings_of(g2, "nonzero"), "{u2: size(0)}");
  EXPECT_EQ(t.env->resolve_renaming(U(2)), U(0));
  EXPECT_EQ(t.env->replace(U(2)), U(0));
  EXPECT_EQ(range_of(*t.env, U(2)), "[0, 5]");
  EXPECT_TRUE(t.env->is_size_like(U(2))) << "INV-7(v)";
}

TEST(Repropagate, MemoHitOnInputMaskWithoutEpochBumpIsMemoDisaster) {
  Trace t = trace(
      "input x: f32[4] = arange()\ninput m: bool[4] = [True, False, True, True]\n"
      "a = index(x, m)\nreturn a\n");
  RepropagateOptions opts;
  opts.bump_epoch = false;
  try {
    repropagate(t, opts);
    FAIL() << "expected EngineBug";
  } catch (const EngineBug& e) {
    EXPECT_NE(std::string(e.what()).find("possible memo disaster"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("u0"), std::string::npos) << e.what();
  }
}

// Without a memo on an input (an intermediate mask), skipping the bump is harmless: the fresh
// intermediate tensor has no memo, so a fresh symbol is allocated anyway.
TEST(Repropagate, NoEpochBumpIsHarmlessForIntermediateMasks) {
  Trace t = trace("input x: f32[4] = arange()\na = index(x, x > 1.0)\nreturn a\n");
  RepropagateOptions opts;
  opts.bump_epoch = false;
  Graph g = repropagate(t, opts);
  EXPECT_EQ(bindings_of(g, "index"), "{u1: size(0)}");
  EXPECT_EQ(t.env->resolve_renaming(U(1)), U(0));
}

TEST(Repropagate, ChecksReplayOnRenamedSymbolsAddNothing) {
  Trace t = trace(
      "input t: i64[2] = [3, 7]\na, b = tolist(t)\ncheck(a + b == 10, \"sum\")\n"
      "check(a <= b, \"ordered\")\nreturn a, b\n");
  int64_t asserts = t.env->num_deferred_runtime_asserts();
  size_t guards = t.env->guards().size();
  Graph g = repropagate(t);
  EXPECT_EQ(t.env->num_deferred_runtime_asserts(), asserts);
  EXPECT_EQ(t.env->guards().size(), guards);
  // The re-propagated check nodes carry the expression over the fresh names.
  std::vector<std::string> l = listing(g);
  EXPECT_NE(position(l, "check(Eq(u2 + u3, 10))"), -1) << ::testing::PrintToString(l);
  EXPECT_EQ(bucket(*t.env, U(1)), (std::vector<std::string>{"Eq(u0 + u1, 10)", "u0 <= u1"}));
}

}  // namespace
}  // namespace sf::graph
