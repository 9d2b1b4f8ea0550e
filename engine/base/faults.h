// Fault switches for the bug zoo (faults.def): each re-creates a historical PyTorch bug so the
// oracles can be shown to catch it. All are off unless enabled (tests, or the SHAPEFUZZ_FAULTS
// environment variable, a comma list of names, for any shapefuzz command); a check costs one load.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sf {

enum class Fault {
#define SF_FAULT(e, name, pr, what) e,
#include "engine/base/faults.def"
};

struct FaultInfo {
  Fault fault;
  const char* name;
  int pr;
  const char* what;
};
const std::vector<FaultInfo>& all_faults();
std::optional<Fault> fault_by_name(std::string_view name);

namespace detail {
extern uint64_t enabled_faults;
}
inline bool fault_on(Fault f) {
  return detail::enabled_faults != 0 &&
         (detail::enabled_faults & (uint64_t{1} << static_cast<int>(f)));
}
void set_fault(Fault f, bool on);
void clear_faults();
// Enables the faults named in SHAPEFUZZ_FAULTS; returns an error for an unknown name.
std::optional<std::string> enable_faults_from_env();

// Enables one fault for a scope (tests).
class ScopedFault {
 public:
  explicit ScopedFault(Fault f) : f_(f) { set_fault(f, true); }
  ~ScopedFault() { set_fault(f_, false); }
  ScopedFault(const ScopedFault&) = delete;
  ScopedFault& operator=(const ScopedFault&) = delete;

 private:
  Fault f_;
};

// Turns on the named faults (a program's "# faults:" header) for a scope, on top of any already
// on, and restores the previous set after. Unknown names are ignored (the parser rejects them).
class ScopedFaultList {
 public:
  explicit ScopedFaultList(const std::vector<std::string>& names);
  ~ScopedFaultList() { detail::enabled_faults = saved_; }
  ScopedFaultList(const ScopedFaultList&) = delete;
  ScopedFaultList& operator=(const ScopedFaultList&) = delete;

 private:
  uint64_t saved_;
};

}  // namespace sf
