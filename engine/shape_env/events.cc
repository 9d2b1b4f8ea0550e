// Event recording scope and replay.
#include "engine/shape_env/events.h"

#include <exception>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"

namespace sf {

const char* event_kind_name(EventKind k) {
  switch (k) {
    case EventKind::kCreateSymbol:
      return "create_symbol";
    case EventKind::kCreateUnbackedSymInt:
      return "create_unbacked_symint";
    case EventKind::kCreateUnbackedSymFloat:
      return "create_unbacked_symfloat";
    case EventKind::kCreateUnbackedSymBool:
      return "create_unbacked_symbool";
    case EventKind::kIgnoreFreshEnter:
      return "ignore_fresh_enter";
    case EventKind::kIgnoreFreshExit:
      return "ignore_fresh_exit";
    case EventKind::kConstrainRangeForSize:
      return "constrain_range_for_size";
    case EventKind::kConstrainSymbolRange:
      return "constrain_symbol_range";
    case EventKind::kSetReplacement:
      return "set_replacement";
    case EventKind::kRenameUnbackedTo:
      return "rename_unbacked_to";
    case EventKind::kEliminateUnbacked:
      return "eliminate_unbacked";
    case EventKind::kEvaluateExpr:
      return "evaluate_expr";
    case EventKind::kGuardOrDeferRuntimeAssert:
      return "guard_or_defer_runtime_assert";
    case EventKind::kSetUnbackedVarToVal:
      return "set_unbacked_var_to_val";
    case EventKind::kComputeUnbackedBindings:
      return "compute_unbacked_bindings";
    case EventKind::kRebindUnbacked:
      return "rebind_unbacked";
    case EventKind::kFreezeRuntimeAsserts:
      return "freeze_runtime_asserts";
    case EventKind::kClearPending:
      return "clear_pending";
  }
  return "?";
}

std::string Event::str() const {
  std::string out = event_kind_name(kind);
  out += "(";
  bool first = true;
  auto sep = [&]() {
    if (!first) out += ", ";
    first = false;
  };
  for (const ExprRef& e : exprs) {
    sep();
    out += e ? e->str() : "None";
  }
  for (int64_t i : ints) {
    sep();
    out += std::to_string(i);
  }
  for (const std::string& s : strings) {
    sep();
    out += "'" + s + "'";
  }
  for (bool f : flags) {
    sep();
    out += f ? "True" : "False";
  }
  if (value) {
    sep();
    out += value->str();
  }
  if (!bindings.empty()) {
    sep();
    out += bindings_str(bindings);
  }
  return out + ") -> " + outcome;
}

void EventRecorder::begin(Event event) {
  if (depth_++ == 0) {
    log_.push_back(std::move(event));
    log_.back().outcome = "error";  // overwritten on normal exit
  }
}

void EventRecorder::end(bool ok) {
  if (--depth_ == 0 && ok) log_.back().outcome = "ok";
}

EventScope::EventScope(ShapeEnv* env, Event event) : env_(env) {
  env_->events_.begin(std::move(event));
}

EventScope::~EventScope() { env_->events_.end(std::uncaught_exceptions() == 0); }

namespace {

std::string run_one(const Event& ev, ShapeEnv& env,
                    std::vector<ShapeEnv::IgnoreFreshScope*>& scopes) {
  try {
    switch (ev.kind) {
      case EventKind::kCreateSymbol:
        env.create_symbol(ev.ints[0], ev.strings[0], static_cast<DimDynamic>(ev.ints[1]),
                          ev.flags[0]);
        break;
      case EventKind::kCreateUnbackedSymInt:
        env.create_unbacked_symint(ev.strings.empty() ? "" : ev.strings[0]);
        break;
      case EventKind::kCreateUnbackedSymFloat:
        env.create_unbacked_symfloat();
        break;
      case EventKind::kCreateUnbackedSymBool:
        env.create_unbacked_symbool();
        break;
      case EventKind::kIgnoreFreshEnter:
        scopes.push_back(new ShapeEnv::IgnoreFreshScope(&env));
        break;
      case EventKind::kIgnoreFreshExit:
        SF_CHECK(!scopes.empty()) << "unbalanced ignore_fresh exit in event log";
        delete scopes.back();
        scopes.pop_back();
        break;
      case EventKind::kConstrainRangeForSize: {
        std::optional<int64_t> lo, hi;
        if (ev.flags[0]) lo = ev.ints[0];
        if (ev.flags[1]) hi = ev.ints[1];
        env.constrain_range_for_size(ev.exprs[0], lo, hi);
        break;
      }
      case EventKind::kConstrainSymbolRange: {
        auto ext = [](int64_t v, bool inf, bool pos) {
          return inf ? (pos ? sym::ExtInt::pos_inf() : sym::ExtInt::neg_inf()) : sym::ExtInt(v);
        };
        env.constrain_symbol_range(ev.exprs[0], ext(ev.ints[0], ev.flags[0], false),
                                   ext(ev.ints[1], ev.flags[1], true));
        break;
      }
      case EventKind::kSetReplacement:
        env.set_replacement(ev.exprs[0], ev.exprs[1], ev.strings[0]);
        break;
      case EventKind::kRenameUnbackedTo:
        env.rename_unbacked_to(ev.exprs[0], ev.exprs[1]);
        break;
      case EventKind::kEliminateUnbacked:
        env.eliminate_unbacked(ev.exprs[0], ev.exprs[1]);
        break;
      case EventKind::kEvaluateExpr: {
        std::optional<ExprRef> hint;
        if (ev.exprs.size() > 1 && ev.exprs[1]) hint = ev.exprs[1];
        std::optional<bool> fallback;
        if (ev.flags[1]) fallback = ev.flags[2];
        env.evaluate_expr(ev.exprs[0], hint, ev.flags[0], fallback, ev.strings[0]);
        break;
      }
      case EventKind::kGuardOrDeferRuntimeAssert:
        env.guard_or_defer_runtime_assert(ev.exprs[0], ev.strings[0]);
        break;
      case EventKind::kSetUnbackedVarToVal:
        env.set_unbacked_var_to_val(ev.exprs[0], ev.ints[0]);
        break;
      case EventKind::kComputeUnbackedBindings:
        env.compute_unbacked_bindings(*ev.value, ev.old_value ? &*ev.old_value : nullptr,
                                      ev.flags[0]);
        break;
      case EventKind::kRebindUnbacked:
        env.rebind_unbacked(ev.bindings, *ev.value, ev.flags[0]);
        break;
      case EventKind::kFreezeRuntimeAsserts:
        env.freeze_runtime_asserts();
        break;
      case EventKind::kClearPending:
        env.clear_pending_fresh_unbacked_symbols();
        break;
    }
  } catch (const UserError& e) {
    return "error";
  } catch (const EngineBug& e) {
    return "error";
  }
  return "ok";
}

}  // namespace

ReplayResult replay_events(const EventLog& log, ShapeEnv& env) {
  ReplayResult result;
  std::vector<ShapeEnv::IgnoreFreshScope*> scopes;
  for (size_t i = 0; i < log.size(); ++i) {
    std::string outcome = run_one(log[i], env, scopes);
    if (outcome != log[i].outcome && result.same_outcomes) {
      result.same_outcomes = false;
      result.first_mismatch =
          "event " + std::to_string(i) + " (" + log[i].str() + "): replayed " + outcome;
    }
  }
  // Scopes still open at the end of the log stay open in the original too; close ours.
  while (!scopes.empty()) {
    delete scopes.back();
    scopes.pop_back();
  }
  return result;
}

}  // namespace sf
