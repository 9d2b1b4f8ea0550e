// Replacements (spec §2.9–§2.10, §2.13–§2.14): the range checks of set_replacement, path
// compression, what maybe_guard_rel learns from a true relation, divisibility and refine_ranges.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "tests/shape_env/test_util.h"

namespace sf {

namespace {

// The reason a replacement was first installed with ("" when none).
std::string reason(const ShapeEnv& env, const ExprRef& s) {
  const auto& reasons = env.replacement_table().reasons();
  auto it = reasons.find(s);
  return it == reasons.end() ? "" : it->second;
}

using namespace sf::testing;

SymInt backed(ShapeEnv& env, int64_t hint, const char* source) {
  return env.create_symbol(hint, source, DimDynamic::kDynamic);
}

TEST(SetReplacement, IntersectsRangeOfTheReplacedSymbol) {
  ShapeEnv env;
  SymInt s = backed(env, 5, "x.size()[0]");
  SymInt u = env.create_unbacked_symint();
  EXPECT_TRUE(env.set_replacement(u.expr(), sym::add(s.expr(), I(1)), "test"));
  EXPECT_EQ(env.var_range(U(0)).str(), "[3, int_oo]") << "s in [2, oo] so s + 1 in [3, oo]";
  EXPECT_EQ(env.replace(U(0)), sym::add(s.expr(), I(1)));
}

TEST(SetReplacement, DeclinedWhenTargetRangeIsNotASubset) {
  ShapeEnv env;
  SymInt a = backed(env, 5, "a.size()[0]"), b = backed(env, 6, "b.size()[0]");
  SymInt u = env.create_unbacked_symint();
  env.constrain_symbol_range(u.expr(), 0, 10);
  ExprRef tgt = sym::add(a.expr(), b.expr());  // [4, oo]: not univariate, so no refinement
  EXPECT_FALSE(env.set_replacement(u.expr(), tgt, "test"));
  EXPECT_EQ(env.replacements().count(U(0)), 0u);
  EXPECT_EQ(env.var_range(U(0)).str(), "[4, 10]") << "the sound intersection is kept";
}

// Univariate linear targets refine the other symbol's range (rounded inward) so the target fits.
struct UnivariateCase {
  int64_t lo, hi;
  ExprRef (*tgt)(const ExprRef& b);
  const char* b_range;
};

TEST(SetReplacement, UnivariateLinearRefinement) {
  const UnivariateCase cases[] = {
      {0, 10, [](const ExprRef& b) { return sym::add(sym::mul(I(2), b), I(1)); }, "[0, 4]"},
      {0, 10, [](const ExprRef& b) { return sym::sub(I(10), b); }, "[0, 10]"},
      {1, 10, [](const ExprRef& b) { return sym::mul(I(3), b); }, "[1, 3]"},
      {-7, 7, [](const ExprRef& b) { return sym::mul(I(-2), b); }, "[-3, 3]"},
  };
  for (const UnivariateCase& c : cases) {
    ShapeEnv env;
    SymInt a = env.create_unbacked_symint(), b = env.create_unbacked_symint();
    env.constrain_symbol_range(a.expr(), c.lo, c.hi);
    ExprRef tgt = c.tgt(b.expr());
    SCOPED_TRACE(tgt->str());
    EXPECT_TRUE(env.set_replacement(a.expr(), tgt, "test"));
    EXPECT_EQ(env.var_range(U(1)).str(), c.b_range);
    EXPECT_TRUE(env.bound(tgt).issubset(env.var_range(U(0))));
  }
}

// §2.9 step 2: preferring deferred asserts, only Symbol / c + e / c*e targets are accepted.
TEST(SetReplacement, PreferDeferredAcceptsOnlySupportedEquivalences) {
  ShapeEnvSettings st;
  st.prefer_deferred_runtime_asserts_over_guards = true;
  ShapeEnv env(st);
  SymInt a = backed(env, 5, "a.size()[0]"), b = backed(env, 6, "b.size()[0]");
  for (int i = 0; i < 5; ++i) env.create_unbacked_symint();
  EXPECT_TRUE(env.set_replacement(U(0), a.expr(), "test"));
  EXPECT_TRUE(env.set_replacement(U(1), sym::add(a.expr(), I(3)), "test"));
  EXPECT_TRUE(env.set_replacement(U(2), sym::add(sym::mul(I(2), a.expr()), I(1)), "test"));
  EXPECT_FALSE(env.set_replacement(U(3), sym::add(a.expr(), b.expr()), "test"));
  EXPECT_FALSE(env.set_replacement(U(4), sym::floordiv(a.expr(), I(2)), "test"));
  EXPECT_EQ(env.replacements().size(), 3u);
}

TEST(SetReplacement, SizeLikenessCrossesSymbolEqualityOnly) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  SymInt u2 = env.create_unbacked_symint(), u3 = env.create_unbacked_symint();
  env.constrain_range_for_size(u0.expr());
  env.constrain_range_for_size(u3.expr());
  EXPECT_TRUE(env.set_replacement(u1.expr(), u0.expr(), "test"));  // target size-like
  EXPECT_TRUE(env.is_size_like(U(1)));
  EXPECT_EQ(env.var_range(U(1)).str(), "[0, int_oo]");
  EXPECT_TRUE(env.set_replacement(u2.expr(), sym::add(u3.expr(), I(1)), "test"));
  EXPECT_FALSE(env.is_size_like(U(2))) << "u3 + 1 is not a plain symbol";
  EXPECT_EQ(env.var_range(U(2)).str(), "[1, int_oo]");
}

TEST(SetReplacement, SizeLikeSourcePropagatesToTarget) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  env.constrain_range_for_size(u1.expr());
  EXPECT_TRUE(env.set_replacement(u1.expr(), u0.expr(), "test"));
  EXPECT_TRUE(env.is_size_like(U(0)));
  EXPECT_EQ(env.var_range(U(0)).str(), "[0, int_oo]");
}

