// Reporting a finding from a fuzz target (see finding.h).
#include "fuzz/targets/finding.h"

#include <cstdio>
#include <cstdlib>

#include "engine/base/faults.h"

namespace sf::fuzz {

void report_finding(const char* target, const std::string& what) {
  std::fprintf(stderr, "==shapefuzz== FINDING in %s: %s\n", target, what.c_str());
  std::fflush(stderr);
  std::abort();
}

void enable_faults_or_exit() {
  if (std::optional<std::string> error = enable_faults_from_env()) {
    std::fprintf(stderr, "%s\n", error->c_str());
    std::exit(2);
  }
}

}  // namespace sf::fuzz
