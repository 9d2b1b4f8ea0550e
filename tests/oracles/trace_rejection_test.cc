// The wrong-rejection rules (oracles/trace_rejection.h): what the recorded facts decide, which
// rejections a rule explains, and the oracle firing on a guard a recorded fact decides.
#include "oracles/trace_rejection.h"

#include <gtest/gtest.h>

#include "engine/sym/make.h"

namespace sf::oracles {
namespace {

using sym::ExprRef;

TEST(DecidedByFacts, RangesOfAUnitSumDecideAndNothingElseDoes) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint().expr(), u1 = env.create_unbacked_symint().expr();
  env.constrain_symbol_range(u0, 0, 5);
  env.constrain_symbol_range(u1, 2, 3);
  std::string which;
  EXPECT_EQ(decided_by_facts(sym::lt(u0, sym::integer(6)), env, &which), true);
  EXPECT_NE(which.find("u0 in [0, 5]"), std::string::npos) << which;
  EXPECT_EQ(decided_by_facts(sym::le(sym::add(u0, u1), sym::integer(8)), env), true);
  EXPECT_EQ(decided_by_facts(sym::lt(sym::sub(u0, u1), sym::integer(-3)), env), false);
  EXPECT_EQ(decided_by_facts(sym::eq(u0, sym::integer(7)), env), false);
  // Not decided by interval arithmetic: within the range, a coefficient other than ±1.
  EXPECT_EQ(decided_by_facts(sym::lt(u0, sym::integer(3)), env), std::nullopt);
  ExprRef two_u0 = sym::mul(sym::integer(2), u0);  // in [0, 10]: + u1 <= 13, but not a unit sum
  EXPECT_EQ(decided_by_facts(sym::le(sym::add(two_u0, u1), sym::integer(13)), env), std::nullopt);
}

TEST(DecidedByFacts, ARecordedCheckDecidesItsConditionAndItsNegation) {
  ShapeEnv env;
  SymInt s = env.create_symbol(5, "x.size(0)", DimDynamic::kDynamic);
  SymInt u = env.create_unbacked_symint();
  ExprRef cond = sym::le(u.expr(), s.expr());
  EXPECT_EQ(decided_by_facts(cond, env), std::nullopt);
  env.check(sym_le(u, s), "u <= s");
  std::string which;
  EXPECT_EQ(decided_by_facts(cond, env, &which), true);
  EXPECT_NE(which.find("recorded fact"), std::string::npos) << which;
  EXPECT_EQ(decided_by_facts(sym::not_(cond), env), false);
}

TEST(PinnedByFacts, AReplacementOrAOnePointRangePinsAnInt) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint().expr();
  ExprRef u1 = env.create_unbacked_symint().expr();
  env.constrain_symbol_range(u0, 0, 5);
  env.constrain_symbol_range(u1, 3, 3);
  std::string which;
  EXPECT_EQ(pinned_by_facts(sym::add(u1, sym::integer(2)), env, &which), 5);
  EXPECT_NE(which.find("ranges"), std::string::npos) << which;
  EXPECT_EQ(pinned_by_facts(sym::add(u0, sym::integer(2)), env), std::nullopt);
  EXPECT_EQ(pinned_by_facts(sym::mul(sym::integer(2), u1), env), std::nullopt);  // not a unit sum
}

// The broken state: the trace specialized (guard_int) an int the ranges pin, and raised a
// data-dependent guard on it; a correct ShapeEnv decides it statically.
TEST(TraceRejection, FiresOnADataDependentIntGuardTheRangesPin) {
  graph::Trace t;
  t.env = std::make_unique<ShapeEnv>();
  SymInt u = t.env->create_unbacked_symint();
  EXPECT_THROW(t.env->guard_int(u + SymInt(2)), UserError);
  UserErrorInfo dde{UserErrorKind::kDataDependentGuard, "Could not extract specialized integer"};
  eager::EagerTrail trail;
  EXPECT_EQ(judge_trace_rejection(dde, trail, &t).kind, RejectionJudgement::Kind::kNotJudged);
  t.env->constrain_symbol_range(u.expr(), 4, 4);
  RejectionJudgement j = judge_trace_rejection(dde, trail, &t);
  EXPECT_EQ(j.kind, RejectionJudgement::Kind::kWrong);
  EXPECT_NE(j.why.find("pin it to 6"), std::string::npos) << j.why;
}

