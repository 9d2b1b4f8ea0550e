// The user-error channel: typed, catchable exceptions whose messages name the operands and say
// what to do. Engine bugs that PyTorch reports as exceptions derive from EngineBug instead.
#pragma once

#include <stdexcept>
#include <string>

namespace sf {

// Every kind of error a user's program (or API call sequence) can legitimately provoke.
enum class UserErrorKind {
  kParse,                // malformed .sfz text
  kInvalidProgram,       // well-formed text that names undefined values, wrong arity, bad types
  kShape,                // shapes that do not fit the op (rank, broadcast, out-of-range dim)
  kDataDependentGuard,   // GuardOnDataDependentSymNode
  kCheckFailed,          // a check(...) or torch._check that is statically false / false in eager
  kRuntimeAssertFailed,  // a deferred runtime assert that fails on real data
  kValueRange,           // contradictory range constraints (empty interval)
  kValue,                // bad argument values (e.g. max < min in constrain_range)
  kIndex,                // index out of bounds on concrete data
  kZeroDivision,         // integer division or modulo by zero on concrete data
  kTooComplex,           // expression or tensor beyond the engine's size limits
  kUnsupported,          // a feature the engine deliberately does not model
};

const char* user_error_kind_name(UserErrorKind kind);

class UserError : public std::runtime_error {
 public:
  UserError(UserErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
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

// An engine bug that the reference semantics raise as an exception (so tests can observe it).
// Harness drivers never swallow these: they are crashes.
class EngineBug : public std::logic_error {
 public:
  explicit EngineBug(const std::string& message) : std::logic_error(message) {}
};

// compute_unbacked_bindings found a fresh symbol that the produced value does not expose.
class PendingUnbackedSymbolNotFound : public EngineBug {
 public:
  explicit PendingUnbackedSymbolNotFound(const std::string& message) : EngineBug(message) {}
};

[[noreturn]] void throw_user_error(UserErrorKind kind, const std::string& message);

}  // namespace sf
