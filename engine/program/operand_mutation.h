// The functions the higher-order ops call must not mutate their operands nor return them (or a
// view of them): torch.cond and torch.while_loop refuse input mutation and aliasing. One static
// rule that eager and the tracer both apply.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/program/ast.h"

namespace sf::program {

struct OperandMutation {
  std::string operand;   // the parameter that is mutated or returned
  SourceLoc loc;         // of the add_ that mutates it, or the returned expression
  bool aliased = false;  // returned (as it is or as a view) rather than mutated
};

// The first add_ in f's body whose target is a tensor parameter or a name that may alias one: an
// assignment of it, a view of it, add_'s own result, in either branch of an `if`; or a returned
// value that may alias one. Outputs of a nested higher-order op are new tensors.
// tensor_params[i]: whether parameter i is a tensor.
std::optional<OperandMutation> find_operand_mutation(const FunctionDef& f,
                                                     const std::vector<bool>& tensor_params);

// Throws invalid_program naming the higher-order op (the statement `call` that calls f), the
// function and the operand when f mutates one of its tensor operands or returns one.
void check_no_operand_mutation(const FunctionDef& f, const std::vector<bool>& tensor_params,
                               const Stmt& call);

}  // namespace sf::program