// The broken state: the trace raised a data-dependent guard on u0 <= s0 while a check of it is
// recorded (here recorded after the guard, so the real ShapeEnv could not decide it first).
TEST(TraceRejection, FiresOnADataDependentGuardARecordedFactDecides) {
  graph::Trace t;
  t.env = std::make_unique<ShapeEnv>();
  SymInt s = t.env->create_symbol(5, "x.size(0)", DimDynamic::kDynamic);
  SymInt u = t.env->create_unbacked_symint();
  ExprRef cond = sym::le(u.expr(), s.expr());
  EXPECT_THROW(t.env->evaluate_expr(cond), UserError);
  UserErrorInfo dde{UserErrorKind::kDataDependentGuard, "Could not guard on ..."};
  eager::EagerTrail trail;
  EXPECT_EQ(judge_trace_rejection(dde, trail, &t).kind, RejectionJudgement::Kind::kNotJudged);
  t.env->check(sym_le(u, s), "checked afterwards");
  RejectionJudgement j = judge_trace_rejection(dde, trail, &t);
  EXPECT_EQ(j.kind, RejectionJudgement::Kind::kWrong);
  EXPECT_NE(j.why.find("recorded fact"), std::string::npos) << j.why;
}

TEST(TraceRejection, AShapeErrorIsWrongUnlessARuleExplainsIt) {
  using K = RejectionJudgement::Kind;
  UserErrorInfo shape{UserErrorKind::kShape, "line 4: add: cannot broadcast"};
  eager::EagerTrail trail;
  trail.data_dependent.push_back({3, "nonzero", 4});
  graph::Trace t;
  t.open_statements.push_back({"", program::Stmt::Kind::kAssign, 4});
  EXPECT_EQ(judge_trace_rejection(shape, trail, &t).kind, K::kWrong);
  EXPECT_EQ(judge_trace_rejection(shape, trail, nullptr).kind, K::kWrong);

  // The size-oblivious rule names the size eager saw as 0 or 1.
  eager::EagerTrail one = trail;
  one.data_dependent.push_back({3, "item", 1});
  RejectionJudgement j = judge_trace_rejection(shape, one, &t);
  EXPECT_EQ(j.kind, K::kExplained);
  EXPECT_NE(j.why.find("size-oblivious: item at line 3 was 1"), std::string::npos) << j.why;

  // A branch eager never ran; a higher-order op's own statement.
  graph::Trace in_branch;
  in_branch.open_statements = {{"", program::Stmt::Kind::kCond, 5},
                               {"then_fn", program::Stmt::Kind::kAssign, 2}};
  EXPECT_EQ(judge_trace_rejection(shape, trail, &in_branch).kind, K::kExplained);
  eager::EagerTrail ran = trail;
  ran.functions_run.push_back("then_fn");
  EXPECT_EQ(judge_trace_rejection(shape, ran, &in_branch).kind, K::kWrong);
  graph::Trace at_hop;
  at_hop.open_statements = {{"", program::Stmt::Kind::kCond, 5}};
  EXPECT_EQ(judge_trace_rejection(shape, trail, &at_hop).kind, K::kExplained);

  // A limit of the tracer is not judged.
  UserErrorInfo limit{UserErrorKind::kTooComplex, "line 4: too deep"};
  EXPECT_EQ(judge_trace_rejection(limit, trail, &t).kind, K::kNotJudged);
}

}  // namespace
}  // namespace sf::oracles
