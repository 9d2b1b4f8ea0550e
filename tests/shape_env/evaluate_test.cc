// Evaluation and guards (spec §1.5–§1.6, §2.16–§2.20): static purity, size-oblivious answers,
// backed guards, create_symbol, the stateful cache, assert buckets, axioms, freezing, errors.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using namespace sf::testing;

ExprRef ZUF(int64_t i) { return sym::symbol(sym::SymKind::kUnbackedFloat, i); }

TEST(Evaluate, StaticQueriesArePure) {
  ShapeEnv env;
  SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  SymInt u = env.create_unbacked_symint();
  env.constrain_range_for_size(u.expr(), 0, 10);
  const ExprRef queries[] = {sym::eq(u.expr(), I(0)),           sym::le(u.expr(), I(10)),
                             sym::lt(s.expr(), u.expr()),       sym::eq(s.expr(), I(5)),
                             sym::floordiv(u.expr(), s.expr()), sym::add(u.expr(), I(1))};
  std::string before = env.state_str();
  size_t events = env.events().size();
  for (const ExprRef& q : queries) {
    for (bool so : {false, true}) {
      for (bool unbacked_only : {false, true}) {
        StaticOptions opts;
        opts.size_oblivious = so;
        opts.unbacked_only = unbacked_only;
        env.maybe_evaluate_static(q, opts);
      }
    }
    env.bound(q);
    env.simplify(q);
    env.maybe_size_hint(q);
  }
  EXPECT_EQ(env.state_str(), before) << "INV-13";
  EXPECT_EQ(env.events().size(), events) << "static queries are not events";
  EXPECT_EQ(*env.maybe_evaluate_static(sym::le(u.expr(), I(10))), sym::true_expr());
  EXPECT_FALSE(env.maybe_evaluate_static(sym::eq(u.expr(), I(3))).has_value());
}

// Size-oblivious answers for a size-like u in [0, oo] (§2.16: assume u >= 2).
struct ObliviousCase {
  const char* name;
  SymBool (*q)(const SymInt& u);
  bool answer;
};

TEST(Evaluate, SizeObliviousOnSizeLikeSymbol) {
  const ObliviousCase cases[] = {
      {"u == 0", [](const SymInt& u) { return sym_eq(u, 0); }, false},
      {"u == 1", [](const SymInt& u) { return sym_eq(u, 1); }, false},
      {"u != 1", [](const SymInt& u) { return sym_ne(u, 1); }, true},
      {"u >= 2", [](const SymInt& u) { return sym_ge(u, 2); }, true},
      {"u < 2", [](const SymInt& u) { return sym_lt(u, 2); }, false},
      {"Max(1, u) == u", [](const SymInt& u) { return sym_eq(sym_max(u, 1), u); }, true},
  };
  for (const ObliviousCase& c : cases) {
    SCOPED_TRACE(c.name);
    ShapeEnv env;
    SymInt u = env.create_unbacked_symint();
    env.check_is_size(u);
    StaticOptions so;
    so.size_oblivious = true;
    EXPECT_FALSE(env.maybe_evaluate_static(c.q(u).expr()).has_value()) << "undecided normally";
    std::optional<ExprRef> r = env.maybe_evaluate_static(c.q(u).expr(), so);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(*r, sym::boolean(c.answer));
    EXPECT_EQ(env.guard_size_oblivious(c.q(u)), c.answer);
    EXPECT_THROW(env.guard_bool(c.q(u)), GuardOnDataDependentSymNode);
  }
}

TEST(Evaluate, SizeObliviousNeedsSizeLikeness) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  env.constrain_symbol_range(u.expr(), 0, 100);  // same range, but not size-like
  EXPECT_THROW(env.guard_size_oblivious(sym_eq(u, 0)), GuardOnDataDependentSymNode);
}

