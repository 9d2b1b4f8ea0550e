// PyTorch's own ShapeEnv-level tests (spec §10.1: T1–T3, T6, T7, T12, T14, T20) and the
// reference pseudo-programs of spec §11 at the ShapeEnv level.
#include <gtest/gtest.h>

#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using namespace sf::testing;

TEST(PyTorchCases, T1_DataDependentGuardRaises) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  std::string before = env.state_str();
  try {
    env.guard_bool(sym_eq(u, 0));
    FAIL() << "expected GuardOnDataDependentSymNode";
  } catch (const GuardOnDataDependentSymNode& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("Eq(u0, 0)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("check("), std::string::npos) << "message should suggest a check: " << msg;
  }
  EXPECT_EQ(env.state_str(), before) << "a data-dependent error must not change state (INV-15)";
}

TEST(PyTorchCases, T2_RealValuesBecomeRuntimeAsserts) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  env.set_unbacked_var_to_val(u.expr(), 0);
  EXPECT_TRUE(env.guard_bool(sym_eq(u, 0)));
  EXPECT_TRUE(env.guards().empty());
  ASSERT_EQ(env.deferred_runtime_asserts().count(U(0)), 1u);
  EXPECT_EQ(env.deferred_runtime_asserts().at(U(0))[0].expr->str(), "Eq(u0, 0)");
}

TEST(PyTorchCases, T3_ExpectTrueInstallsReplacement) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  EXPECT_TRUE(env.expect_true(sym_eq(u, 0), "test"));
  ASSERT_EQ(env.replacements().count(U(0)), 1u);
  EXPECT_EQ(env.replacements().at(U(0)), I(0));
  EXPECT_TRUE(env.guard_bool(sym_eq(u, 0)));  // no DDE any more
  ASSERT_EQ(env.deferred_runtime_asserts().count(U(0)), 1u);
  EXPECT_EQ(env.deferred_runtime_asserts().at(U(0))[0].expr->str(), "Eq(u0, 0)");
}

TEST(PyTorchCases, T6_NoSubstitutionOfUnbackedByLaterUnbacked) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  env.check_is_size(u0);
  env.check_is_size(u1);
  env.expect_true(sym_eq(u0, u1 * 4));
  EXPECT_EQ(env.replace(u0.expr())->str(), "u0");
  SymInt u2 = env.create_unbacked_symint(), u3 = env.create_unbacked_symint();
  env.check_is_size(u2);
  env.check_is_size(u3);
  env.expect_true(sym_eq(u2 * 4, u3));
  EXPECT_EQ(env.replace(u3.expr())->str(), "u3");
}

TEST(PyTorchCases, T7_AvoidUnbackedSubstitution) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  env.expect_true(sym_eq(u0, SymInt(10) - u1));
  EXPECT_EQ(env.replace(u0.expr())->str(), "u0");
  EXPECT_EQ(env.replace(u1.expr())->str(), "u1");
}

TEST(PyTorchCases, T12_FloorCleanDivAxioms) {
  ShapeEnv env;
  SymInt a = env.create_unbacked_symint();
  ExprRef fd = sym::eq(sym::floordiv(a.expr(), I(3)), I(1));
  EXPECT_TRUE(env.guard_or_defer_runtime_assert(fd, "a//3 == 1"));
  EXPECT_EQ(env.evaluate_expr(fd), sym::true_expr());
  EXPECT_FALSE(env.maybe_evaluate_static(sym::eq(sym::clean_div(a.expr(), I(3)), I(1))));
  env.guard_or_defer_runtime_assert(sym::eq(sym::mod(a.expr(), I(3)), I(0)), "a%3 == 0");
  EXPECT_EQ(env.simplify(sym::floordiv(a.expr(), I(3))), env.simplify(sym::clean_div(a.expr(), I(3))));
  // The divisibility rewrite of spec §2.13: u0 -> 3*u1 with a fresh, pending u1.
  EXPECT_EQ(env.replace(a.expr())->str(), "3*u1");
  EXPECT_EQ(env.divisible().count(sym::mod(a.expr(), I(3))), 1u);
  // Both the FloorDiv and the CleanDiv form are now known to be 1.
  EXPECT_EQ(env.evaluate_expr(fd), sym::true_expr());
  EXPECT_EQ(env.evaluate_expr(sym::eq(sym::clean_div(a.expr(), I(3)), I(1))), sym::true_expr());
}

TEST(PyTorchCases, T14_GuardOrTrueFalseOnUnbacked) {
  ShapeEnv env;
  SymInt x = env.create_unbacked_symint();
  std::string before = env.state_str();
  EXPECT_TRUE(env.guard_or_true(sym_eq(x, 1)));
  EXPECT_FALSE(env.guard_or_false(sym_eq(x, 1)));
  EXPECT_EQ(env.state_str(), before) << "fallbacks add no guard and no assert (INV-14)";
  EXPECT_FALSE(env.guard_or_true(sym_ne(x, x)));  // statically False
  EXPECT_TRUE(env.guard_or_false(sym_eq(x, x)));   // statically True
}

TEST(PyTorchCases, T20_HasFreeSymbols) {
  EXPECT_FALSE(sym::has_free_symbols(sym::true_expr()));
  EXPECT_FALSE(sym::has_free_symbols(sym::max(I(1), I(10))));
  EXPECT_FALSE(sym::has_free_symbols(I(1)));
  EXPECT_FALSE(sym::has_free_symbols(sym::real(1.1)));
  ExprRef a = U(0), b = U(1);
  EXPECT_TRUE(sym::has_free_symbols(a));
  EXPECT_TRUE(sym::has_free_symbols(sym::mul(a, I(2))));
  EXPECT_TRUE(sym::has_free_symbols(sym::add(a, b)));
}

}  // namespace
}  // namespace sf
