// The functions the higher-order ops call must not mutate their operands nor return them (or a
// view of them): torch.cond and torch.while_loop refuse input mutation and aliasing. One static
// rule that eager and the tracer both apply. invoke_subgraph alone may mutate (its mutations are
// functionalized, as upstream auto-functionalizes a region since PR #154072).
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
// With `mutation_allowed`, only a returned alias is a finding.
std::optional<OperandMutation> find_operand_mutation(const FunctionDef& f,
                                                     const std::vector<bool>& tensor_params,
                                                     bool mutation_allowed = false);

// The tensor parameters (indices) some add_ in f's body may mutate, by the same aliasing rule.
std::vector<size_t> mutated_operands(const FunctionDef& f, const std::vector<bool>& tensor_params);

// Throws invalid_program naming the higher-order op (the statement `call` that calls f), the
// function and the operand when f mutates one of its tensor operands (but for invoke_subgraph)
// or returns one.
void check_no_operand_mutation(const FunctionDef& f, const std::vector<bool>& tensor_params,
                               const Stmt& call);

// invoke_subgraph (the statement `call`) of region f: the operands f may mutate, after checking
// that none of them is passed again (invalid_program naming both positions: which value the
// caller would see is not defined). tensors[i]: operand i's tensor, as an identity (null for an
// int), so eager and the tracer apply the one rule to their own values.
std::vector<size_t> region_mutated_operands(const FunctionDef& f,
                                            const std::vector<const void*>& tensors,
                                            const Stmt& call);

}  // namespace sf::program
