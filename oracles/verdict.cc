// Verdict construction, printing and expectation matching.
#include "oracles/verdict.h"

namespace sf::oracles {

Verdict Verdict::rejected(UserErrorKind kind, std::string stage, std::string message) {
  Verdict v;
  v.kind = Kind::kRejected;
  v.error_kind = kind;
  v.stage = std::move(stage);
  v.message = std::move(message);
  return v;
}

Verdict Verdict::fail(std::string stage, std::string message, std::vector<Violation> vs) {
  Verdict v;
  v.kind = Kind::kFail;
  v.stage = std::move(stage);
  v.message = std::move(message);
  v.violations = std::move(vs);
  return v;
}

Verdict Verdict::wrong_rejection(UserErrorKind kind, std::string stage, std::string message) {
  Verdict v = rejected(kind, std::move(stage), std::move(message));
  v.kind = Kind::kWrongRejection;
  return v;
}

Verdict Verdict::inconclusive(std::string oracle, std::string message) {
  Verdict v;
  v.kind = Kind::kInconclusive;
  v.stage = std::move(oracle);
  v.message = std::move(message);
  return v;
}

std::string Verdict::str() const {
  switch (kind) {
    case Kind::kPass:
      return "pass";
    case Kind::kRejected:
      return std::string("rejected(") + user_error_kind_name(error_kind) + ") at " + stage + ": " +
             message;
    case Kind::kFail: {
      std::string out = "FAIL at " + stage + ": " + message;
      if (!violations.empty()) out += "\n" + violations_str(violations);
      return out;
    }
    case Kind::kWrongRejection:
      return std::string("WRONG REJECTION (") + user_error_kind_name(error_kind) + ") at " + stage +
             " of a program valid by construction that eager runs: " + message;
    case Kind::kInconclusive:
      return "inconclusive (" + stage + "): " + message;
  }
  return "?";
}

std::string Verdict::bucket() const {
  switch (kind) {
    case Kind::kPass:
      return "pass";
    case Kind::kRejected:
      return std::string("rejected:") + user_error_kind_name(error_kind);
    case Kind::kFail:
      return "fail:" + (violations.empty() ? stage : violations[0].invariant);
    case Kind::kWrongRejection:
      return std::string("wrong-rejection:") + user_error_kind_name(error_kind);
    case Kind::kInconclusive:
      return "unknown:" + stage;
  }
  return "?";
}

bool matches_expectation(const Verdict& v, const std::string& expect) {
  if (expect == "ok") return v.kind == Verdict::Kind::kPass;
  if (expect.rfind("error ", 0) != 0) return false;
  std::string rest = expect.substr(6);
  std::string kind = rest.substr(0, rest.find(' '));
  if (v.kind != Verdict::Kind::kRejected || user_error_kind_by_name(kind) != v.error_kind) {
    return false;
  }
  size_t q = rest.find('"');
  if (q == std::string::npos) return true;
  size_t q2 = rest.rfind('"');
  if (q2 <= q) return false;
  std::string needle = rest.substr(q + 1, q2 - q - 1);
  return v.message.find(needle) != std::string::npos;
}

}  // namespace sf::oracles