TEST(SetReplacement, NeverSelfReferential) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  EXPECT_FALSE(env.set_replacement(U(0), sym::add(U(0), I(1)), "test"));
  EXPECT_FALSE(env.set_replacement(U(0), U(0), "test"));
  EXPECT_TRUE(env.set_replacement(U(1), sym::add(U(0), I(1)), "test"));
  // u0 -> u1 - 1 resolves to u0 -> u0: refused, no cycle.
  EXPECT_FALSE(env.set_replacement(U(0), sym::sub(U(1), I(1)), "test"));
  EXPECT_EQ(env.replacements().size(), 1u);
  for (const auto& [k, v] : env.replacements()) EXPECT_FALSE(sym::has_symbol(v, k));
}

TEST(SetReplacement, TargetsStayFullyResolved) {
  ShapeEnv env;
  for (int i = 0; i < 4; ++i) env.create_unbacked_symint();
  ASSERT_TRUE(env.set_replacement(U(3), U(2), "test"));
  ASSERT_TRUE(env.set_replacement(U(2), sym::add(U(1), I(1)), "test"));
  ASSERT_TRUE(env.set_replacement(U(1), sym::mul(I(2), U(0)), "test"));
  ASSERT_TRUE(env.set_replacement(U(0), I(5), "test"));
  // Every stored target is final: no key of replacements occurs in any target (path compression).
  for (const auto& [k, v] : env.replacements()) {
    EXPECT_TRUE(v->is_ground()) << k->str() << " -> " << v->str();
  }
  EXPECT_EQ(env.replacements().at(U(3)), I(11));
  EXPECT_EQ(env.replace(sym::add(U(3), U(1))), I(21));
  // §2.10: compression writes back through _set_replacement, which intersects the range of the
  // compressed symbol with the bound of its new target (PyTorch's _find does this on read).
  EXPECT_EQ(env.var_range(U(3)).str(), "[11, 11]");
}

// What check(lhs == rhs) teaches: which symbol gets replaced by what, and why (§2.13 step 6).
struct GuardRelCase {
  const char* name;
  SymBool (*rel)(const std::vector<SymInt>& u, const SymInt& s);
  int replaced;  // index into u; -1 for none
  const char* target;
  const char* reason;
};

