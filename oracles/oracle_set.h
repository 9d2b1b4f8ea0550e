// Which oracles judge a program: a set parsed from "all" or a comma list of names
// (structural, differential, binding, rename, memo, tv), as `run --oracles` and `campaign
// --oracles` take it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sf::oracles {

enum class OracleKind { kStructural, kDifferential, kBinding, kRename, kMemo, kTv };
const char* oracle_name(OracleKind k);
const std::vector<OracleKind>& all_oracle_kinds();

class OracleSet {
 public:
  static OracleSet all();
  static OracleSet none() { return OracleSet(); }
  // The structural checks and the differential: no solver.
  static OracleSet structural_only();
  // "all" or "binding,rename,..."; nullopt (with *error set) on an unknown name or on none.
  static std::optional<OracleSet> parse(const std::string& text, std::string* error);
  bool has(OracleKind k) const { return bits_ & (1u << static_cast<unsigned>(k)); }
  OracleSet& add(OracleKind k) {
    bits_ |= 1u << static_cast<unsigned>(k);
    return *this;
  }
  bool needs_solver() const;
  std::string str() const;  // "structural,differential,binding"

 private:
  unsigned bits_ = 0;
};

}  // namespace sf::oracles
