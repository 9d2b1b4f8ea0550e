// Names for user-error kinds (used by verdicts, reports and corpus expectations).
#include "engine/base/errors.h"

namespace sf {

const char* user_error_kind_name(UserErrorKind kind) {
  switch (kind) {
    case UserErrorKind::kParse:
      return "parse";
    case UserErrorKind::kInvalidProgram:
      return "invalid_program";
    case UserErrorKind::kShape:
      return "shape";
    case UserErrorKind::kDataDependentGuard:
      return "data_dependent_guard";
    case UserErrorKind::kCheckFailed:
      return "check_failed";
    case UserErrorKind::kRuntimeAssertFailed:
      return "runtime_assert_failed";
    case UserErrorKind::kValueRange:
      return "value_range";
    case UserErrorKind::kValue:
      return "value";
    case UserErrorKind::kIndex:
      return "index";
    case UserErrorKind::kZeroDivision:
      return "zero_division";
    case UserErrorKind::kTooComplex:
      return "too_complex";
    case UserErrorKind::kUnsupported:
      return "unsupported";
  }
  return "unknown";
}

void throw_user_error(UserErrorKind kind, const std::string& message) {
  throw UserError(kind, message);
}

}  // namespace sf
