// Guard flavours (spec §1.3, §2.5, §2.17–§2.20): guard_or_false/true on backed symbols and under
// backed_size_oblivious, OBLIVIOUS_SIZE hints, expect_size/check_is_size, prefer-deferred guards,
// and the cache-key version counter (INV-21).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using namespace sf::testing;

TEST(GuardVariants, GuardOrFalseOnBackedInstallsAGuard) {
  ShapeEnv env;
  SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  EXPECT_TRUE(env.guard_or_false(sym_ge(s, 5)));  // decided by the hint, like guard_bool
  EXPECT_FALSE(env.guard_or_true(sym_ge(s, 9)));
  ASSERT_EQ(env.guards().size(), 2u);
  EXPECT_EQ(env.guards()[0].expr->str(), s.str() + " >= 5");
}

TEST(GuardVariants, BackedSizeObliviousTakesTheDefault) {
  ShapeEnvSettings st;
  st.backed_size_oblivious = true;
  ShapeEnv env(st);
  SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  std::string before = env.state_str();
  EXPECT_FALSE(env.guard_or_false(sym_eq(s, 5)));
  EXPECT_TRUE(env.guard_or_true(sym_eq(s, 5)));
  EXPECT_EQ(env.state_str(), before) << "no guard under backed_size_oblivious";
  EXPECT_TRUE(env.guard_or_false(sym_ge(s, 2))) << "statically known answers still count";
}

// §2.17 step 3b: OBLIVIOUS_SIZE inputs are decided from their hint only if the answer is the
// same with the hint replaced by max(2, hint); nothing is recorded.
struct ObliviousCase {
  int64_t hint;
  SymBool (*q)(const SymInt& u);
  int answer;  // 0/1, or -1 for a data-dependent error
};

TEST(GuardVariants, ObliviousSizeHints) {
  const ObliviousCase cases[] = {
      {5, [](const SymInt& u) { return sym_eq(u, 0); }, 0},
      {5, [](const SymInt& u) { return sym_gt(u, 3); }, 1},
      {1, [](const SymInt& u) { return sym_eq(u, 1); }, -1},  // 1 vs max(2, 1) disagree
      {0, [](const SymInt& u) { return sym_ge(u, 7); }, 0},
      {1, [](const SymInt& u) { return sym_le(u, 5); }, 1},
  };
  for (const ObliviousCase& c : cases) {
    ShapeEnv env;
    SymInt u = env.create_symbol(c.hint, "x.size()[0]", DimDynamic::kObliviousSize);
    SCOPED_TRACE(c.q(u).str() + " with hint " + std::to_string(c.hint));
    ASSERT_TRUE(u.expr()->is_unbacked_symbol());
    EXPECT_FALSE(env.has_hint(u.expr())) << "the oblivious hint is not a backed hint";
    std::string before = env.state_str();
    if (c.answer < 0) {
      EXPECT_THROW(env.guard_bool(c.q(u)), GuardOnDataDependentSymNode);
    } else {
      EXPECT_EQ(env.guard_bool(c.q(u)), c.answer == 1);
    }
    EXPECT_EQ(env.state_str(), before);
  }
}

TEST(GuardVariants, ExpectSizeAndCheckIsSize) {
  ShapeEnv env;
  SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  EXPECT_TRUE(env.expect_size(u0, "size"));
  EXPECT_TRUE(env.is_size_like(U(0)));
  EXPECT_EQ(env.var_range(U(0)).str(), "[0, int_oo]");
  EXPECT_EQ(env.deferred_runtime_asserts().at(U(0)).at(0).expr->str(), "u0 >= 0");
  env.check_is_size(u1, 12);
  EXPECT_TRUE(env.is_size_like(U(1)));
  EXPECT_EQ(env.var_range(U(1)).str(), "[0, 12]");
  EXPECT_EQ(env.deferred_runtime_asserts().at(U(1)).size(), 2u) << "u1 >= 0 and u1 <= 12";
  EXPECT_TRUE(env.expect_size(s, "backed"));
  EXPECT_FALSE(env.is_size_like(s.expr())) << "backed symbols are never advised size-like";
  EXPECT_THROW(env.constrain_range_for_size(u0.expr(), 4, 3), UserError);
  EXPECT_THROW(env.constrain_range_for_size(sym::add(U(0), I(1))), UserError);
}

TEST(GuardVariants, PreferDeferredTurnsBackedGuardsIntoAsserts) {
  ShapeEnvSettings st;
  st.prefer_deferred_runtime_asserts_over_guards = true;
  ShapeEnv env(st);
  SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  EXPECT_TRUE(env.guard_bool(sym_ne(s, 3)));
  EXPECT_TRUE(env.guards().empty());
  ASSERT_EQ(env.deferred_runtime_asserts().count(ExprRef()), 1u) << "None bucket: no unbacked";
  EXPECT_EQ(env.deferred_runtime_asserts().at(ExprRef()).at(0).expr->str(),
            "Ne(" + s.str() + ", 3)");
  // s > 3 refines s to [4, oo] first (maybe_guard_rel), after which the deferred assert is
  // statically true and not recorded (upstream: "the result here will be statically known").
  EXPECT_TRUE(env.guard_bool(sym_gt(s, 3)));
  EXPECT_EQ(env.var_range(s.expr()).str(), "[4, int_oo]");
  EXPECT_TRUE(env.guards().empty());
  EXPECT_EQ(env.num_deferred_runtime_asserts(), 1);
}

TEST(GuardVariants, VersionFollowsTheCacheKey) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  uint64_t v = env.version();
  env.constrain_range_for_size(u0.expr(), 0, 100);  // ranges and size-likeness: not in the key
  EXPECT_EQ(env.version(), v);
  env.guard_or_false(sym_eq(u1, 3));  // pure fallback
  EXPECT_EQ(env.version(), v);
  env.check(sym_ge(u1, 2), "assert");  // #asserts
  EXPECT_GT(env.version(), v);
  v = env.version();
  env.set_replacement(U(1), sym::add(U(0), I(2)), "test");  // |replacements|
  EXPECT_GT(env.version(), v);
  v = env.version();
  env.set_unbacked_var_to_val(U(0), 4);  // |unbacked_var_to_val|
  EXPECT_GT(env.version(), v);
  v = env.version();
  env.set_unbacked_var_to_val(U(0), 4);  // same size: no bump
  EXPECT_EQ(env.version(), v);
}

}  // namespace
}  // namespace sf
