// The ShapeEnv event log (spec §2, §14): every top-level mutating call is recorded with its
// outcome, and replaying the log into a fresh ShapeEnv reproduces the state and the outcomes.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using namespace sf::testing;

std::vector<std::string> kinds(const EventLog& log) {
  std::vector<std::string> out;
  for (const Event& e : log) out.push_back(e.name());
  return out;
}

std::vector<std::string> outcomes(const EventLog& log) {
  std::vector<std::string> out;
  for (const Event& e : log) out.push_back(e.outcome.str());
  return out;
}

// Runs `f`, swallowing the user errors and engine-bug exceptions it is meant to provoke.
void tolerate(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError&) {
  } catch (const EngineBug&) {
  }
}

TEST(Events, EveryTopLevelMutationIsRecorded) {
  ShapeEnv env;
  SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  SymInt u = env.create_unbacked_symint();
  env.compute_unbacked_bindings(tensor({u, s}));
  env.statically_known_true(sym_eq(u, 3));  // pure: not recorded
  env.maybe_evaluate_static(sym::eq(u.expr(), I(3)));
  env.check(sym_le(u, s), "u <= s");  // check -> expect_true -> guard_or_defer_runtime_assert
  env.guard_bool(sym_gt(s, 2));
  env.constrain_range_for_size(u.expr(), 0, 10);
  { auto scope = env.ignore_fresh_unbacked_symbols(); }
  env.create_unbacked_symfloat();
  env.create_unbacked_symbool();
  env.clear_pending_fresh_unbacked_symbols();
  env.freeze_runtime_asserts();
  EXPECT_EQ(kinds(env.events()),
            (std::vector<std::string>{
                "create_symbol", "create_unbacked_symint", "compute_unbacked_bindings",
                "guard_or_defer_runtime_assert", "evaluate_expr", "constrain_range_for_size",
                "ignore_fresh_enter", "ignore_fresh_exit", "create_unbacked_symfloat",
                "create_unbacked_symbool", "clear_pending", "freeze_runtime_asserts"}))
      << "nested engine calls (constrain_symbol_range, set_replacement, ...) are not events";
  for (const Event& e : env.events()) EXPECT_EQ(e.outcome, EventOutcome::ok()) << e.str();
  EXPECT_EQ(std::get<event::GuardOrDeferRuntimeAssert>(env.events()[3].call).msg, "u <= s");
}

TEST(Events, ErrorsAreRecordedAsOutcomes) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  tolerate([&] { env.guard_bool(sym_eq(u, 0)); });                  // DDE
  tolerate([&] { env.compute_unbacked_bindings(Value(u + 1)); });   // pending not found
  tolerate([&] { env.constrain_range_for_size(u.expr(), 5, 2); });  // max < min
  EXPECT_EQ(outcomes(env.events()),
            (std::vector<std::string>{"ok", "data_dependent_guard", "engine_bug", "value"}));
}

