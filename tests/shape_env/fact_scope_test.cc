// Fact scopes (spec §6.6): what a branch's check teaches the ShapeEnv is gone when its scope
// closes (axioms, replacements, deferred asserts, narrowed ranges of older symbols), while
// guards, renamings and the facts of symbols made inside stay; scopes nest; replay agrees.
#include <gtest/gtest.h>

#include "engine/shape_env/shape_env.h"
#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using namespace sf::testing;

// The state without its cache version (which moves on with every change, undone or not).
std::string facts_of(const ShapeEnv& env) {
  std::string s = env.state_str();
  return s.substr(0, s.find(" version:"));
}

struct Env {
  ShapeEnv env;
  SymInt n = env.create_symbol(10, "x.size()[0]", DimDynamic::kDynamic);
  SymInt u0 = env.create_unbacked_symint();
  SymInt u1 = env.create_unbacked_symint();
};

TEST(FactScope, ACheckInsideIsForgottenOutside) {
  Env e;
  std::string before = facts_of(e.env);
  {
    auto scope = e.env.fact_scope();
    EXPECT_EQ(e.env.fact_scope_depth(), 1u);
    e.env.check(sym_le(e.u0, e.u1), "ordered");
    e.env.check(sym_ge(e.u0, 3), "at least 3");
    e.env.check(sym_eq(e.u1, e.n), "u1 is n");
    EXPECT_TRUE(e.env.statically_known_true(sym_le(e.u0, e.u1)));
    EXPECT_EQ(e.env.var_range(e.u0.expr()).lo(), sym::ExtInt(3));
    EXPECT_EQ(e.env.replace(e.u1.expr()), e.n.expr());
  }
  EXPECT_EQ(e.env.fact_scope_depth(), 0u);
  EXPECT_FALSE(e.env.statically_known_true(sym_le(e.u0, e.u1)));
  EXPECT_FALSE(e.env.statically_known_true(sym_ge(e.u0, 3)));
  EXPECT_EQ(e.env.replace(e.u1.expr()), e.u1.expr());
  EXPECT_TRUE(e.env.axioms().empty());
  EXPECT_EQ(e.env.num_deferred_runtime_asserts(), 0);
  EXPECT_EQ(facts_of(e.env), before);
}

TEST(FactScope, GuardsRenamingsAndInnerSymbolsStay) {
  Env e;
  ExprRef inner;
  {
    auto scope = e.env.fact_scope();
    EXPECT_TRUE(e.env.guard_bool(sym_gt(e.n, 5), "if"));  // a condition on the inputs
    inner = e.env.create_unbacked_symint().expr();
    e.env.constrain_range_for_size(inner, 0, 7);
    ExprRef fresh = e.env.create_unbacked_symint().expr();
    e.env.rename_unbacked_to(fresh, inner);
    EXPECT_EQ(e.env.replace(fresh), inner);
    // A relation between the inner symbol and an older one is a fact of the branch.
    e.env.check(SymBool(sym::le(inner, e.u0.expr())), "inner below u0");
  }
  EXPECT_EQ(e.env.guards().size(), 1u);
  EXPECT_EQ(e.env.var_range(inner), ValueRange::ints(0, 7));
  EXPECT_TRUE(e.env.is_size_like(inner));
  EXPECT_EQ(e.env.unbacked_renamings().size(), 1u);
  EXPECT_EQ(e.env.replace(e.env.unbacked_renamings().begin()->first), inner);
  EXPECT_EQ(e.env.var_range(e.u0.expr()), ValueRange::unknown_int()) << "u0 >= 0 leaked";
  EXPECT_TRUE(e.env.axioms().empty());
}

TEST(FactScope, NestedScopesForgetInnerFactsAtEachClose) {
  Env e;
  auto outer = std::make_unique<ShapeEnv::FactScope>(&e.env);
  e.env.check(sym_le(e.u0, 5), "outer");
  ExprRef made_in_outer = e.env.create_unbacked_symint().expr();
  {
    auto inner = e.env.fact_scope();
    e.env.check(sym_le(e.u0, 2), "inner");
    e.env.check(SymBool(sym::le(made_in_outer, sym::integer(4))), "inner on outer's symbol");
    EXPECT_EQ(e.env.var_range(e.u0.expr()).hi(), sym::ExtInt(2));
  }
  EXPECT_EQ(e.env.var_range(e.u0.expr()).hi(), sym::ExtInt(5)) << "the outer scope's fact stays";
  EXPECT_EQ(e.env.var_range(made_in_outer), ValueRange::unknown_int())
      << "a symbol of the enclosing scope is not the inner scope's to narrow";
  outer.reset();
  EXPECT_EQ(e.env.var_range(e.u0.expr()), ValueRange::unknown_int());
}

TEST(FactScope, ReplayGivesTheSameState) {
  Env e;
  {
    auto scope = e.env.fact_scope();
    e.env.check(sym_le(e.u0, e.u1), "ordered");
  }
  e.env.check(sym_ge(e.u1, 1), "top");
  ShapeEnv fresh;
  ReplayResult r = replay_events(e.env.events(), fresh);
  EXPECT_TRUE(r.same_outcomes) << r.first_mismatch;
  EXPECT_EQ(fresh.state_str(), e.env.state_str());
}

}  // namespace
}  // namespace sf