TEST(Evaluate, BackedGuardsAreRecorded) {
  ShapeEnv env;
  SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  EXPECT_TRUE(env.guard_bool(sym_gt(s, 3)));
  EXPECT_EQ(env.var_range(s.expr()).str(), "[4, int_oo]") << "guards refine ranges too";
  EXPECT_FALSE(env.guard_bool(sym_lt(s, 5)));
  ASSERT_EQ(env.guards().size(), 2u);
  EXPECT_EQ(env.guards()[0].expr->str(), s.str() + " >= 4");
  EXPECT_EQ(env.guards()[1].expr->str(), s.str() + " >= 5");
  EXPECT_FALSE(env.guard_bool(sym_lt(s, 3))) << "statically false now";
  EXPECT_EQ(env.guards().size(), 2u) << "no guard for a statically known answer";
  for (const ShapeGuard& g : env.guards()) {
    EXPECT_FALSE(sym::has_free_unbacked_symbols(g.expr)) << "INV-10";
    EXPECT_FALSE(g.size_oblivious);
  }
  EXPECT_TRUE(env.deferred_runtime_asserts().empty());
  // guard_int specializes the symbol to its hint.
  EXPECT_EQ(env.guard_int(s * 2), 10);
  EXPECT_EQ(env.replace(s.expr()), I(5));
  EXPECT_EQ(env.guards().back().expr->str(), "Eq(" + s.str() + ", 5)");
}

TEST(Evaluate, MixedBackedUnbackedGuardRaises) {
  ShapeEnv env;
  SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  SymInt u = env.create_unbacked_symint();
  EXPECT_THROW(env.guard_bool(sym_gt(s + u, 3)), GuardOnDataDependentSymNode);
  EXPECT_TRUE(env.guards().empty());
}

TEST(Evaluate, CreateSymbolSpecializationAndDuckSizing) {
  ShapeEnv env;
  EXPECT_EQ(env.create_symbol(0, "a", DimDynamic::kDuck).maybe_as_int(), 0);
  EXPECT_EQ(env.create_symbol(1, "b", DimDynamic::kDuck).maybe_as_int(), 1);
  EXPECT_EQ(env.create_symbol(7, "c", DimDynamic::kStatic).maybe_as_int(), 7);
  SymInt d = env.create_symbol(5, "d", DimDynamic::kDuck);
  SymInt e = env.create_symbol(5, "e", DimDynamic::kDuck);
  EXPECT_TRUE(d.same_as(e)) << "duck sizing: equal hints share a symbol";
  EXPECT_EQ(env.var_to_sources().at(d.expr()).size(), 2u);
  EXPECT_EQ(env.var_range(d.expr()).str(), "[2, int_oo]");
  SymInt f = env.create_symbol(5, "f", DimDynamic::kDynamic);
  EXPECT_FALSE(f.same_as(d)) << "DYNAMIC dims are not ducked";
  SymInt n = env.create_symbol(1, "n", DimDynamic::kDynamic, /*positive=*/false);
  ASSERT_FALSE(n.is_constant()) << "plain ints are not 0/1 specialized";
  EXPECT_EQ(env.var_range(n.expr()).str(), "[-int_oo, int_oo]");
  EXPECT_EQ(env.var_to_val().at(n.expr()), 1);
  EXPECT_TRUE(env.guards().empty());
}

TEST(Evaluate, CreateSymbolWithoutSpecializationOrDucking) {
  ShapeEnvSettings st;
  st.specialize_zero_one = false;
  st.duck_shape = false;
  ShapeEnv env(st);
  SymInt z = env.create_symbol(0, "a", DimDynamic::kDuck);
  ASSERT_FALSE(z.is_constant());
  EXPECT_EQ(env.var_range(z.expr()).str(), "[0, int_oo]");
  SymInt d = env.create_symbol(5, "d", DimDynamic::kDuck);
  SymInt e = env.create_symbol(5, "e", DimDynamic::kDuck);
  EXPECT_FALSE(d.same_as(e));
}

TEST(Evaluate, StatefulSourceCache) {
  StatefulSymbolicContext ctx;
  ShapeEnv env1, env2;
  SymInt a = env1.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic, true, &ctx);
  size_t events = env1.events().size();
  SymInt b = env1.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic, true, &ctx);
  EXPECT_TRUE(a.same_as(b));
  EXPECT_EQ(env1.events().size(), events) << "a cache hit changes nothing";
  EXPECT_EQ(env1.var_to_sources().at(a.expr()).size(), 1u);
  SymInt c = env2.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic, true, &ctx);
  EXPECT_TRUE(env2.is_backed(c.expr())) << "a different env allocates its own symbol";
  EXPECT_EQ(env2.events().size(), 1u);
  EXPECT_EQ(ctx.cache.size(), 2u);
  // Unbacked input symbols are cached too (PR #129869): no second u allocated.
  SymInt u = env1.create_symbol(3, "y.size()[0]", DimDynamic::kSizeLikeUnbacked, true, &ctx);
  SymInt v = env1.create_symbol(3, "y.size()[0]", DimDynamic::kSizeLikeUnbacked, true, &ctx);
  EXPECT_TRUE(u.same_as(v));
  EXPECT_EQ(env1.unbacked_symint_counter(), 1);
  EXPECT_EQ(env1.pending_fresh_unbacked_symbols(), std::vector<ExprRef>{U(0)});
  EXPECT_TRUE(env1.is_size_like(U(0)));
  EXPECT_EQ(env1.unbacked_inputs().count(U(0)), 1u);
}

