// The SMT layer: Python division semantics, the closed result set, cores, the cache, cvc5
// agreement, and a property comparing the Z3 encoding with engine/sym's evaluator.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <thread>

#include "engine/sym/eval.h"
#include "engine/sym/make.h"
#include "fuzz/gen/sym_gen.h"
#include "oracles/smt/deadline.h"
#include "oracles/smt/solver.h"

namespace sf::smt {
namespace {

using namespace sf::sym;  // NOLINT: expression factories

ExprRef u(int i) { return symbol(SymKind::kUnbackedInt, i); }

TEST(Smt, PythonFloorDivisionAndModulo) {
  Session s;
  for (auto [a, b, q, r] : std::vector<std::array<int64_t, 4>>{
           {-7, 2, -4, 1}, {7, -2, -4, -1}, {-7, -2, 3, -1}, {7, 2, 3, 1}}) {
    s.push();
    s.assume(eq(u(0), integer(a)), "a");
    s.assume(eq(u(1), integer(b)), "b");
    EXPECT_EQ(s.entails(eq(floordiv(u(0), u(1)), integer(q))).status, Status::kUnsat) << a << b;
    EXPECT_EQ(s.entails(eq(mod(u(0), u(1)), integer(r))).status, Status::kUnsat) << a << b;
    s.pop();
  }
}

TEST(Smt, DivisionByZeroIsUndefinedNotAValue) {
  Session s;
  s.assume(eq(u(1), integer(0)), "b is zero");
  // No model makes u0 // u1 == anything: the definedness condition fails.
  EXPECT_EQ(s.check({eq(floordiv(u(0), u(1)), integer(3))}).status, Status::kUnsat);
}

// Past an oracle's deadline a query is unknown at once (not cached: a later query with time
// left is answered); a scope inside another never extends it.
TEST(Smt, QueriesPastTheDeadlineAreUnknownAtOnce) {
  Session s;
  s.assume(le(u(0), integer(3)), "le");
  {
    DeadlineScope outer{std::chrono::milliseconds(0)};
    DeadlineScope inner{std::chrono::milliseconds(60000)};
    EXPECT_TRUE(deadline_passed());
    Result r = s.entails(le(u(0), integer(4)));
    EXPECT_EQ(r.status, Status::kUnknown);
    EXPECT_NE(r.reason.find("deadline"), std::string::npos) << r.reason;
  }
  EXPECT_FALSE(deadline_passed());
  EXPECT_EQ(s.entails(le(u(0), integer(4))).status, Status::kUnsat);
}

// A campaign crash (seed 10666): negating u1 <= INT64_MAX overflows while canonicalizing. The
// query is an error (undecided, never a pass), not an escaped exception.
TEST(Smt, AGoalWhoseNegationOverflowsIsAnError) {
  Session s;
  ExprRef goal = le(u(1), integer(std::numeric_limits<int64_t>::max()));
  Result r;
  ASSERT_NO_THROW(r = s.entails(goal));
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_NE(r.reason.find("cannot state the negation"), std::string::npos) << r.reason;
  EXPECT_EQ(s.stats().error, 1);
}

TEST(Smt, SatModelsAreConfirmedAndUnsatCoresNamed) {
  Session s;
  s.assume(le(integer(0), u(0)), "u0 >= 0");
  s.assume(le(u(0), integer(5)), "u0 <= 5");
  Result sat = s.check({lt(integer(3), u(0))});
  ASSERT_EQ(sat.status, Status::kSat);
  int64_t v = sat.model.at(u(0)).i;
  EXPECT_TRUE(v > 3 && v <= 5) << sat.model_str();
  s.assume(le(integer(7), u(0)), "u0 >= 7");
  Result unsat = s.check();
  ASSERT_EQ(unsat.status, Status::kUnsat);
  EXPECT_EQ(unsat.core, (std::vector<std::string>{"u0 <= 5", "u0 >= 7"}));
}

TEST(Smt, RepeatedQueriesHitTheCache) {
  Session s;
  s.assume(le(integer(2), u(0)), "u0 >= 2");
  EXPECT_FALSE(s.entails(le(integer(1), u(0))).cached);
  Result again = s.entails(le(integer(1), u(0)));
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.status, Status::kUnsat);
  EXPECT_EQ(s.stats().cache_hits, 1);
}

TEST(Smt, ScopesForgetTheirFacts) {
  Session s;
  {
    Session::Scope scope(s);
    s.assume(eq(u(0), integer(1)), "u0 = 1");
    EXPECT_EQ(s.check({eq(u(0), integer(2))}).status, Status::kUnsat);
  }
  EXPECT_EQ(s.check({eq(u(0), integer(2))}).status, Status::kSat);
}

TEST(Smt, HardQueriesEndUnknownWithinTheBudget) {
  Options o;
  o.timeout_ms = 20;
  o.rlimit = 2000;
  Session s(o);
  // x^3 + y^3 == z^3 with positive x, y, z: beyond a tiny resource budget.
  ExprRef x = u(0), y = u(1), z = u(2);
  s.assume(lt(integer(0), x), "x");
  s.assume(lt(integer(0), y), "y");
  s.assume(lt(integer(0), z), "z");
  Result r = s.check({eq(add(pow(x, 3), pow(y, 3)), pow(z, 3))});
  EXPECT_NE(r.status, Status::kSat);
  EXPECT_NE(r.status, Status::kUnsat);  // neither answer may be claimed: unknown, counted
  EXPECT_EQ(s.stats().unknown + s.stats().error, 1);
}

// With no resource budget, only the watchdog outside Z3 stops a hard query (Z3's own timeout
// is not set): the answer is unknown, never a pass.
TEST(Smt, TheWatchdogInterruptsAQueryWithoutABudget) {
  Options o;
  o.timeout_ms = 50;
  o.rlimit = 0;  // unlimited
  Session s(o);
  // Factoring a product of two 10-digit primes: far beyond 50 ms.
  ExprRef x = u(0), y = u(1);
  s.assume(le(integer(2), x), "x >= 2");
  s.assume(le(x, y), "x <= y");
  Result r = s.check({eq(mul(x, y), integer(1000000016000000063))});
  EXPECT_EQ(r.status, Status::kUnknown) << r.reason;
  EXPECT_NE(r.reason.find("wall-clock limit of 50 ms"), std::string::npos) << r.reason;
  // The session stays usable after an interrupt: new scopes and assertions still count (a
  // cancel flag left set makes Z3 drop assertions, so the unsat would come back sat).
  {
    Session::Scope scope(s);
    s.assume(le(y, integer(5)), "y <= 5");
    EXPECT_EQ(s.check({eq(x, integer(1))}).status, Status::kUnsat);
    EXPECT_EQ(s.check({eq(y, integer(6))}).status, Status::kUnsat);
    EXPECT_EQ(s.check({eq(x, integer(3))}).status, Status::kSat);
  }
}

// A check interrupted midway can leave Z3's solver inconsistent: later models that miss a fact
// it holds, unsats that are wrong. A campaign worker reuses its session for every program, so
// one interrupt under load turned the next hundred programs into false FAILs. Busy threads
// preempt this one so that 1 ms budgets end checks at many points; the easy queries after
// each have known answers.
TEST(Smt, AnswersAfterManyInterruptsStayRight) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (unsigned i = 0; i < 2 * std::max(1u, std::thread::hardware_concurrency()); ++i) {
    busy.emplace_back([&] {
      volatile uint64_t x = 0;
      while (!stop) x = x + 1;
    });
  }
  int wrong = 0, interrupted = 0;
  Options o;
  o.timeout_ms = 1;
  Session s(o);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  for (int round = 0; std::chrono::steady_clock::now() < until; ++round) {
    Session::Scope outer(s);
    std::vector<ExprRef> v;
    for (int i = 0; i < 6; ++i) v.push_back(u(i));
    for (int i = 0; i < 6; ++i) s.assume(le(integer(0), v[i]), "range " + std::to_string(i));
    s.assume(eq(floordiv(v[0], integer(3)), add(v[1], integer(round % 5))), "floordiv");
    s.assume(eq(mod(v[2], integer(7)), integer(round % 7)), "mod");
    s.assume(le(mul(v[3], v[4]), add(v[5], integer(round))), "product");
    Result hard = s.check({eq(mul(v[0], v[3]), add(mul(v[4], v[5]), integer(round + 1)))});
    if (hard.status == Status::kUnknown) ++interrupted;
    auto is = [](const Result& r, Status bad) {  // unknown is allowed
      return r.status == bad || r.status == Status::kError;
    };
    wrong += is(s.check({lt(v[1], integer(0))}), Status::kSat);
    wrong += is(s.check({eq(mod(v[2], integer(7)), integer((round + 1) % 7))}), Status::kSat);
    wrong += is(s.check({eq(v[1], integer(round))}), Status::kUnsat);
  }
  stop = true;
  for (auto& t : busy) t.join();
  EXPECT_EQ(wrong, 0) << "of " << interrupted << " interrupted rounds";
  RecordProperty("interrupted", interrupted);
}

