// What one oracle concluded about one program: the violations it found, the queries it could not
// decide (unknown or solver error: counted, never passed), its time and its solver statistics.
#pragma once

#include <string>
#include <vector>

#include "oracles/invariants/shape_env_invariants.h"
#include "oracles/smt/solver.h"

namespace sf::oracles {

struct OracleReport {
  std::string name;  // "binding", "rename", "memo", "tv", "structural", "differential"
  bool ran = false;  // false when what it judges was not produced (e.g. no completed run)
  std::vector<Violation> violations;
  std::vector<std::string> inconclusive;  // undecided queries, each with the solver's reason
  double seconds = 0.0;
  smt::Stats smt;

  enum class Outcome { kSkipped, kPass, kFail, kInconclusive };
  Outcome outcome() const {
    if (!ran) return Outcome::kSkipped;
    if (!violations.empty()) return Outcome::kFail;
    if (!inconclusive.empty()) return Outcome::kInconclusive;
    return Outcome::kPass;
  }
  std::string str() const;  // "binding: pass (3 queries ...) 0.41 ms"
  // Records an smt result that is neither the expected answer nor its refutation.
  void undecided(const std::string& what, const smt::Result& r) {
    inconclusive.push_back(what + ": " + smt::status_name(r.status) + " (" + r.reason + ")");
  }
};

}  // namespace sf::oracles