// §2.18 / INV-11: the bucket is the unbacked int symbol with the largest index, else None.
TEST(Evaluate, AssertBucketing) {
  ShapeEnv env;
  SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  for (int i = 0; i < 11; ++i) env.create_unbacked_symint();
  env.create_unbacked_symfloat();  // zuf0
  ExprRef u2 = U(2), u10 = U(10);
  struct Case {
    ExprRef expr;
    ExprRef key;
  };
  const Case cases[] = {
      {sym::le(u2, u10), u10},  // numeric, not lexicographic: u10 is newer than u2
      {sym::le(sym::add(u10, U(3)), sym::mul(I(4), u2)), u10},
      {sym::lt(s.expr(), U(1)), U(1)},
      {sym::lt(sym::real(0.5), ZUF(0)), ExprRef()},  // float-only: None bucket (known gap)
      {sym::lt(ZUF(0), sym::to_float(U(4))), U(4)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expr->str());
    EXPECT_EQ(ShapeEnv::assert_bucket_key(c.expr), c.key);
    EXPECT_TRUE(env.guard_or_defer_runtime_assert(c.expr, "bucket"));
    const auto& bucket = env.deferred_runtime_asserts().at(c.key);
    ASSERT_FALSE(bucket.empty());
    EXPECT_EQ(bucket.back().expr, c.expr);
    EXPECT_EQ(bucket.back().msg, "bucket");
  }
  EXPECT_EQ(env.num_deferred_runtime_asserts(), 5);
  EXPECT_TRUE(env.guards().empty()) << "asserts over unbacked symbols are not guards";
}

TEST(Evaluate, StoredAssertsAreNotReplacementSimplified) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  env.check(sym_eq(u0, 3), "u0 == 3");
  env.check(sym_ge(u0 + u1, 5), "u0 + u1 >= 5");
  const auto& b = env.deferred_runtime_asserts().at(U(1));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].expr->str(), "u0 + u1 >= 5") << "INV-11: not u1 >= 2";
  EXPECT_EQ(env.var_range(U(1)).str(), "[2, int_oo]");
}

TEST(Evaluate, AxiomsDecideLaterQuestions) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  SymInt u2 = env.create_unbacked_symint(), u3 = env.create_unbacked_symint();
  env.check(sym_lt(u0, u1), "u0 < u1");
  EXPECT_TRUE(env.statically_known_true(sym_ne(u0, u1)));
  EXPECT_TRUE(env.statically_known_true(sym_le(u0, u1)));
  EXPECT_TRUE(env.statically_known_false(sym_eq(u0, u1)));
  EXPECT_TRUE(env.statically_known_false(sym_ge(u0, u1)));
  env.check(sym_eq(u2, u3), "u2 == u3");  // no replacement between data-dependent symbols
  EXPECT_TRUE(env.statically_known_true(sym_le(u2, u3)));
  EXPECT_TRUE(env.statically_known_true(sym_ge(u2, u3)));
  EXPECT_TRUE(env.statically_known_false(sym_ne(u2, u3)));
  EXPECT_EQ(env.axioms().at(sym::eq(U(2), U(3))), true);
  EXPECT_EQ(env.axioms().at(sym::ne(U(2), U(3))), false);
  EXPECT_FALSE(env.guard_bool(sym_ne(u2, u3))) << "decided by axioms, so no DDE";
}

