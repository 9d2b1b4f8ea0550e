// The ShapeEnv event log: every top-level mutating call, as a typed record of its arguments, with
// how it ended, so that replaying the log into a fresh ShapeEnv reproduces the same state and
// the same outcomes (spec §2; shrinking and the rename oracle replay it).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/base/errors.h"
#include "engine/shape_env/keypath.h"
#include "engine/shape_env/value.h"
#include "engine/sym/interval.h"

namespace sf {

class ShapeEnv;

// How an input dimension becomes symbolic (spec §1.5).
enum class DimDynamic { kDynamic, kDuck, kStatic, kSizeLikeUnbacked, kObliviousSize };
const char* dim_dynamic_name(DimDynamic d);

// One struct per recorded call, holding exactly its arguments.
namespace event {
struct CreateSymbol {
  int64_t hint;
  std::string source;
  DimDynamic dynamic;
  bool positive;
};
struct CreateUnbackedSymInt {
  std::string source;
};
struct CreateUnbackedSymFloat {};
struct CreateUnbackedSymBool {};
struct IgnoreFreshEnter {};
struct IgnoreFreshExit {};
struct ConstrainRangeForSize {
  ExprRef sym;
  std::optional<int64_t> min, max;
};
struct ConstrainSymbolRange {
  ExprRef sym;
  sym::ExtInt min, max;
};
struct SetReplacement {
  ExprRef sym, target;
  std::string why;
};
struct RenameUnbackedTo {
  ExprRef orig, dest;
};
struct EliminateUnbacked {
  ExprRef orig, dest;
};
struct EvaluateExpr {
  ExprRef expr;
  std::optional<ExprRef> hint;
  bool size_oblivious;
  std::optional<bool> fallback;
  std::string sloc;
};
struct GuardOrDeferRuntimeAssert {
  ExprRef expr;
  std::string msg;
};
struct SetUnbackedVarToVal {
  ExprRef sym;
  int64_t value;
};
struct ComputeUnbackedBindings {
  Value value;
  std::optional<Value> old;
  bool peek;
};
struct RebindUnbacked {
  Bindings bindings;
  Value result;
  bool is_placeholder;
};
struct FreezeRuntimeAsserts {};
struct ClearPending {};
struct PushFactScope {};
struct PopFactScope {};
}  // namespace event

using EventCall =
    std::variant<event::CreateSymbol, event::CreateUnbackedSymInt, event::CreateUnbackedSymFloat,
                 event::CreateUnbackedSymBool, event::IgnoreFreshEnter, event::IgnoreFreshExit,
                 event::ConstrainRangeForSize, event::ConstrainSymbolRange, event::SetReplacement,
                 event::RenameUnbackedTo, event::EliminateUnbacked, event::EvaluateExpr,
                 event::GuardOrDeferRuntimeAssert, event::SetUnbackedVarToVal,
                 event::ComputeUnbackedBindings, event::RebindUnbacked, event::FreezeRuntimeAsserts,
                 event::ClearPending, event::PushFactScope, event::PopFactScope>;

// How a recorded call ended: normally, by a user error of some kind, or by an engine bug.
struct EventOutcome {
  enum class Kind { kOk, kUserError, kEngineBug };
  Kind kind = Kind::kOk;
  UserErrorKind user_kind{};  // kUserError only

  static EventOutcome ok() { return {}; }
  static EventOutcome user_error(UserErrorKind k) { return {Kind::kUserError, k}; }
  static EventOutcome engine_bug() { return {Kind::kEngineBug, {}}; }
  bool operator==(const EventOutcome& o) const {
    return kind == o.kind && (kind != Kind::kUserError || user_kind == o.user_kind);
  }
  bool operator!=(const EventOutcome& o) const { return !(*this == o); }
  std::string str() const;  // "ok", "check_failed", "engine_bug"
};

struct Event {
  EventCall call;
  EventOutcome outcome;
  const char* name() const;  // "create_symbol", "evaluate_expr", ...
  std::string str() const;   // "evaluate_expr(Eq(u0, 0), None, False, None, '') -> ok"
};

using EventLog = std::vector<Event>;

// ShapeEnv part: the event log. Only top-level calls are recorded: a call the engine makes while
// handling another one (depth > 0) is part of that event.
class EventRecorder {
 public:
  void begin(EventCall&& call);
  void end(EventOutcome outcome);
  const EventLog& log() const { return log_; }
  // True inside a recorded call: a call made now is nested in it.
  bool in_event() const { return depth_ > 0; }
  // Ends the top-level event begun before it, when it goes out of scope: ok() when the call
  // returned; when it unwinds, a user error of the last kind made if one was made during the
  // call (the one in flight: nothing inside a ShapeEnv call catches a UserError), an engine bug
  // otherwise (EngineBug, bad_alloc, anything else).
  class EndOfEvent {
   public:
    explicit EndOfEvent(EventRecorder& r) : r_(r), made_(user_error_tally().made) {}
    ~EndOfEvent() {
      if (done_) return;
      const UserErrorTally& tally = user_error_tally();
      r_.end(tally.made != made_ ? EventOutcome::user_error(tally.last)
                                 : EventOutcome::engine_bug());
    }
    void returned() {
      done_ = true;
      r_.end(EventOutcome::ok());
    }
    // The call returned with a user error of `kind` that its caller raises next.
    void failed(UserErrorKind kind) {
      done_ = true;
      r_.end(EventOutcome::user_error(kind));
    }
    EndOfEvent(const EndOfEvent&) = delete;
    EndOfEvent& operator=(const EndOfEvent&) = delete;

   private:
    EventRecorder& r_;
    uint64_t made_;
    bool done_ = false;
  };
  // A nested call's scope (however it ends).
  class Nested {
   public:
    explicit Nested(EventRecorder& r) : r_(r) { ++r_.depth_; }
    ~Nested() { --r_.depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    EventRecorder& r_;
  };

 private:
  EventLog log_;
  int depth_ = 0;
};

struct ReplayResult {
  bool same_outcomes = true;
  // "event 7 (evaluate_expr(...) -> ok): replayed data_dependent_guard"
  std::string first_mismatch;
};

// Called around each replayed event (the rename oracle compares the state before and after).
using ReplayHook = std::function<void(size_t index, const Event& ev, const ShapeEnv& env)>;
struct ReplayHooks {
  ReplayHook before, after;
};

// Replays `log` into `env` (normally a fresh ShapeEnv with the same settings).
ReplayResult replay_events(const EventLog& log, ShapeEnv& env, const ReplayHooks& hooks = {});

}  // namespace sf