TEST(MaybeGuardRel, WhatAnEqualityTeaches) {
  const GuardRelCase cases[] = {
      // _refine_ranges runs before the trivial solve and already pins u0 to [3, 3] (§2.13 step 4).
      {"constant", [](auto& u, auto& s) { return sym_eq(u[0], 3); }, 0, "3",
       "range_refined_to_singleton"},
      {"backed/unbacked unification", [](auto& u, auto& s) { return sym_eq(u[0], s); }, 0, "s",
       "trivial_rhs"},
      {"solve for the unbacked symbol", [](auto& u, auto& s) { return sym_eq(u[0], s + 1); }, 0,
       "s + 1", "solve"},
      {"two data-dependent symbols: no time travel",
       [](auto& u, auto& s) { return sym_eq(u[0], u[1]); }, -1, "", ""},
      {"u1 == u2 + u3 does not rewrite u1",
       [](auto& u, auto& s) { return sym_eq(u[1], u[2] + u[3]); }, -1, "", ""},
      {"non-integral solution", [](auto& u, auto& s) { return sym_eq(u[0] * 2, s); }, -1, "", ""},
      {"FloorDiv blocks solving", [](auto& u, auto& s) { return sym_eq(floordiv(u[0], 2), s); }, -1,
       "", ""},
      {"disequality teaches nothing", [](auto& u, auto& s) { return sym_ne(u[0], 3); }, -1, "", ""},
  };
  for (const GuardRelCase& c : cases) {
    SCOPED_TRACE(c.name);
    ShapeEnv env;
    SymInt s = backed(env, 8, "x.size()[0]");
    std::vector<SymInt> u;
    for (int i = 0; i < 4; ++i) u.push_back(env.create_unbacked_symint());
    env.check(c.rel(u, s), c.name);
    if (c.replaced < 0) {
      EXPECT_TRUE(env.replacements().empty());
      continue;
    }
    std::string expected = c.target;
    size_t at = expected.find('s');
    if (at != std::string::npos) expected.replace(at, 1, s.str());
    EXPECT_EQ(env.replace(U(c.replaced))->str(), expected);
    EXPECT_EQ(reason(env, U(c.replaced)), c.reason);
    EXPECT_EQ(env.replacements().size(), 1u);
  }
}

// §2.13 step 2: relations over more than five symbols are not learned from at all.
TEST(MaybeGuardRel, AtMostFiveFreeSymbols) {
  for (int n : {5, 6}) {
    SCOPED_TRACE(n);
    ShapeEnv env;
    SymInt sum = 0;
    for (int i = 0; i < n; ++i) {
      SymInt u = env.create_unbacked_symint();
      env.constrain_symbol_range(u.expr(), 0, 10);
      sum = sum + u;
    }
    env.check(sym_ge(sum, 10 * n), "all at their maximum");
    EXPECT_EQ(env.num_deferred_runtime_asserts(), 1);
    EXPECT_EQ(env.var_range(U(0)).str(), n <= 5 ? "[10, 10]" : "[0, 10]");
    EXPECT_EQ(env.replacements().size(), n <= 5 ? static_cast<size_t>(n) : 0u);
  }
}

TEST(MaybeGuardRel, InputUnbackedSymbolsMayReplaceEachOther) {
  ShapeEnv env;
  SymInt a = env.create_symbol(5, "a.size()[0]", DimDynamic::kSizeLikeUnbacked);
  SymInt b = env.create_symbol(5, "b.size()[0]", DimDynamic::kSizeLikeUnbacked);
  ASSERT_TRUE(a.expr()->is_unbacked_symbol());
  ASSERT_EQ(env.unbacked_inputs().size(), 2u);
  env.check(sym_eq(a, b), "a.size(0) == b.size(0)");
  EXPECT_EQ(env.replace(a.expr()), b.expr()) << "PR #163652: Eq(u0, u1) solves trivially for u0";
  EXPECT_EQ(reason(env, a.expr()), "trivial_lhs");
  EXPECT_EQ(env.replacements().size(), 1u);
  // The assert itself is still recorded, on the unreplaced symbols.
  EXPECT_EQ(env.num_deferred_runtime_asserts(), 1);
}