// As upstream, the axioms are applied before any range reasoning: after a broadcast's
// Eq(u0, u1), checks that leave disjoint ranges contradict it, and re-running the broadcast must
// still find Eq(u0, u1) true (the runtime asserts reject such a program), not false by ranges.
TEST(Evaluate, AxiomsWinOverContradictingRanges) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  env.constrain_range_for_size(u0.expr(), 0, 8);
  env.constrain_range_for_size(u1.expr(), 0, 8);
  env.check(sym_eq(u0, u1), "broadcast");
  env.check(sym_ge(u0, 5), "a big");
  // The facts between symbols (Eq(u0, u1) with u0 >= 5) see that u1 <= 3 can never hold.
  EXPECT_THROW(env.check(sym_le(u1, 3), "b small"), UserError);
  // Ranges narrowed without a check (as a rename can) still leave the axiom standing.
  env.constrain_range_for_size(u1.expr(), 0, 3);
  EXPECT_EQ(env.var_range(U(0)).str(), "[5, 8]");
  EXPECT_EQ(env.var_range(U(1)).str(), "[0, 3]");
  EXPECT_TRUE(env.statically_known_true(sym_eq(u0, u1)));
  EXPECT_NO_THROW(env.check(sym_eq(u0, u1), "broadcast again"));
  // A fresh retrace symbol renamed to u1 asks the same question.
  SymInt u2 = env.create_unbacked_symint();
  env.rename_unbacked_to(u2.expr(), U(1));
  EXPECT_TRUE(env.statically_known_true(sym_eq(u0, u2)));
  // Without an axiom the ranges still decide.
  EXPECT_TRUE(env.statically_known_false(sym_eq(u0, 2)));
}

// A check that mentions an unbacked symbol is deferred even when ranges pin its hint (s <= u0
// with s = 0 and a size-like u0 "has a hint" of True): as upstream's expect_true, which guards
// only on conditions free of unbacked symbols. It used to guard, and the guard raised.
TEST(Evaluate, ExpectTrueDefersWhatMentionsAnUnbackedSymbol) {
  ShapeEnv env;
  SymInt s = env.create_symbol(0, "n", DimDynamic::kDynamic, /*positive=*/false);  // an int
  SymInt u0 = env.create_unbacked_symint();
  env.constrain_range_for_size(u0.expr());
  EXPECT_NO_THROW(env.check(sym_le(s, u0), "n <= size"));
  EXPECT_EQ(env.num_deferred_runtime_asserts(), 1);
  EXPECT_TRUE(env.guards().empty());
  // Free of unbacked symbols, a check with a hint is still a guard.
  EXPECT_NO_THROW(env.check(sym_le(s, 4), "n <= 4"));
  EXPECT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.num_deferred_runtime_asserts(), 1);
}

TEST(Evaluate, FrozenRuntimeAssertsAreIgnored) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  env.check(sym_ge(u0, 0), "u0 >= 0");
  env.freeze_runtime_asserts();
  EXPECT_TRUE(env.runtime_asserts_frozen());
  EXPECT_TRUE(env.expect_true(sym_le(u0, 100), "late"));
  EXPECT_EQ(env.num_deferred_runtime_asserts(), 1);
  EXPECT_EQ(env.num_ignored_frozen_asserts(), 1);
  EXPECT_EQ(env.deferred_runtime_asserts().at(U(0)).size(), 1u);
}

