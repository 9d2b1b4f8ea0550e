// The eager reference interpreter: runs a program on concrete CPU tensors (docs/ops.md semantics).
// It is the ground truth for program results and for which checks fail; it never sees symbols.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/program/ast.h"
#include "engine/program/host_value.h"

namespace sf::eager {

struct EagerResult {
  // One entry per returned expression; a returned tuple value (unique with counts, tolist) stays
  // one tuple entry. Empty when the program has no return.
  std::vector<program::HostValue> outputs;
};

// Runs `p` with the given value for each declared input (by name). Every user-visible failure is a
// sf::UserError whose kind follows docs/ops.md: an input missing, undeclared or not matching its
// declaration is kInvalidProgram. Tensor inputs are copied, so add_ never changes `inputs`.
EagerResult run_eager(const program::Program& p,
                      const std::map<std::string, program::HostValue>& inputs);

// Runs `p` on the inputs its declarations generate (program::make_input_values).
EagerResult run_eager(const program::Program& p);

}  // namespace sf::eager
