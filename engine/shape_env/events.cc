// Event names and printing, the recorder, and replay (one overload per event struct).
#include "engine/shape_env/events.h"

#include "engine/base/check.h"
#include "engine/shape_env/shape_env.h"

namespace sf {

namespace {

// Printing: "name(arg, arg, ...)".
struct Printer {
  std::string out;
  bool first = true;
  void arg(const std::string& s) {
    out += first ? "" : ", ";
    out += s;
    first = false;
  }
  void expr(const ExprRef& e) { arg(e ? e->str() : "None"); }
  void str(const std::string& s) { arg("'" + s + "'"); }
  void flag(bool b) { arg(b ? "True" : "False"); }
  void num(int64_t i) { arg(std::to_string(i)); }
  template <typename T, typename F>
  void opt(const std::optional<T>& v, F print) {
    if (v) {
      print(*v);
    } else {
      arg("None");
    }
  }

  void operator()(const event::CreateSymbol& e) {
    num(e.hint);
    str(e.source);
    arg(dim_dynamic_name(e.dynamic));
    flag(e.positive);
  }
  void operator()(const event::CreateUnbackedSymInt& e) {
    if (!e.source.empty()) str(e.source);
  }
  void operator()(const event::CreateUnbackedSymFloat&) {}
  void operator()(const event::CreateUnbackedSymBool&) {}
  void operator()(const event::IgnoreFreshEnter&) {}
  void operator()(const event::IgnoreFreshExit&) {}
  void operator()(const event::ConstrainRangeForSize& e) {
    expr(e.sym);
    opt(e.min, [&](int64_t v) { num(v); });
    opt(e.max, [&](int64_t v) { num(v); });
  }
  void operator()(const event::ConstrainSymbolRange& e) {
    expr(e.sym);
    arg(e.min.str());
    arg(e.max.str());
  }
  void operator()(const event::SetReplacement& e) {
    expr(e.sym);
    expr(e.target);
    str(e.why);
  }
  void operator()(const event::RenameUnbackedTo& e) {
    expr(e.orig);
    expr(e.dest);
  }
  void operator()(const event::EliminateUnbacked& e) {
    expr(e.orig);
    expr(e.dest);
  }
  void operator()(const event::EvaluateExpr& e) {
    expr(e.expr);
    opt(e.hint, [&](const ExprRef& h) { expr(h); });
    flag(e.size_oblivious);
    opt(e.fallback, [&](bool b) { flag(b); });
    str(e.sloc);
  }
  void operator()(const event::GuardOrDeferRuntimeAssert& e) {
    expr(e.expr);
    str(e.msg);
  }
  void operator()(const event::SetUnbackedVarToVal& e) {
    expr(e.sym);
    num(e.value);
  }
  void operator()(const event::ComputeUnbackedBindings& e) {
    arg(e.value.str());
    opt(e.old, [&](const Value& v) { arg(v.str()); });
    flag(e.peek);
  }
  void operator()(const event::RebindUnbacked& e) {
    arg(bindings_str(e.bindings));
    arg(e.result.str());
    flag(e.is_placeholder);
  }
  void operator()(const event::FreezeRuntimeAsserts&) {}
  void operator()(const event::ClearPending&) {}
  void operator()(const event::PushFactScope&) {}
  void operator()(const event::PopFactScope&) {}
};

// Replay: the same call on another ShapeEnv. Ignore-fresh scopes are opened and closed in order.
struct Replayer {
  ShapeEnv& env;
  std::vector<ShapeEnv::IgnoreFreshScope*>& scopes;

