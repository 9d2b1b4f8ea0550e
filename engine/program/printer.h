// Canonical .sfz text for programs and expressions: parse_program(print_program(p)) == p for
// every AST the parser can produce, and print_program(parse_program(t)) == t for canonical t.
#pragma once

#include <string>

#include "engine/program/ast.h"

namespace sf::program {

std::string print_program(const Program& program);  // every line ends with '\n'
std::string print_expr(const Expr& expr);
std::string print_input(const InputDecl& decl);            // one line, no '\n'
std::string print_stmt(const Stmt& stmt, int indent = 0);  // its lines, each ending with '\n'
// True for the ops with operator syntax (`+`, `~`, `==`...); an infix flag on any other op is
// not representable in text.
bool has_operator_syntax(OpKind op);

}  // namespace sf::program
