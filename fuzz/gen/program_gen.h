// Random data-dependent programs (generator = policy + construction + repair, YARPGen style):
// inputs with dynamic/unbacked dims, then statements drawn by family and by each op's ops.def
// weight, with arguments built per op (a switch over every op, so a new op fails to compile
// until the generator can make it); each
// candidate statement is validated on concrete data with the eager reference (against the values
// the earlier statements hold, so generation is linear in length) and replaced when
// eager rejects it, so programs are valid by construction (data-dependent guards still occur on
// purpose, at a low rate).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "engine/eager/eager.h"
#include "engine/program/ast.h"
#include "engine/program/schema.h"
#include "fuzz/fuzz_source.h"

namespace sf::fuzz {

// Which statement kinds the generator draws: an op family (indices 0..7, program::OpFamily order:
// creation, pointwise, reduction, view, join, data-dependent, scalar, mutation), a check (8), a
// static if (9) or a cond / while_loop over generated functions (10). Within a family, ops are
// drawn by their ops.def generator weight.
inline constexpr size_t kCheckStatement = 8;
inline constexpr size_t kIfStatement = 9;
inline constexpr size_t kHigherOrderStatement = 10;  // cond, while_loop, invoke_subgraph, map, scan
inline constexpr size_t kModelFamilyStatement = 11;  // MoE routing, detection, ragged batches

struct ProgramPolicy {
  // Statements drawn: uniform in [min_statements, max_statements] (a draw the generator cannot
  // make valid in 8 attempts is dropped, and a mutation adds up to 4).
  int min_statements = 1;
  int max_statements = 12;
  int max_inputs = 3;
  int max_rank = 3;
  int max_dim = 8;
  // Higher-order bodies: how deeply they nest (2: a cond / while_loop in at most one other) and
  // how many statements a top-level body draws at most (a nested body half as many, 2 at least).
  int max_nesting = 2;
  int max_body_statements = 4;
  std::vector<uint32_t> family_weights = {2, 8, 3, 5, 2, 6, 3, 1, 3, 1, 1, 1};
  // When set, every op statement uses this op (its family's weight still decides how often an
  // op statement is drawn); used to make a program for each row of the op table.
  std::optional<program::OpKind> focus;
  // Swarm testing: ops carrying any of these ops.def features are never drawn as a statement's
  // op (helper sub-expressions, e.g. gt in index's mask or size in a shape, may still use them).
  std::set<program::OpFeature> disabled_features;
};

program::Program generate_program(FuzzSource& src, const ProgramPolicy& policy = {});

// The program and what eager returns for it on the inputs its declarations generate: the
// generator ran every statement already, so the pipeline need not run eager again
// (PipelineOptions::eager_reference). The same program as generate_program.
struct GeneratedProgram {
  program::Program program;
  eager::EagerResult eager;
};
GeneratedProgram generate_program_with_result(FuzzSource& src, const ProgramPolicy& policy = {});

}  // namespace sf::fuzz
