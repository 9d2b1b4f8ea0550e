// .sfz program parser: header, input declarations, indentation-structured statements, scopes.
// Expressions are in parse_expr.cc and input declarations in parse_input.cc.
#include "engine/program/parser.h"

#include <unordered_set>

#include "engine/base/errors.h"
#include "engine/program/parser_internal.h"

namespace sf::program {

namespace internal {

bool is_keyword(std::string_view name) {
  static const std::unordered_set<std::string_view> kKeywords = {
      "input", "if",   "else", "return", "check", "check_is_size", "pass", "True",
      "False", "None", "f32",  "i64",    "bool",  "inf",           "nan",  "def"};
  return kKeywords.count(name) > 0;
}

void fail_invalid(SourceLoc loc, const std::string& message) {
  throw UserError(UserErrorKind::kInvalidProgram, "line " + std::to_string(loc.line) + ":" +
                                                      std::to_string(loc.col) + ": " + message);
}

Parser::Parser(Lexer& lex, bool done, bool check_names)
    : lex_(lex), done_(done), check_names_(check_names) {
  added_.emplace_back();
}

// ---- cursor ----

bool Parser::at_punct(std::string_view p, size_t ahead) {
  const Token& t = peek(ahead);
  return t.kind == TokKind::kPunct && t.text == p;
}

bool Parser::at_name(std::string_view n, size_t ahead) {
  const Token& t = peek(ahead);
  return t.kind == TokKind::kName && t.text == n;
}

bool Parser::accept_punct(std::string_view p) {
  if (!at_punct(p)) return false;
  take();
  return true;
}

Token Parser::expect_punct(std::string_view p, std::string_view context) {
  if (!at_punct(p)) fail_expected("'" + std::string(p) + "' " + std::string(context));
  return take();
}

Token Parser::expect_name(std::string_view context) {
  const Token& t = peek();
  if (t.kind != TokKind::kName) fail_expected("a name " + std::string(context));
  if (is_keyword(t.text)) {
    fail(t.loc, "expected a name " + std::string(context) + ", found keyword '" + t.text + "'");
  }
  return take();
}

void Parser::expect_keyword(std::string_view word, std::string_view context) {
  if (!at_name(word)) fail_expected("'" + std::string(word) + "' " + std::string(context));
  take();
}

void Parser::expect_end(std::string_view context) {
  if (peek().kind != TokKind::kEnd) fail_expected("end of line " + std::string(context));
}

void Parser::next_line() {
  while (true) {
    if (!lex_.next_line()) {
      done_ = true;
      return;
    }
    if (!lex_.blank()) return;
    if (is_header_directive(lex_.raw())) {
      fail(SourceLoc{lex_.line_number(), 1},
           "header line after the header block (move it to the top of the file, before inputs)");
    }
  }
}

void Parser::fail(SourceLoc at, const std::string& message) const {
  throw_parse_error(at, message);
}

void Parser::fail_expected(std::string_view what) {
  const Token& t = peek();
  fail(t.loc, "expected " + std::string(what) + ", found " + describe(t));
}

void Parser::count_statement(SourceLoc loc) {
  if (++statements_ > kMaxStatements) {
    fail(loc, "too many statements (the limit is " + std::to_string(kMaxStatements) + ")");
  }
}

// ---- scopes ----

void Parser::define(const std::string& name) {
  if (defined_.insert(name).second) added_.back().push_back(name);
}

void Parser::use(const Token& name) const {
  if (check_names_ && defined_.count(name.text) == 0) {
    fail_invalid(name.loc, "undefined variable '" + name.text +
                               "' (define it by an input or an assignment before this line; a name "
                               "assigned in only one branch of an if is undefined after it)");
  }
}

// ---- program and statements ----

std::vector<InputDecl> Parser::inputs() {
  std::vector<InputDecl> out;
  while (!done_ && at_name("input")) {
    if (lex_.indent() != 0) fail(SourceLoc{lex_.line_number(), 1}, "unexpected indentation");
    InputDecl decl = input_decl();
    if (defined_.count(decl.name) != 0)
      fail_invalid(decl.loc, "duplicate input '" + decl.name + "'");
    define(decl.name);
    out.push_back(std::move(decl));
    next_line();
  }
  return out;
}

std::vector<FunctionDef> Parser::functions() {
  std::vector<FunctionDef> out;
  while (!done_ && at_name("def")) {
    if (lex_.indent() != 0) fail(SourceLoc{lex_.line_number(), 1}, "unexpected indentation");
    FunctionDef f;
    f.loc = take().loc;
    Token name = expect_name("after 'def'");
    f.name = name.text;
    if (functions_.count(f.name) || defined_.count(f.name)) {
      fail_invalid(name.loc, "'" + f.name + "' is already defined");
    }
    expect_punct("(", "after the function name");
    if (!at_punct(")")) {
      do {
        if (f.params.size() >= kMaxListLength) fail(peek().loc, "too many parameters");
        Token p = expect_name("as a parameter");
        for (const std::string& q : f.params) {
          if (q == p.text) fail_invalid(p.loc, "duplicate parameter '" + p.text + "'");
        }
        f.params.push_back(p.text);
      } while (accept_punct(","));
    }
    expect_punct(")", "after the parameters");
    expect_punct(":", "after 'def ...(...)'");
    expect_end("after 'def ...:' (the body goes on the following lines)");
    next_line();
    // The body sees its parameters only: what a branch or loop body reads comes in as operands.
    std::unordered_set<std::string> outer = std::move(defined_);
    defined_.clear();
    added_.emplace_back();
    for (const std::string& p : f.params) define(p);
    if (done_ || lex_.indent() == 0) {
      fail(done_ ? lex_.end_loc() : SourceLoc{lex_.line_number(), 1},
           "expected the indented body of function '" + f.name + "'");
    }
    f.body = block(lex_.indent(), 0);
    if (!done_ && lex_.indent() != 0) {
      fail(SourceLoc{lex_.line_number(), 1}, "dedent does not match any outer indentation level");
    }
    if (f.body.empty() || f.body.back().kind != Stmt::Kind::kReturn) {
      fail(f.loc, "function '" + f.name + "' must end with a 'return' statement");
    }
    added_.pop_back();
    defined_ = std::move(outer);
    functions_.insert(f.name);
    out.push_back(std::move(f));
  }
  return out;
}

std::string Parser::function_name(std::string_view context) {
  Token t = expect_name(context);
  if (!functions_.count(t.text)) {
    fail_invalid(t.loc,
                 "'" + t.text + "' is not a function defined above (" + std::string(context) + ")");
  }
  return t.text;
}

void Parser::higher_order_call(Stmt& s) {
  s.kind = at_name("cond")               ? Stmt::Kind::kCond
           : at_name("while_loop")       ? Stmt::Kind::kWhileLoop
           : at_name("map")              ? Stmt::Kind::kMap
           : at_name("scan")             ? Stmt::Kind::kScan
           : at_name("associative_scan") ? Stmt::Kind::kAssociativeScan
                                         : Stmt::Kind::kInvokeSubgraph;
  const std::string name = higher_order_name(s.kind);
  take();
  expect_punct("(", "after '" + name + "'");
  if (s.kind == Stmt::Kind::kCond) {
    s.value = expression().expr;
    expect_punct(",", "after cond's predicate");
    s.functions.push_back(function_name("as cond's true branch"));
    expect_punct(",", "after cond's true branch");
    s.functions.push_back(function_name("as cond's false branch"));
  } else if (s.kind == Stmt::Kind::kWhileLoop) {
    s.functions.push_back(function_name("as while_loop's condition"));
    expect_punct(",", "after while_loop's condition");
    s.functions.push_back(function_name("as while_loop's body"));
  } else if (s.kind == Stmt::Kind::kMap) {
    s.functions.push_back(function_name("as map's function"));
  } else if (s.kind == Stmt::Kind::kAssociativeScan) {
    s.functions.push_back(function_name("as associative_scan's combine function"));
  } else if (s.kind == Stmt::Kind::kScan) {
    s.functions.push_back(function_name("as scan's combine function"));
    expect_punct(",", "then scan's list of initial carries");
    expect_punct("[", "to open scan's list of initial carries");
    if (!at_punct("]")) {
      do {
        if (s.operands.size() >= kMaxListLength) fail(peek().loc, "too many carries");
        s.operands.push_back(expression().expr);
      } while (accept_punct(","));
    }
    expect_punct("]", "to close scan's list of initial carries");
    s.carries = s.operands.size();
  } else {
    s.functions.push_back(function_name("as invoke_subgraph's region"));
  }
  expect_punct(",", std::string("then the operand list of ") + name);
  expect_punct("[", std::string("to open the operand list of ") + name);
  if (!at_punct("]")) {
    do {
      if (s.operands.size() >= kMaxListLength) fail(peek().loc, "too many operands");
      s.operands.push_back(expression().expr);
    } while (accept_punct(","));
  }
  expect_punct("]", std::string("to close the operand list of ") + name);
  if (s.kind == Stmt::Kind::kAssociativeScan) {
    expect_punct(",", "then associative_scan's dim (an int literal)");
    s.dim = int_literal("as associative_scan's dim");
  }
  expect_punct(")", std::string("to close ") + name + "(...)");
}

std::vector<Stmt> Parser::body() {
  std::vector<Stmt> out = block(0, 0);
  if (out.empty() || out.back().kind != Stmt::Kind::kReturn) {
    fail(lex_.end_loc(), "expected a 'return' statement at the end of the program");
  }
  return out;
}

std::vector<Stmt> Parser::block(int indent, int depth) {
  std::vector<Stmt> out;
  while (!done_) {
    int ind = lex_.indent();
    if (ind < indent) break;
    if (ind > indent) {
      fail(SourceLoc{lex_.line_number(), indent + 1},
           "unexpected indentation (expected " + std::to_string(indent) + " spaces)");
    }
    out.push_back(statement(indent, depth));
    if (out.back().kind == Stmt::Kind::kReturn && !done_ && lex_.indent() >= indent) {
      fail(peek().loc, "statement after 'return' (return must be the last statement)");
    }
  }
  return out;
}

Stmt Parser::statement(int indent, int depth) {
  const Token& t = peek();
  SourceLoc loc = t.loc;
  count_statement(loc);
  if (t.kind != TokKind::kName) fail_expected("a statement");
  if (t.text == "if") return if_statement(indent, depth);
  if (t.text == "check") return check_statement(loc);
  if (t.text == "check_is_size") return check_is_size_statement(loc);
  if (t.text == "else") fail(loc, "'else' without a matching 'if' at this indentation");
  if (t.text == "input") fail(loc, "input declarations must come before all statements");
  if (t.text == "def") fail(loc, "functions must be defined after the inputs, before statements");
  if (t.text == "pass") fail(loc, "'pass' may only be the sole statement of an if/else block");
  Stmt s;
  s.loc = loc;
  if (t.text == "return") {
    take();
    if (depth > 0) fail(loc, "'return' is only allowed as the last top-level statement");
    s.kind = Stmt::Kind::kReturn;
    if (peek().kind != TokKind::kEnd) {
      do {
        if (s.returns.size() >= kMaxListLength) fail(peek().loc, "too many return values");
        s.returns.push_back(expression().expr);
      } while (accept_punct(","));
    }
    expect_end("after the return values");
    next_line();
    return s;
  }
  s.kind = Stmt::Kind::kAssign;
  std::vector<Token> targets;
  do {
    if (targets.size() >= kMaxListLength) fail(peek().loc, "too many assignment targets");
    targets.push_back(expect_name("as an assignment target"));
  } while (accept_punct(","));
  expect_punct("=", "after the assignment target");
  if ((at_name("cond") || at_name("while_loop") || at_name("invoke_subgraph") || at_name("map") ||
       at_name("scan") || at_name("associative_scan")) &&
      at_punct("(", 1)) {
    higher_order_call(s);
  } else {
    s.value = expression().expr;
  }
  expect_end("after the expression");
  for (const Token& target : targets) {
    s.targets.push_back(target.text);
    define(target.text);
  }
  next_line();
  return s;
}

Stmt Parser::check_statement(SourceLoc loc) {
  take();
  Stmt s;
  s.kind = Stmt::Kind::kCheck;
  s.loc = loc;
  expect_punct("(", "after 'check'");
  s.value = expression().expr;
  expect_punct(",", "then a message string in check(cond, \"message\")");
  if (peek().kind != TokKind::kString)
    fail_expected("a message string in check(cond, \"message\")");
  s.message = take().text;
  expect_punct(")", "after the check message");
  expect_end("after check(...)");
  next_line();
  return s;
}

Stmt Parser::check_is_size_statement(SourceLoc loc) {
  take();
  Stmt s;
  s.kind = Stmt::Kind::kCheckIsSize;
  s.loc = loc;
  expect_punct("(", "after 'check_is_size'");
  s.value = expression().expr;
  if (accept_punct(",")) {
    expect_keyword("max", "in check_is_size(n, max=m)");
    expect_punct("=", "after 'max'");
    s.max = expression().expr;
  }
  expect_punct(")", "to close check_is_size(...)");
  expect_end("after check_is_size(...)");
  next_line();
  return s;
}

Stmt Parser::if_statement(int indent, int depth) {
  Token kw = take();
  if (depth + 1 > kMaxNesting) {
    fail(kw.loc, "if blocks nested too deeply (the limit is " + std::to_string(kMaxNesting) + ")");
  }
  Stmt s;
  s.kind = Stmt::Kind::kIf;
  s.loc = kw.loc;
  s.value = expression().expr;
  expect_punct(":", "after the if condition");
  expect_end("after 'if ...:' (the block goes on the following lines)");
  next_line();
  added_.emplace_back();
  s.then_body = nested_block(indent, depth + 1, kw.loc);
  std::vector<std::string> then_added = std::move(added_.back());
  added_.pop_back();
  for (const auto& name : then_added) defined_.erase(name);
  std::unordered_set<std::string> else_added;
  if (!done_ && lex_.indent() == indent && at_name("else")) {
    Token else_kw = take();
    expect_punct(":", "after 'else'");
    expect_end("after 'else:' (the block goes on the following lines)");
    next_line();
    added_.emplace_back();
    s.else_body = nested_block(indent, depth + 1, else_kw.loc);
    for (auto& name : added_.back()) {
      defined_.erase(name);
      else_added.insert(std::move(name));
    }
    added_.pop_back();
  }
  // After the if, a name is defined when both branches define it.
  for (const auto& name : then_added) {
    if (else_added.count(name) != 0) define(name);
  }
  return s;
}

std::vector<Stmt> Parser::nested_block(int indent, int depth, SourceLoc header) {
  if (done_ || lex_.indent() <= indent) {
    fail(done_ ? lex_.end_loc() : SourceLoc{lex_.line_number(), 1},
         "expected an indented block for the statement at line " + std::to_string(header.line) +
             " (write 'pass' for an empty block)");
  }
  int inner = lex_.indent();
  std::vector<Stmt> out;
  bool pass = at_name("pass");
  if (pass) {
    count_statement(peek().loc);
    take();
    expect_end("after 'pass'");
    next_line();
  } else {
    out = block(inner, depth);
  }
  if (!done_ && lex_.indent() > indent) {
    SourceLoc at{lex_.line_number(), 1};
    if (lex_.indent() < inner) fail(at, "dedent does not match any outer indentation level");
    if (pass && lex_.indent() == inner) {
      fail(at, "'pass' may only be the sole statement of an if/else block");
    }
    fail(at, "unexpected indentation");
  }
  return out;
}

ExprPtr Parser::lone_expression() {
  ExprPtr e = expression().expr;
  expect_end("after the expression");
  while (lex_.next_line()) {
    if (!lex_.blank()) fail(SourceLoc{lex_.line_number(), 1}, "expected a single expression");
  }
  return e;
}

}  // namespace internal

Program parse_program(std::string_view text) {
  if (text.size() > kMaxInputBytes) {
    throw_parse_error(SourceLoc{1, 1}, "input of " + std::to_string(text.size()) +
                                           " bytes is above the limit of 4 MiB");
  }
  Program program;
  Lexer lex(text);
  bool more = internal::parse_header(lex, &program.header);
  internal::Parser parser(lex, !more, /*check_names=*/true);
  program.inputs = parser.inputs();
  program.functions = parser.functions();
  program.body = parser.body();
  return program;
}

ExprPtr parse_expression(std::string_view text) {
  if (text.size() > kMaxInputBytes) throw_parse_error(SourceLoc{1, 1}, "input above 4 MiB");
  Lexer lex(text);
  lex.next_line();
  internal::Parser parser(lex, false, /*check_names=*/false);
  return parser.lone_expression();
}

}  // namespace sf::program
