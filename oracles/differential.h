// Differential comparison of program results: exact for ints, bools and shapes; a dtype-aware
// tolerance for floats (NaN equals NaN). Returns a description of the first difference.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/program/host_value.h"

namespace sf::oracles {

struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-6;
};

// nullopt when equal; otherwise "output 0: element [3] 1.5 vs 1.25" and the like.
std::optional<std::string> compare_values(const std::vector<program::HostValue>& expected,
                                          const std::vector<program::HostValue>& actual,
                                          const Tolerance& tol = {});

}  // namespace sf::oracles
