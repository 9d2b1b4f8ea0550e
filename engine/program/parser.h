// Parser for the .sfz program text format (grammar: corpus/README.md). Every malformed input is a
// UserError with "line L:C: ..." — never a crash, a hang or an unbounded allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/program/ast.h"

namespace sf::program {

// Limits that keep hostile input cheap; exceeding one is a kParse error.
inline constexpr size_t kMaxInputBytes = size_t{4} << 20;
inline constexpr int kMaxNesting = 200;          // expression depth, and if-block depth
inline constexpr size_t kMaxStatements = 65536;  // inputs plus statements, nested ones included
inline constexpr size_t kMaxListLength = 4096;   // elements of a list, arguments of a call
inline constexpr int kMaxRank = 8;
inline constexpr int64_t kMaxNumel = int64_t{1} << 24;  // per input, and summed over all inputs

// Parses a whole program. Syntax errors are UserError(kParse); undefined variables, duplicate
// inputs and calls that do not bind to their op's schema are UserError(kInvalidProgram). Both
// messages start with "line L:C: ". Types are not checked here.
Program parse_program(std::string_view text);

// Parses one expression on one line (for tests and tools); names are not checked for definition.
ExprPtr parse_expression(std::string_view text);

}  // namespace sf::program