TEST(Smt, Cvc5ConfirmsUnsat) {
  Options o;
  o.cross_check_unsat = true;
  Session s(o);
  s.assume(le(integer(3), u(0)), "u0 >= 3");
  Result r = s.entails(le(integer(0), mod(u(0), integer(3))));
  EXPECT_EQ(r.status, Status::kUnsat) << r.reason;
  EXPECT_EQ(s.stats().cross_checked, 1);
  EXPECT_EQ(s.stats().cross_check_failures, 0);
}

// Property: for random integer expressions and in-range assignments, whenever the evaluator
// gives a value, Z3 proves the expression equals it under the assignment; where the evaluator
// reports division by zero, no value is possible.
TEST(Smt, EncodingAgreesWithTheEvaluator) {
  int compared = 0, undefined = 0;
  Session s;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    fuzz::SeedSource src(seed);
    fuzz::SymPool pool = fuzz::gen_symbol_pool(src);
    ExprRef e =
        seed % 3 == 0 ? fuzz::gen_bool_expr(src, pool, 3) : fuzz::gen_int_expr(src, pool, 3);
    Assignment a = fuzz::gen_assignment(src, pool);
    EvalResult ev = evaluate(e, a);
    Session::Scope scope(s);
    for (const auto& [sym_, v] : a) s.assume(eq(sym_, integer(v.i)), "σ");
    if (ev.defined) {
      ExprRef value = ev.value.type == ExprType::kBool ? boolean(ev.value.b) : integer(ev.value.i);
      Result r = s.entails(eq(e, value));
      EXPECT_EQ(r.status, Status::kUnsat)
          << "seed " << seed << ": " << e->str() << " evaluates to " << ev.value.str()
          << " but Z3 allows " << r.model_str() << " " << r.reason;
      ++compared;
    } else if (ev.why.find("by zero") != std::string::npos) {
      // Some value v with e == v (a fresh symbol, so the factories cannot fold the query away).
      ExprRef as_int = e->is_bool() ? bool_to_int(e) : e;
      Result r = s.check({eq(as_int, u(99))});
      EXPECT_EQ(r.status, Status::kUnsat) << "seed " << seed << ": " << e->str() << " " << ev.why;
      ++undefined;
    }
  }
  EXPECT_GT(compared, 200);
  RecordProperty("undefined", undefined);
}

}  // namespace
}  // namespace sf::smt