TEST(MaybeGuardRel, DivisibilityRewrite) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  env.constrain_symbol_range(u0.expr(), -10, 10);
  env.check(sym_eq(mod(u0 * 6, 4), 0), "6*u0 % 4 == 0");
  // d = 4 / gcd(4, 6) = 2: u0 = 2*u1 with u1 in [-5, 5].
  EXPECT_EQ(env.replace(U(0))->str(), "2*u1");
  EXPECT_EQ(reason(env, U(0)), "divisibility");
  EXPECT_EQ(env.var_range(U(1)).str(), "[-5, 5]");
  EXPECT_EQ(env.pending_fresh_unbacked_symbols(), (std::vector<ExprRef>{U(0), U(1)}));
  EXPECT_EQ(env.divisible().size(), 1u);
}

// §2.14: ranges refined from a relation that holds; a singleton becomes a replacement.
struct RefineCase {
  const char* name;
  SymBool (*rel)(const SymInt& u0, const SymInt& u1);
  const char* u0_range;
  const char* u1_range;
};

TEST(RefineRanges, FromRelations) {
  const RefineCase cases[] = {
      {"u1 <= u0", [](auto& a, auto& b) { return sym_le(b, a); }, "[0, 8]", "[-int_oo, 8]"},
      {"u1 < u0", [](auto& a, auto& b) { return sym_lt(b, a); }, "[0, 8]", "[-int_oo, 7]"},
      {"u1 >= u0 + 2", [](auto& a, auto& b) { return sym_ge(b, a + 2); }, "[0, 8]", "[2, int_oo]"},
      {"2*u1 == u0", [](auto& a, auto& b) { return sym_eq(b * 2, a); }, "[0, 8]", "[0, 4]"},
      {"u0 >= 3", [](auto& a, auto& b) { return sym_ge(a, 3); }, "[3, 8]", "[-int_oo, int_oo]"},
  };
  for (const RefineCase& c : cases) {
    SCOPED_TRACE(c.name);
    ShapeEnv env;
    SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
    env.constrain_symbol_range(u0.expr(), 0, 8);
    env.check(c.rel(u0, u1), c.name);
    EXPECT_EQ(env.var_range(U(0)).str(), c.u0_range);
    EXPECT_EQ(env.var_range(U(1)).str(), c.u1_range);
  }
}

TEST(RefineRanges, SingletonBecomesReplacement) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  env.constrain_symbol_range(u0.expr(), 0, 8);
  env.constrain_symbol_range(u1.expr(), 0, 8);
  env.check(sym_ge(u0, 8), "u0 >= 8");
  EXPECT_EQ(env.replace(U(0)), I(8));
  EXPECT_EQ(reason(env, U(0)), "range_refined_to_singleton");
  env.check(sym_le(u1 * 3, 2), "3*u1 <= 2");
  EXPECT_EQ(env.replace(U(1)), I(0));
}

TEST(RefineRanges, ContradictoryConstraintsAreAValueRangeError) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  env.constrain_symbol_range(u0.expr(), 0, 8);
  try {
    env.constrain_symbol_range(u0.expr(), 10, 20);
    FAIL() << "expected a ValueRangeError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kValueRange) << e.what();
  }
  EXPECT_EQ(env.var_range(U(0)).str(), "[0, 8]") << "the failed update left the range alone";
}

// PyTorch's _refine_ranges solves a relation for each of its symbols in turn: split_with_sizes of
// an empty dim checks each size >= 0 and u0 + u1 + u2 == 0, which pins all three to 0. Size-like
// symbols are never learned to be below 2 (their bound stays [0, 2]), as upstream.
TEST(RefineRanges, AnEqualityOverSeveralNonNegativeIntsPinsEachOfThem) {
  for (bool size_like : {false, true}) {
    SCOPED_TRACE(size_like ? "size-like" : "checked >= 0");
    ShapeEnv env;
    std::vector<SymInt> u;
    for (int i = 0; i < 3; ++i) {
      u.push_back(env.create_unbacked_symint());
      if (size_like) {
        env.check_is_size(u.back());
      } else {
        env.check(sym_ge(u.back(), 0), "a split size");
      }
    }
    env.check(sym_eq(u[0] + u[1] + u[2], 0), "split sizes sum to the dim");
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(env.replace(U(i)) == I(0), !size_like) << i;
      EXPECT_EQ(env.var_range(U(i)).str(), size_like ? "[0, 2]" : "[0, 0]") << i;
    }
    EXPECT_EQ(env.statically_known_true(sym_lt(u[0] + u[1] + u[2], 3)), !size_like);
  }
}
}  // namespace
}  // namespace sf
