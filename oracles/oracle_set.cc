// Oracle names and parsing of oracle lists.
#include "oracles/oracle_set.h"

#include <sstream>

namespace sf::oracles {

const char* oracle_name(OracleKind k) {
  switch (k) {
    case OracleKind::kStructural:
      return "structural";
    case OracleKind::kDifferential:
      return "differential";
    case OracleKind::kBinding:
      return "binding";
    case OracleKind::kRename:
      return "rename";
    case OracleKind::kMemo:
      return "memo";
    case OracleKind::kTv:
      return "tv";
  }
  return "?";
}

const std::vector<OracleKind>& all_oracle_kinds() {
  static const std::vector<OracleKind> kinds = {OracleKind::kStructural, OracleKind::kDifferential,
                                                OracleKind::kBinding,    OracleKind::kRename,
                                                OracleKind::kMemo,       OracleKind::kTv};
  return kinds;
}

OracleSet OracleSet::all() {
  OracleSet s;
  for (OracleKind k : all_oracle_kinds()) s.add(k);
  return s;
}

OracleSet OracleSet::structural_only() {
  return OracleSet().add(OracleKind::kStructural).add(OracleKind::kDifferential);
}

std::optional<OracleSet> OracleSet::parse(const std::string& text, std::string* error) {
  if (text == "all") return all();
  OracleSet s;
  std::stringstream ss(text);
  std::string name;
  while (std::getline(ss, name, ',')) {
    bool found = false;
    for (OracleKind k : all_oracle_kinds()) {
      if (name == oracle_name(k)) {
        s.add(k);
        found = true;
      }
    }
    if (!found) {
      if (error) {
        *error = "unknown oracle '" + name +
                 "' (expected all, or a comma list of structural, differential, binding, "
                 "rename, memo, tv)";
      }
      return std::nullopt;
    }
  }
  // A run with no oracle judges nothing, so it would pass everything: refused, not silently run.
  if (s.bits_ == 0) {
    if (error) {
      *error =
          "no oracle named (expected all, or a comma list of structural, differential, "
          "binding, rename, memo, tv)";
    }
    return std::nullopt;
  }
  return s;
}

bool OracleSet::needs_solver() const {
  return has(OracleKind::kBinding) || has(OracleKind::kRename) || has(OracleKind::kMemo) ||
         has(OracleKind::kTv);
}

std::string OracleSet::str() const {
  std::string out;
  for (OracleKind k : all_oracle_kinds()) {
    if (has(k)) out += (out.empty() ? "" : ",") + std::string(oracle_name(k));
  }
  return out.empty() ? "none" : out;
}

}  // namespace sf::oracles
