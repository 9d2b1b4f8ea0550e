// The minimal reference pseudo-programs of spec §11 (items 1–12), replayed at the ShapeEnv level:
// bindings and keypaths, ranges, replacements, deferred-assert buckets and the pending list.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using namespace sf::testing;

// The bucket of deferred asserts under `key` (a null key is the None bucket), as strings.
std::vector<std::string> bucket(const ShapeEnv& env, const ExprRef& key) {
  std::vector<std::string> out;
  auto it = env.deferred_runtime_asserts().find(key);
  if (it == env.deferred_runtime_asserts().end()) return out;
  for (const RuntimeAssert& ra : it->second) out.push_back(ra.expr->str());
  return out;
}

// Items 1, 3, 4, 5: one fresh symbol exposed by a node's value in different ways.
struct SingleBindingCase {
  const char* name;
  std::function<Value(ShapeEnv&)> program;  // allocates the symbol and returns the node's value
  const char* bindings;                     // bindings_str of the result
  ExprRef sym;
  const char* range;
};

TEST(ReferencePrograms, SingleBindings) {
  const SingleBindingCase cases[] = {
      {"1 int item", [](ShapeEnv& env) { return Value(env.create_unbacked_symint()); }, "{u0: ()}",
       U(0), "[-int_oo, int_oo]"},
      {"3 bool item", [](ShapeEnv& env) { return Value(env.create_unbacked_symbool()); },
       "{u0: int()}", U(0), "[0, 1]"},
      {"4 float item", [](ShapeEnv& env) { return Value(env.create_unbacked_symfloat()); },
       "{zuf0: ()}", sym::symbol(sym::SymKind::kUnbackedFloat, 0), "[-oo, oo]"},
      {"5 empty(10*u)", [](ShapeEnv& env) { return tensor({env.create_unbacked_symint() * 10}); },
       "{u0: size(0) // 10}", U(0), "[-int_oo, int_oo]"},
  };
  for (const SingleBindingCase& c : cases) {
    SCOPED_TRACE(c.name);
    ShapeEnv env;
    Value v = c.program(env);
    ASSERT_EQ(env.pending_fresh_unbacked_symbols().size(), 1u);
    std::optional<Bindings> b = env.compute_unbacked_bindings(v);
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(bindings_str(*b), c.bindings);
    ASSERT_EQ(b->count(c.sym), 1u);
    EXPECT_TRUE(keypath_well_formed(b->at(c.sym)));
    EXPECT_TRUE(env.pending_fresh_unbacked_symbols().empty()) << "INV-1";
    EXPECT_EQ(env.var_range(c.sym).str(), c.range);
    EXPECT_TRUE(env.deferred_runtime_asserts().empty()) << "no asserts from a binding alone";
    EXPECT_TRUE(env.replacements().empty());
  }
}

TEST(ReferencePrograms, Item3_BoolItemIsEqOfIntSymbol) {
  ShapeEnv env;
  SymBool b = env.create_unbacked_symbool();
  EXPECT_EQ(b.str(), "Eq(u0, 1)");
  EXPECT_EQ(env.unbacked_symint_counter(), 1) << "a SymBool consumes the int counter";
  Bindings bs = *env.compute_unbacked_bindings(Value(b));
  ASSERT_EQ(bs.at(U(0)).size(), 1u);
  EXPECT_EQ(bs.at(U(0))[0].kind, KeyEntry::Kind::kConvertInt);
}

TEST(ReferencePrograms, Item2_NonzeroSymbolIsSizeLikeInZeroToN) {
  for (int64_t n : {5, 128}) {
    SCOPED_TRACE(n);
    ShapeEnv env;
    SymInt u = env.create_unbacked_symint();
    env.constrain_range_for_size(u.expr(), 0, n);  // as the nonzero fake impl does
    Bindings b = *env.compute_unbacked_bindings(tensor({u, 1}));
    EXPECT_EQ(bindings_str(b), "{u0: size(0)}");
    EXPECT_EQ(env.var_range(U(0)).str(), "[0, " + std::to_string(n) + "]");
    EXPECT_TRUE(env.is_size_like(U(0)));
    EXPECT_TRUE(env.pending_fresh_unbacked_symbols().empty());
  }
}

TEST(ReferencePrograms, Item6_TolistBindsEachElementAtItsOwnNode) {
  ShapeEnv env;
  SymInt a = env.create_unbacked_symint();
  EXPECT_EQ(bindings_str(*env.compute_unbacked_bindings(Value(a))), "{u0: ()}");
  SymInt b = env.create_unbacked_symint();
  EXPECT_EQ(bindings_str(*env.compute_unbacked_bindings(Value(b))), "{u1: ()}");
  EXPECT_TRUE(env.pending_fresh_unbacked_symbols().empty());
}

TEST(ReferencePrograms, Item7_CheckEqConstantReplacesAndAsserts) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  env.compute_unbacked_bindings(Value(u0));
  env.check(sym_eq(u0, 3), "u0 == 3");
  ASSERT_EQ(env.replacements().count(U(0)), 1u);
  EXPECT_EQ(env.replacements().at(U(0)), I(3));
  EXPECT_EQ(bucket(env, U(0)), std::vector<std::string>{"Eq(u0, 3)"});
  EXPECT_EQ(env.num_deferred_runtime_asserts(), 1);
  EXPECT_EQ(env.var_range(U(0)).str(), "[3, 3]");
}

