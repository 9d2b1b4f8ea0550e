// The recursive-descent parser's state, shared by parser.cc (program, statements, scopes),
// parse_header.cc, parse_expr.cc and parse_input.cc. Not part of the public API.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "engine/program/ast.h"
#include "engine/program/lexer.h"

namespace sf::program::internal {

// Reads the header block: the leading comment and blank lines, the first being "# sfz 1". Leaves
// the lexer on the first line after the block; false when the text ends inside the block.
bool parse_header(Lexer& lex, Header* header);
// "# expect: ...", "# found-by: ...", "# mode: ..." or "# sfz N" at column 1 (only legal in the
// header block; elsewhere a parse error rather than a silently ignored comment).
bool is_header_directive(std::string_view line);

[[noreturn]] void fail_invalid(SourceLoc loc, const std::string& message);

// An expression and the depth of its tree (the depth limit keeps printing and destruction, which
// recurse, within a small stack).
struct Node {
  ExprPtr expr;
  int depth = 1;
};

class Parser {
 public:
  // The lexer stands on the first line to parse (done: there is none). check_names: reject
  // variables that are not defined (off for parse_expression).
  Parser(Lexer& lex, bool done, bool check_names);

  std::vector<InputDecl> inputs();
  // The `def` blocks after the inputs (each sees only its parameters and earlier functions).
  std::vector<FunctionDef> functions();
  std::vector<Stmt> body();
  // One expression, then the end of the line and of the text (parse_expression).
  ExprPtr lone_expression();

 private:
  // Cursor: the current (non-blank) line and its tokens.
  const Token& peek(size_t ahead = 0) { return lex_.peek(ahead); }
  Token take() { return lex_.take(); }
  bool at_punct(std::string_view p, size_t ahead = 0);
  bool at_name(std::string_view n, size_t ahead = 0);
  bool accept_punct(std::string_view p);
  Token expect_punct(std::string_view p, std::string_view context);
  Token expect_name(std::string_view context);  // an identifier that is not a keyword
  void expect_keyword(std::string_view word, std::string_view context);
  void expect_end(std::string_view context);
  void next_line();  // to the next non-blank line, or done_
  [[noreturn]] void fail(SourceLoc at, const std::string& message) const;
  [[noreturn]] void fail_expected(std::string_view what);  // "expected WHAT, found TOKEN"
  void count_statement(SourceLoc loc);

  // Statements (parser.cc).
  std::vector<Stmt> block(int indent, int depth);
  Stmt statement(int indent, int depth);
  Stmt if_statement(int indent, int depth);
  std::vector<Stmt> nested_block(int indent, int depth, SourceLoc header);
  Stmt check_statement(SourceLoc loc);
  Stmt check_is_size_statement(SourceLoc loc);
  // `targets = cond(...)` / `while_loop(...)` / `invoke_subgraph(...)` after the '='.
  void higher_order_call(Stmt& s);
  std::string function_name(std::string_view context);

  // Expressions (parse_expr.cc), lowest to highest precedence.
  Node expression();
  Node logical_or();
  Node logical_and();
  Node logical_not();
  Node comparison();
  Node additive();
  Node multiplicative();
  Node unary();
  Node primary();
  Node call(const Token& name);
  Node list();
  Node number(const Token& tok, bool negative, SourceLoc loc);
  Node operation(OpKind op, std::vector<Node> operands, SourceLoc loc);
  void enter(SourceLoc at);  // recursion guard, paired with leave()
  void leave() { --nesting_; }

  // Inputs (parse_input.cc).
  InputDecl input_decl();
  int64_t input_type(InputDecl* decl);  // returns numel (1 for a scalar)
  double data_value(DType dtype, std::string_view context);
  DataSpec tensor_data(const std::string& input, DType dtype, int64_t numel);
  int64_t int_literal(std::string_view context);
  int64_t seed_argument();

  // Scopes: the names defined so far; each open block records the names it added.
  void define(const std::string& name);
  void use(const Token& name) const;

  Lexer& lex_;
  bool done_;
  bool check_names_;
  int nesting_ = 0;
  size_t statements_ = 0;
  int64_t total_numel_ = 0;
  std::unordered_set<std::string> defined_;
  std::vector<std::vector<std::string>> added_;
  std::unordered_set<std::string> functions_;  // the `def` names so far
};

bool is_keyword(std::string_view name);

}  // namespace sf::program::internal
