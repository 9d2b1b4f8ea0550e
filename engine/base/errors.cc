// Names for user-error kinds (used by verdicts, reports and corpus expectations).
#include "engine/base/errors.h"

#include <ostream>

namespace sf {

const char* user_error_kind_name(UserErrorKind kind) {
  switch (kind) {
#define SF_USER_ERROR_NAME(e, name) \
  case UserErrorKind::e:            \
    return name;
    SF_USER_ERROR_KINDS(SF_USER_ERROR_NAME)
#undef SF_USER_ERROR_NAME
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, UserErrorKind kind) {
  return os << user_error_kind_name(kind);
}

std::optional<UserErrorKind> user_error_kind_by_name(std::string_view name) {
#define SF_USER_ERROR_MATCH(e, n) \
  if (name == n) return UserErrorKind::e;
  SF_USER_ERROR_KINDS(SF_USER_ERROR_MATCH)
#undef SF_USER_ERROR_MATCH
  return std::nullopt;
}

const std::vector<UserErrorKind>& all_user_error_kinds() {
  static const std::vector<UserErrorKind> all = {
#define SF_USER_ERROR_VALUE(e, name) UserErrorKind::e,
      SF_USER_ERROR_KINDS(SF_USER_ERROR_VALUE)
#undef SF_USER_ERROR_VALUE
  };
  return all;
}

UserErrorTally& user_error_tally() {
  thread_local UserErrorTally tally;
  return tally;
}

std::string UserErrorInfo::str() const {
  return std::string(user_error_kind_name(kind)) + ": " + message;
}

}  // namespace sf