TEST(ReferencePrograms, Item8_SumAssertBucketedUnderNewestSymbol) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  env.compute_unbacked_bindings(Value(u0));
  SymInt u1 = env.create_unbacked_symint();
  env.compute_unbacked_bindings(Value(u1));
  EXPECT_TRUE(env.expect_true(sym_eq(u0 + u1, 10), "sum"));
  EXPECT_EQ(bucket(env, U(1)), std::vector<std::string>{"Eq(u0 + u1, 10)"});
  EXPECT_TRUE(bucket(env, U(0)).empty());
  EXPECT_TRUE(env.replacements().empty()) << "no time travel: u1 = 10 - u0 is not allowed";
}

TEST(ReferencePrograms, Item9_BranchOnUnbackedRaises) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  env.compute_unbacked_bindings(Value(u0));
  std::string before = env.state_str();
  EXPECT_THROW(env.guard_bool(sym_gt(u0, 2)), GuardOnDataDependentSymNode);
  EXPECT_EQ(env.state_str(), before) << "INV-15";
}

TEST(ReferencePrograms, Item10_GuardOrFalseIsPure) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  env.compute_unbacked_bindings(Value(u0));
  std::string before = env.state_str();
  EXPECT_FALSE(env.guard_or_false(sym_eq(u0, 1)));
  EXPECT_EQ(env.state_str(), before) << "INV-14";
  EXPECT_TRUE(env.guards().empty());
  EXPECT_TRUE(env.deferred_runtime_asserts().empty());
}

TEST(ReferencePrograms, Item11_CheckGreaterRefinesRange) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  env.compute_unbacked_bindings(Value(u0));
  env.check(sym_gt(u0, 4), "u0 > 4");
  EXPECT_EQ(env.var_range(U(0)).str(), "[5, int_oo]");
  EXPECT_EQ(bucket(env, U(0)), std::vector<std::string>{"u0 >= 5"});
  std::string before = env.state_str();
  EXPECT_TRUE(env.statically_known_true(sym_ne(u0, 4)));
  EXPECT_TRUE(env.statically_known_true(sym_ge(u0, 5)));
  EXPECT_FALSE(env.statically_known_true(sym_ge(u0, 6)));
  EXPECT_TRUE(env.statically_known_false(sym_eq(u0, 0)));
  EXPECT_EQ(env.state_str(), before) << "statically_known_* never mutate (INV-13)";
}

// Item 12: Mod(u0, 4) == 0 on a size-like u0 rewrites u0 -> 4*u1 with a fresh, pending u1.
struct DivisibilityCase {
  std::optional<int64_t> max;
  const char* u1_range;
};

TEST(ReferencePrograms, Item12_DivisibilityRewriteOnSizeLikeSymbol) {
  for (const DivisibilityCase& c :
       {DivisibilityCase{std::nullopt, "[0, int_oo]"}, DivisibilityCase{100, "[0, 25]"}}) {
    SCOPED_TRACE(c.u1_range);
    ShapeEnv env;
    SymInt u0 = env.create_unbacked_symint();
    env.compute_unbacked_bindings(Value(u0));
    env.constrain_range_for_size(u0.expr(), std::nullopt, c.max);
    env.check(sym_eq(mod(u0, 4), 0), "u0 % 4 == 0");
    EXPECT_EQ(env.divisible().count(sym::mod(U(0), I(4))), 1u);
    EXPECT_EQ(env.unbacked_symint_counter(), 2) << "a fresh u1 was allocated";
    EXPECT_EQ(env.pending_fresh_unbacked_symbols(), std::vector<ExprRef>{U(1)})
        << "u1 waits for a node that exposes it";
    EXPECT_EQ(env.replace(U(0))->str(), "4*u1") << "spec §11 item 12: u0 -> 4*u1";
    EXPECT_EQ(env.var_range(U(1)).str(), c.u1_range);
    EXPECT_TRUE(env.is_size_like(U(1))) << "size-likeness propagates to the fresh factor";
    EXPECT_EQ(bucket(env, U(0)), std::vector<std::string>{"Eq(PythonMod(u0, 4), 0)"});
    // A later node exposing 4*u1 binds u1 through DivideByKey(4).
    Bindings b = *env.compute_unbacked_bindings(tensor({SymInt(sym::mul(I(4), U(1)))}));
    EXPECT_EQ(bindings_str(b), "{u1: size(0) // 4}");
  }
}

TEST(ReferencePrograms, Item12_DivisibilityRewriteOnPlainSymbol) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  env.compute_unbacked_bindings(Value(u0));
  env.check(sym_eq(mod(u0, 4), 0), "u0 % 4 == 0");
  EXPECT_EQ(env.replace(U(0))->str(), "4*u1");
  EXPECT_EQ(env.pending_fresh_unbacked_symbols(), std::vector<ExprRef>{U(1)});
  EXPECT_FALSE(env.is_size_like(U(1)));
  EXPECT_TRUE(env.statically_known_true(sym_eq(mod(u0, 2), 0)));
}

}  // namespace
}  // namespace sf
