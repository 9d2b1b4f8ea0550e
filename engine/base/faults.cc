// The fault table and switches.
#include "engine/base/faults.h"

#include <cstdlib>
#include <sstream>

namespace sf {

namespace detail {
uint64_t enabled_faults = 0;
}

const std::vector<FaultInfo>& all_faults() {
  static const std::vector<FaultInfo> table = {
#define SF_FAULT(e, name, pr, what) {Fault::e, name, pr, what},
#include "engine/base/faults.def"
  };
  return table;
}

std::optional<Fault> fault_by_name(std::string_view name) {
  for (const FaultInfo& f : all_faults()) {
    if (name == f.name) return f.fault;
  }
  return std::nullopt;
}

void set_fault(Fault f, bool on) {
  uint64_t bit = uint64_t{1} << static_cast<int>(f);
  detail::enabled_faults = on ? (detail::enabled_faults | bit) : (detail::enabled_faults & ~bit);
}

void clear_faults() { detail::enabled_faults = 0; }

ScopedFaultList::ScopedFaultList(const std::vector<std::string>& names)
    : saved_(detail::enabled_faults) {
  for (const std::string& n : names) {
    if (std::optional<Fault> f = fault_by_name(n)) set_fault(*f, true);
  }
}

std::optional<std::string> enable_faults_from_env() {
  const char* v = std::getenv("SHAPEFUZZ_FAULTS");
  if (!v || !*v) return std::nullopt;
  std::stringstream ss(v);
  std::string name;
  while (std::getline(ss, name, ',')) {
    std::optional<Fault> f = fault_by_name(name);
    if (!f)
      return "unknown fault '" + name +
             "' in SHAPEFUZZ_FAULTS (the names are in engine/base/faults.def)";
    set_fault(*f, true);
  }
  return std::nullopt;
}

}  // namespace sf
