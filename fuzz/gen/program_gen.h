// Random data-dependent programs (generator = policy + construction + repair, YARPGen style):
// inputs with dynamic/unbacked dims, then statements chosen by weighted op families; each
// candidate statement is validated on concrete data with the eager reference and replaced when
// eager rejects it, so programs are valid by construction (data-dependent guards still occur on
// purpose, at a low rate).
#pragma once

#include <cstdint>

#include "engine/program/ast.h"
#include "fuzz/fuzz_source.h"

namespace sf::fuzz {

struct ProgramPolicy {
  int max_statements = 12;
  int max_inputs = 3;
  int max_rank = 3;
  int max_dim = 8;
  // Weights of op families (creation, pointwise, reduction, view, join, data-dependent, scalar,
  // check, mutation, static-if).
  std::vector<uint32_t> family_weights = {2, 8, 3, 5, 2, 6, 3, 3, 1, 1};
};

program::Program generate_program(FuzzSource& src, const ProgramPolicy& policy = {});

}  // namespace sf::fuzz