  void operator()(const event::CreateSymbol& e) {
    env.create_symbol(e.hint, e.source, e.dynamic, e.positive);
  }
  void operator()(const event::CreateUnbackedSymInt& e) { env.create_unbacked_symint(e.source); }
  void operator()(const event::CreateUnbackedSymFloat&) { env.create_unbacked_symfloat(); }
  void operator()(const event::CreateUnbackedSymBool&) { env.create_unbacked_symbool(); }
  void operator()(const event::IgnoreFreshEnter&) {
    scopes.push_back(new ShapeEnv::IgnoreFreshScope(&env));
  }
  void operator()(const event::IgnoreFreshExit&) {
    SF_CHECK(!scopes.empty()) << "unbalanced ignore_fresh exit in event log";
    delete scopes.back();
    scopes.pop_back();
  }
  void operator()(const event::ConstrainRangeForSize& e) {
    env.constrain_range_for_size(e.sym, e.min, e.max);
  }
  void operator()(const event::ConstrainSymbolRange& e) {
    env.constrain_symbol_range(e.sym, e.min, e.max);
  }
  void operator()(const event::SetReplacement& e) { env.set_replacement(e.sym, e.target, e.why); }
  void operator()(const event::RenameUnbackedTo& e) { env.rename_unbacked_to(e.orig, e.dest); }
  void operator()(const event::EliminateUnbacked& e) { env.eliminate_unbacked(e.orig, e.dest); }
  void operator()(const event::EvaluateExpr& e) {
    env.evaluate_expr(e.expr, e.hint, e.size_oblivious, e.fallback, e.sloc);
  }
  void operator()(const event::GuardOrDeferRuntimeAssert& e) {
    env.guard_or_defer_runtime_assert(e.expr, e.msg);
  }
  void operator()(const event::SetUnbackedVarToVal& e) {
    env.set_unbacked_var_to_val(e.sym, e.value);
  }
  void operator()(const event::ComputeUnbackedBindings& e) {
    env.compute_unbacked_bindings(e.value, e.old ? &*e.old : nullptr, e.peek);
  }
  void operator()(const event::RebindUnbacked& e) {
    env.rebind_unbacked(e.bindings, e.result, e.is_placeholder);
  }
  void operator()(const event::FreezeRuntimeAsserts&) { env.freeze_runtime_asserts(); }
  void operator()(const event::ClearPending&) { env.clear_pending_fresh_unbacked_symbols(); }
  void operator()(const event::PushFactScope&) { env.push_fact_scope(); }
  void operator()(const event::PopFactScope&) { env.pop_fact_scope(); }
};

EventOutcome replay_one(const Event& ev, ShapeEnv& env,
                        std::vector<ShapeEnv::IgnoreFreshScope*>& scopes) {
  try {
    std::visit(Replayer{env, scopes}, ev.call);
  } catch (const UserError& e) {
    return EventOutcome::user_error(e.kind());
  } catch (...) {  // as ShapeEnv::recorded: EngineBug or anything else escaping the engine
    return EventOutcome::engine_bug();
  }
  return EventOutcome::ok();
}

}  // namespace

const char* dim_dynamic_name(DimDynamic d) {
  switch (d) {
    case DimDynamic::kDynamic:
      return "dynamic";
    case DimDynamic::kDuck:
      return "duck";
    case DimDynamic::kStatic:
      return "static";
    case DimDynamic::kSizeLikeUnbacked:
      return "unbacked";
    case DimDynamic::kObliviousSize:
      return "oblivious";
  }
  return "?";
}

std::string EventOutcome::str() const {
  switch (kind) {
    case Kind::kOk:
      return "ok";
    case Kind::kUserError:
      return user_error_kind_name(user_kind);
    case Kind::kEngineBug:
      return "engine_bug";
  }
  return "?";
}

const char* Event::name() const {
  static constexpr const char* kNames[] = {
      "create_symbol",
      "create_unbacked_symint",
      "create_unbacked_symfloat",
      "create_unbacked_symbool",
      "ignore_fresh_enter",
      "ignore_fresh_exit",
      "constrain_range_for_size",
      "constrain_symbol_range",
      "set_replacement",
      "rename_unbacked_to",
      "eliminate_unbacked",
      "evaluate_expr",
      "guard_or_defer_runtime_assert",
      "set_unbacked_var_to_val",
      "compute_unbacked_bindings",
      "rebind_unbacked",
      "freeze_runtime_asserts",
      "clear_pending",
      "push_fact_scope",
      "pop_fact_scope",
  };
  static_assert(std::size(kNames) == std::variant_size_v<EventCall>, "one name per event struct");
  return kNames[call.index()];
}

std::string Event::str() const {
  Printer p;
  std::visit(p, call);
  return std::string(name()) + "(" + p.out + ") -> " + outcome.str();
}

void EventRecorder::begin(EventCall&& call) {
  if (depth_++ == 0) log_.push_back(Event{std::move(call), EventOutcome::ok()});
}

void EventRecorder::end(EventOutcome outcome) {
  if (--depth_ == 0) log_.back().outcome = outcome;
}

ReplayResult replay_events(const EventLog& log, ShapeEnv& env, const ReplayHooks& hooks) {
  ReplayResult result;
  std::vector<ShapeEnv::IgnoreFreshScope*> scopes;
  for (size_t i = 0; i < log.size(); ++i) {
    if (hooks.before) hooks.before(i, log[i], env);
    EventOutcome outcome = replay_one(log[i], env, scopes);
    if (hooks.after) hooks.after(i, log[i], env);
    if (outcome != log[i].outcome && result.same_outcomes) {
      result.same_outcomes = false;
      result.first_mismatch =
          "event " + std::to_string(i) + " (" + log[i].str() + "): replayed " + outcome.str();
    }
  }
  // Scopes still open at the end of the log stay open in the original too; close ours.
  while (!scopes.empty()) {
    delete scopes.back();
    scopes.pop_back();
  }
  return result;
}

const EventLog& ShapeEnv::events() const {
  // An oracle reading the log of a ShapeEnv that kept none would judge nothing and pass.
  SF_CHECK(settings_.record_events)
      << "events() of a ShapeEnv made with record_events = false: it kept no log";
  return events_.log();
}

}  // namespace sf
