// The bound on one run of a program that eager and the plan runner share, so both answer
// too_complex at the same point instead of one of them running for hours.
#pragma once

#include <cstdint>

namespace sf::program {

// while_loop iterations in all, nested loops included: a bound per loop would let two nested
// loops of 10,000 (or 60 nested loops of 2) run 10^8 (2^60) iterations.
inline constexpr int64_t kMaxLoopIterationsPerRun = 10000;

// Part of the too_complex message of a spent loop budget: a limit eager and the plan share, so a
// compiled program that ran past it is a disagreement, not a limit of the reference.
inline constexpr const char* kLoopBudgetMessage = "iterations in all";

// The iterations one run has spent; every interpreter or runner nested in that run shares one.
class LoopBudget {
 public:
  // Counts one more iteration of some while_loop; too_complex past kMaxLoopIterationsPerRun.
  void spend_iteration();

 private:
  int64_t spent_ = 0;
};

}  // namespace sf::program
