// The shared bound on a program's run (see run_limits.h).
#include "engine/program/run_limits.h"

#include <string>

#include "engine/base/errors.h"

namespace sf::program {

void LoopBudget::spend_iteration() {
  if (++spent_ > kMaxLoopIterationsPerRun) {
    throw_user_error(UserErrorKind::kTooComplex, "while_loop: the program's loops ran more than " +
                                                     std::to_string(kMaxLoopIterationsPerRun) +
                                                     " " + kLoopBudgetMessage +
                                                     " (nested loops count each inner iteration)");
  }
}

}  // namespace sf::program
