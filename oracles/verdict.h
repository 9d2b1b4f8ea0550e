// Verdicts: pass, rejected (a user error, with its kind), fail (an oracle found a bug),
// wrong rejection (a program valid by construction was rejected while eager ran it: triage), or
// inconclusive (a solver query was undecided: counted, never a pass). A user error is never a
// failure; a crash, an invariant violation or a wrong result always is.
#pragma once

#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "oracles/invariants/shape_env_invariants.h"

namespace sf::oracles {

struct Verdict {
  enum class Kind { kPass, kRejected, kFail, kWrongRejection, kInconclusive };
  Kind kind = Kind::kPass;
  UserErrorKind error_kind{};         // kRejected: the user error's kind
  std::string stage;                  // where it was decided: "trace", "eager", "oracles", ...
  std::string message;                // kRejected: the user error message; kFail: details
  std::vector<Violation> violations;  // kFail from invariant checkers

  static Verdict pass() { return Verdict(); }
  static Verdict rejected(UserErrorKind kind, std::string stage, std::string message);
  static Verdict fail(std::string stage, std::string message, std::vector<Violation> vs = {});
  static Verdict wrong_rejection(UserErrorKind kind, std::string stage, std::string message);
  static Verdict inconclusive(std::string oracle, std::string message);
  std::string str() const;  // "pass", "rejected(check_failed) at trace: ...", "FAIL(INV-6) ..."
  // The short bucket used for deduplication: "pass", "rejected:<kind>", "fail:<oracle>",
  // "wrong-rejection:<kind>", "unknown:<oracle>".
  std::string bucket() const;
};

// Whether a verdict satisfies a corpus expectation header: "ok" | "error <kind> [\"substring\"]".
// A malformed expectation never matches.
bool matches_expectation(const Verdict& v, const std::string& expect);

}  // namespace sf::oracles
