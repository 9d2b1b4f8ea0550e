// The three error channels that may leave a public entry point: UserError(kind) for anything a
// user's program, inputs or call sequence can provoke; EngineBug (and SF_CHECK aborts, check.h)
// for broken internal invariants; Unavailable for a capability this machine lacks.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sf {

// Every kind of error a user's program (or API call sequence) can legitimately provoke:
// SF_USER_ERROR_KIND(Enum, "name used in verdicts, reports and corpus expectations").
#define SF_USER_ERROR_KINDS(X)                                                                 \
  X(kParse, "parse")                               /* malformed .sfz text */                   \
  X(kInvalidProgram, "invalid_program")            /* undefined names, arity, types, inputs */ \
  X(kShape, "shape")                               /* rank, broadcast, out-of-range dim */     \
  X(kDataDependentGuard, "data_dependent_guard")   /* GuardOnDataDependentSymNode */           \
  X(kCheckFailed, "check_failed")                  /* check(...) statically/eagerly false */   \
  X(kRuntimeAssertFailed, "runtime_assert_failed") /* a deferred assert fails on real data */  \
  X(kGuardFailed, "guard_failed")                  /* inputs violate a plan's guards */        \
  X(kValueRange, "value_range")                    /* contradictory range constraints */       \
  X(kValue, "value")                               /* bad argument values */                   \
  X(kIndex, "index")                               /* index out of bounds on concrete data */  \
  X(kZeroDivision, "zero_division")                /* int division/modulo by zero */           \
  X(kTooComplex, "too_complex")                    /* beyond the engine's size limits */       \
  X(kUnsupported, "unsupported")                   /* deliberately not modelled */

enum class UserErrorKind {
#define SF_USER_ERROR_ENUM(e, name) e,
  SF_USER_ERROR_KINDS(SF_USER_ERROR_ENUM)
#undef SF_USER_ERROR_ENUM
};

const char* user_error_kind_name(UserErrorKind kind);
std::ostream& operator<<(std::ostream& os, UserErrorKind kind);  // its name
// The kind with that name ("check_failed"), if any.
std::optional<UserErrorKind> user_error_kind_by_name(std::string_view name);
// Every kind, in declaration order.
const std::vector<UserErrorKind>& all_user_error_kinds();

// How many UserErrors this thread has made, and the kind of the last one: ShapeEnv's event log
// learns how a call that unwinds ended from it, without catching and rethrowing (a rethrow
// unwinds the stack a second time; see ShapeEnv::recorded).
struct UserErrorTally {
  uint64_t made = 0;
  UserErrorKind last = UserErrorKind::kParse;
};
UserErrorTally& user_error_tally();

class UserError : public std::runtime_error {
 public:
  UserError(UserErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {
    UserErrorTally& tally = user_error_tally();
    ++tally.made;
    tally.last = kind;
  }
  UserErrorKind kind() const { return kind_; }

 private:
  UserErrorKind kind_;
};

// Raised when a guard needs a concrete value for an expression over unbacked symbols.
class GuardOnDataDependentSymNode : public UserError {
 public:
  explicit GuardOnDataDependentSymNode(const std::string& message)
      : UserError(UserErrorKind::kDataDependentGuard, message) {}
};

// A broken internal invariant that is raised rather than aborted on (the reference semantics
// raise some, e.g. PendingUnbackedSymbolNotFound, so tests can observe them). Always a finding:
// harness drivers never turn one into a rejection.
class EngineBug : public std::logic_error {
 public:
  explicit EngineBug(const std::string& message) : std::logic_error(message) {}
};

// compute_unbacked_bindings found a fresh symbol that the produced value does not expose.
class PendingUnbackedSymbolNotFound : public EngineBug {
 public:
  explicit PendingUnbackedSymbolNotFound(const std::string& message) : EngineBug(message) {}
};

// A capability this machine does not have (no GPU or driver, no NVRTC, no torch): neither the
// user's fault nor an engine bug. The message says what is missing and how to get it.
class Unavailable : public std::runtime_error {
 public:
  explicit Unavailable(const std::string& message) : std::runtime_error(message) {}
};

// Inline: every frame a user error unwinds through costs it a few thousand instructions (the
// unwinder runs each frame's CFI and call-site table twice), and most checks raise one.
[[noreturn]] inline __attribute__((always_inline)) void throw_user_error(
    UserErrorKind kind, const std::string& message) {
  throw UserError(kind, message);
}

// For a body that raises user errors often (a lambda handed to a recording wrapper): inlined
// into its caller, it is one frame fewer for each of them to unwind.
#define SF_UNWOUND_INLINE __attribute__((always_inline))

// A user error as a value: what verdicts and reports keep once the exception is caught.
struct UserErrorInfo {
  UserErrorKind kind;
  std::string message;
  std::string str() const;  // "check_failed: line 3: ..."
};

}  // namespace sf
