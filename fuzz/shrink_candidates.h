// Internal to the program shrinker: the candidate lists of each pass (one small edit each) and
// the edits they share. shrink_statements.cc: statements, returns, functions and the calls of
// cond/while_loop; shrink_values.cc: values, inlining, inputs.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/program/ast.h"

namespace sf::fuzz::shrink {

using Candidates = std::vector<program::Program>;

// Remove a statement; replace an `if` by one of its branches (any nesting depth).
Candidates statement_candidates(const program::Program& p);
// One returned value dropped, or 0 returned in its place.
Candidates return_candidates(const program::Program& p);
// The higher-order calls: a cond's branch inlined or its predicate kept, a while_loop that stops
// at once, then replaced by its carries.
Candidates function_candidates(const program::Program& p);
// A subexpression replaced by a simpler form or an input, or a variable by its definition's
// operands.
Candidates value_candidates(const program::Program& p);
// A copy, a constant or a value read once inlined into the statements after it.
Candidates inline_candidates(const program::Program& p);
// Inputs: every dim of one size shrunk together (to 1 or to half), an unused input removed, and
// one input's declaration made plainer.
Candidates input_candidates(const program::Program& p);

// Calls `edit` on every statement list (the body and nested branches) with a copy of the program
// in which that list can be changed: `edit(copy, list_in_copy)`.
void for_each_list(const program::Program& p,
                   const std::function<void(program::Program&, std::vector<program::Stmt>&)>& edit);
// `e` with each variable named in `names` replaced.
program::ExprPtr substitute(const program::ExprPtr& e,
                            const std::map<std::string, program::ExprPtr>& names);

}  // namespace sf::fuzz::shrink