TEST(Evaluate, CheckFailureIsAUserErrorWithTheMessage) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  env.constrain_symbol_range(u0.expr(), 0, 3);
  const SymBool conds[] = {sym_gt(u0, 5), SymBool(false)};
  for (const SymBool& cond : conds) {
    SCOPED_TRACE(cond.str());
    try {
      env.check(cond, "my very own message");
      FAIL() << "expected a failed check";
    } catch (const UserError& e) {
      EXPECT_EQ(e.kind(), UserErrorKind::kCheckFailed);
      EXPECT_NE(std::string(e.what()).find("my very own message"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(env.deferred_runtime_asserts().empty());
}

TEST(Evaluate, DataDependentErrorsNameTheExpression) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  try {
    env.guard_bool(sym_gt(u0, 2));
    FAIL();
  } catch (const GuardOnDataDependentSymNode& e) {
    std::string m = e.what();
    EXPECT_EQ(e.kind(), UserErrorKind::kDataDependentGuard);
    EXPECT_NE(m.find("Could not guard on data-dependent expression"), std::string::npos) << m;
    EXPECT_NE(m.find("u0 >= 3"), std::string::npos) << m;
  }
  try {
    env.guard_int(u0 + 1);
    FAIL();
  } catch (const GuardOnDataDependentSymNode& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("Could not extract specialized integer"), std::string::npos) << m;
    EXPECT_NE(m.find("u0 + 1"), std::string::npos) << m;
  }
}

// The try_ calls do the same work as the throwing ones, record the same events and leave the
// same state; the user error comes back as a value instead (deferred or thrown inside alike).
TEST(Evaluate, TryCallsReturnTheErrorsTheThrowingCallsRaise) {
  ShapeEnv thrown_env, returned_env;
  std::vector<std::string> thrown, returned;
  auto run = [](ShapeEnv& env, std::vector<std::string>& log, bool use_try) {
    SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
    SymInt u = env.create_unbacked_symint();
    env.constrain_symbol_range(u.expr(), 0, 3);
    SymInt x = env.create_symbol(7, "y.size()[0]", DimDynamic::kDynamic);
    const SymBool guards[] = {sym_eq(u, 0), sym_gt(s, 2), sym_gt(floordiv(x, s - SymInt(5)), 0)};
    for (const SymBool& g : guards) {
      UserErrorInfo error{UserErrorKind::kParse, ""};
      std::optional<bool> r;
      if (use_try) {
        r = env.try_guard_bool(g, &error);
      } else {
        try {
          r = env.guard_bool(g);
        } catch (const UserError& e) {
          error = {e.kind(), e.what()};
        }
      }
      log.push_back(r ? (*r ? "true" : "false") : error.str());
    }
    const std::pair<SymBool, const char*> checks[] = {
        {sym_le(u, s), "u <= s"}, {sym_gt(u, 5), "u > 5"}, {sym_ge(s, 2), "s >= 2"}};
    for (const auto& [c, msg] : checks) {
      UserErrorInfo error{UserErrorKind::kParse, ""};
      bool ok = true;
      if (use_try) {
        ok = env.try_check(c, msg, &error);
      } else {
        try {
          env.check(c, msg);
        } catch (const UserError& e) {
          ok = false;
          error = {e.kind(), e.what()};
        }
      }
      log.push_back(ok ? "passed" : error.str());
    }
  };
  run(thrown_env, thrown, false);
  run(returned_env, returned, true);
  EXPECT_EQ(returned, thrown);
  EXPECT_EQ(returned_env.state_str(), thrown_env.state_str());
  ASSERT_EQ(returned_env.events().size(), thrown_env.events().size());
  for (size_t i = 0; i < thrown_env.events().size(); ++i) {
    EXPECT_EQ(returned_env.events()[i].str(), thrown_env.events()[i].str()) << "event " << i;
  }
  // What the sequence met: a DDE, a guard, a division by zero found on the hints (thrown inside
  // the engine, not deferred), a deferred assert, a failed check, a backed check.
  ASSERT_EQ(thrown.size(), 6u);
  EXPECT_EQ(thrown[0].rfind("data_dependent_guard: Could not guard", 0), 0u) << thrown[0];
  EXPECT_EQ(thrown[1], "true");
  EXPECT_EQ(thrown[2].rfind("zero_division: ", 0), 0u) << thrown[2];
  EXPECT_EQ(thrown[3], "passed");
  EXPECT_EQ(thrown[4].rfind("check_failed: check failed: u > 5", 0), 0u) << thrown[4];
  EXPECT_EQ(thrown[5], "passed");
  // Without a place for the error, the outcome alone comes back.
  EXPECT_FALSE(returned_env.try_check(SymBool(false), "never"));
}

// A ShapeEnv made without its event log does the same work; reading the log it did not keep
// aborts (an oracle would otherwise judge an empty log and pass).
TEST(Evaluate, WithoutTheEventLogTheStateIsTheSame) {
  ShapeEnvSettings off;
  off.record_events = false;
  ShapeEnv with_log, without_log(off);
  for (ShapeEnv* env : {&with_log, &without_log}) {
    SymInt s = env->create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
    SymInt u = env->create_unbacked_symint();
    env->check(sym_le(u, s), "u <= s");
    EXPECT_TRUE(env->guard_bool(sym_gt(s, 2)));
    EXPECT_FALSE(env->try_guard_bool(sym_eq(u, 1)).has_value());
  }
  EXPECT_EQ(without_log.state_str(), with_log.state_str());
  EXPECT_EQ(with_log.events().size(), 5u);
  EXPECT_DEATH(without_log.events(), "record_events = false");
}

}  // namespace
}  // namespace sf
