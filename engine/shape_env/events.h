// The ShapeEnv event log: every top-level mutating call, with its arguments and outcome, so that
// replaying the log into a fresh ShapeEnv reproduces the same state (and the same errors).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/shape_env/keypath.h"
#include "engine/shape_env/value.h"

namespace sf {

class ShapeEnv;

enum class EventKind {
  kCreateSymbol,
  kCreateUnbackedSymInt,
  kCreateUnbackedSymFloat,
  kCreateUnbackedSymBool,
  kIgnoreFreshEnter,
  kIgnoreFreshExit,
  kConstrainRangeForSize,
  kConstrainSymbolRange,
  kSetReplacement,
  kRenameUnbackedTo,
  kEliminateUnbacked,
  kEvaluateExpr,
  kGuardOrDeferRuntimeAssert,
  kSetUnbackedVarToVal,
  kComputeUnbackedBindings,
  kRebindUnbacked,
  kFreezeRuntimeAsserts,
  kClearPending,
};
const char* event_kind_name(EventKind k);

struct Event {
  explicit Event(EventKind k) : kind(k) {}
  EventKind kind;
  std::vector<ExprRef> exprs;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<bool> flags;
  std::optional<Value> value;
  std::optional<Value> old_value;
  Bindings bindings;
  // "ok", or the user-error / engine-bug class the call ended with.
  std::string outcome = "ok";

  std::string str() const;
};

using EventLog = std::vector<Event>;

// ShapeEnv part: the event log. Only top-level calls are recorded: a call the engine makes while
// handling another one (depth > 0) is part of that event.
class EventRecorder {
 public:
  // Enters a call; records `event` (outcome "error" until end() says otherwise) at depth 0.
  void begin(Event event);
  // Leaves a call; at depth 0 the outcome becomes "ok" unless it ended by an exception.
  void end(bool ok);
  const EventLog& log() const { return log_; }

 private:
  EventLog log_;
  int depth_ = 0;
};

struct ReplayResult {
  bool same_outcomes = true;
  std::string
      first_mismatch;  // "event 7 (evaluate_expr): recorded ok, replayed data_dependent_guard"
};

// Replays `log` into `env` (normally a fresh ShapeEnv with the same settings).
ReplayResult replay_events(const EventLog& log, ShapeEnv& env);

}  // namespace sf
