// Printing an oracle's report.
#include "oracles/oracle_report.h"

#include <cstdio>

namespace sf::oracles {

std::string OracleReport::str() const {
  std::string out = name + ": ";
  switch (outcome()) {
    case Outcome::kSkipped:
      return out + "skipped (nothing to judge)";
    case Outcome::kPass:
      out += "pass";
      break;
    case Outcome::kFail:
      out += "FAIL (" + std::to_string(violations.size()) + " violation" +
             (violations.size() == 1 ? "" : "s") + ")";
      break;
    case Outcome::kInconclusive:
      out += "inconclusive (" + std::to_string(inconclusive.size()) + " undecided)";
      break;
  }
  char t[64];
  std::snprintf(t, sizeof t, " in %.3f ms", seconds * 1e3);
  out += t;
  if (smt.queries) out += "; " + smt.str();
  for (const Violation& v : violations) out += "\n  " + v.invariant + ": " + v.details;
  for (const std::string& u : inconclusive) out += "\n  undecided: " + u;
  return out;
}

}  // namespace sf::oracles