// A DDE is returned by evaluate_expr's body, recorded, then raised by its wrapper (cheaper to
// unwind): the caller still gets the typed error with its message, the event says how it ended,
// and the next call is not taken for a failed one.
TEST(Events, ARaisedAfterItsEventEndedErrorIsRecordedOnce) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  try {
    env.guard_bool(sym_eq(u, 0));
    ADD_FAILURE() << "a guard on an unbacked symbol decided";
  } catch (const GuardOnDataDependentSymNode& e) {
    EXPECT_NE(std::string(e.what()).find("Could not guard on data-dependent expression"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(env.guard_bool(sym_gt(s, 2)));
  try {
    env.check(sym_lt(s, 3), "s < 3");
    ADD_FAILURE() << "a false check passed";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kCheckFailed);
    EXPECT_NE(std::string(e.what()).find("check failed: s < 3"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(env.guard_bool(sym_gt(s, 1)));
  // The check's guard returned false (ok); check itself raised, outside any event.
  EXPECT_EQ(outcomes(env.events()),
            (std::vector<std::string>{"ok", "ok", "data_dependent_guard", "ok", "ok", "ok"}));
}

// Programs whose logs must replay to the same state and the same outcomes.
struct ReplayCase {
  const char* name;
  ShapeEnvSettings settings;
  std::function<void(ShapeEnv&)> program;
};

ShapeEnvSettings prefer_deferred() {
  ShapeEnvSettings s;
  s.prefer_deferred_runtime_asserts_over_guards = true;
  return s;
}

ShapeEnvSettings no_specialization() {
  ShapeEnvSettings s;
  s.specialize_zero_one = false;
  s.duck_shape = false;
  return s;
}

void NonzeroItemCheck(ShapeEnv& env) {
  SymInt s = env.create_symbol(8, "x.size()[0]", DimDynamic::kDuck);
  SymInt t = env.create_symbol(8, "y.size()[0]", DimDynamic::kDuck);
  SymInt u0 = env.create_unbacked_symint();
  env.constrain_range_for_size(u0.expr(), 0, 8);
  env.compute_unbacked_bindings(tensor({u0, 1}));
  SymInt u1 = env.create_unbacked_symint();
  env.compute_unbacked_bindings(Value(u1));
  env.check(sym_le(u1, u0), "u1 <= u0");
  env.check(sym_eq(mod(u0, 2), 0), "even");
  env.guard_bool(sym_gt(s + t, 3));
  env.guard_or_false(sym_eq(u1, 1));
}

void RetraceAndRebind(ShapeEnv& env) {
  SymInt u0 = env.create_unbacked_symint();
  Bindings b0 = *env.compute_unbacked_bindings(tensor({u0 * 4}));
  SymBool b = env.create_unbacked_symbool();
  Bindings b1 = *env.compute_unbacked_bindings(Value(b));
  // The retrace binds its fresh symbols on the new nodes, then renames them to the old ones.
  SymInt f0 = env.create_unbacked_symint();
  Value v0 = tensor({f0 * 4});
  env.compute_unbacked_bindings(v0);
  env.rebind_unbacked(b0, v0, false);
  SymBool fb = env.create_unbacked_symbool();
  env.compute_unbacked_bindings(Value(fb));
  env.rebind_unbacked(b1, Value(fb), false);
  SymInt f1 = env.create_unbacked_symint();
  Value old_v = tensor({u0 * 4});
  env.compute_unbacked_bindings(tensor({f1 * 4}), &old_v);
  env.set_unbacked_var_to_val(u0.expr(), 3);
  env.guard_bool(sym_eq(u0, 3));  // answered from the real value, as a runtime assert
}

void UserErrorsAlongTheWay(ShapeEnv& env) {
  SymInt u0 = env.create_unbacked_symint();
  tolerate([&] { env.compute_unbacked_bindings(Value(u0 + 1)); });
  SymInt u1 = env.create_unbacked_symint();
  env.compute_unbacked_bindings(Value(u1));
  tolerate([&] { env.guard_bool(sym_gt(u1, 2)); });
  env.constrain_symbol_range(u1.expr(), 0, 4);
  tolerate([&] { env.constrain_symbol_range(u1.expr(), 6, 9); });
  tolerate([&] { env.check(sym_gt(u1, 7), "impossible"); });
  tolerate([&] {
    env.rebind_unbacked(Bindings{{U(1), KeyPath{}}}, Value(u1), false);
  });  // memo disaster
  env.check(sym_ge(u1, 1), "u1 >= 1");
  {
    auto scope = env.ignore_fresh_unbacked_symbols();
    env.create_unbacked_symint();
  }
  env.freeze_runtime_asserts();
  env.expect_true(sym_le(u1, 3), "frozen");
}

TEST(Events, ReplayReproducesStateAndOutcomes) {
  const ReplayCase cases[] = {
      {"nonzero/item/check", {}, NonzeroItemCheck},
      {"nonzero/item/check, deferred", prefer_deferred(), NonzeroItemCheck},
      {"nonzero/item/check, no specialization", no_specialization(), NonzeroItemCheck},
      {"retrace and rebind", {}, RetraceAndRebind},
      {"user errors along the way", {}, UserErrorsAlongTheWay},
  };
  for (const ReplayCase& c : cases) {
    SCOPED_TRACE(c.name);
    ShapeEnv original(c.settings);
    c.program(original);
    ASSERT_FALSE(original.events().empty());
    ShapeEnv fresh(c.settings);
    ReplayResult r = replay_events(original.events(), fresh);
    EXPECT_TRUE(r.same_outcomes) << r.first_mismatch;
    EXPECT_EQ(fresh.state_str(), original.state_str());
    ASSERT_EQ(fresh.events().size(), original.events().size());
    for (size_t i = 0; i < fresh.events().size(); ++i) {
      EXPECT_EQ(fresh.events()[i].str(), original.events()[i].str()) << "event " << i;
    }
  }
}

TEST(Events, UserErrorProgramRecordsItsErrors) {
  ShapeEnv env;
  UserErrorsAlongTheWay(env);
  int errors = 0;
  for (const Event& e : env.events()) errors += e.outcome != EventOutcome::ok();
  // Pending not found, DDE, empty range, memo disaster; the failed check is an "ok" assert
  // query that answered False (check() raises outside the engine call).
  EXPECT_EQ(errors, 4);
}

TEST(Events, ReplayReportsADivergingOutcome) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  tolerate([&] { env.guard_bool(sym_eq(u, 0)); });
  EventLog log = env.events();
  ASSERT_EQ(log.back().outcome, EventOutcome::user_error(UserErrorKind::kDataDependentGuard));
  log.back().outcome = EventOutcome::ok();  // pretend the original call had succeeded
  ShapeEnv fresh;
  ReplayResult r = replay_events(log, fresh);
  EXPECT_FALSE(r.same_outcomes);
  EXPECT_NE(r.first_mismatch.find("event 1"), std::string::npos) << r.first_mismatch;
}

// Outcomes carry the user error's kind: replay that raises a different kind is a divergence too.
TEST(Events, ReplayComparesUserErrorKinds) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  tolerate([&] { env.guard_bool(sym_eq(u, 0)); });
  EventLog log = env.events();
  log.back().outcome = EventOutcome::user_error(UserErrorKind::kCheckFailed);
  ShapeEnv fresh;
  ReplayResult r = replay_events(log, fresh);
  EXPECT_FALSE(r.same_outcomes);
  EXPECT_NE(r.first_mismatch.find("replayed data_dependent_guard"), std::string::npos)
      << r.first_mismatch;
}

TEST(Events, ReplayWithOtherSettingsGivesOtherState) {
  ShapeEnv env;
  NonzeroItemCheck(env);
  ShapeEnv other(no_specialization());
  replay_events(env.events(), other);
  EXPECT_NE(other.state_str(), env.state_str()) << "duck sizing was part of the original state";
}

}  // namespace
}  // namespace sf
