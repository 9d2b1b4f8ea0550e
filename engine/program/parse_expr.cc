// Expression parsing by precedence climbing, lowest first: | & ~ comparisons + - * / // % unary-
// primary; which operator is which op comes from ops.def's Syntax column. Infix operators become
// infix calls; every call is bound against its op's schema.
#include <algorithm>
#include <optional>

#include "engine/program/number_text.h"
#include "engine/program/parser.h"
#include "engine/program/parser_internal.h"
#include "engine/program/schema.h"

namespace sf::program::internal {

namespace {

// The op whose operator (ops.def Syntax) at this precedence level is the token, if any.
std::optional<OpKind> operator_at(Precedence level, const Token& t) {
  if (t.kind != TokKind::kPunct) return std::nullopt;
  return op_by_operator(level, t.text);
}

}  // namespace

void Parser::enter(SourceLoc at) {
  if (++nesting_ > kMaxNesting) {
    fail(at, "expression nested too deeply (the limit is " + std::to_string(kMaxNesting) + ")");
  }
}

Node Parser::operation(OpKind op, std::vector<Node> operands, SourceLoc loc) {
  int depth = 1;
  std::vector<ExprPtr> args;
  for (Node& n : operands) {
    depth = std::max(depth, n.depth + 1);
    args.push_back(std::move(n.expr));
  }
  if (depth > kMaxNesting) {
    fail(loc, "expression nested too deeply (the limit is " + std::to_string(kMaxNesting) + ")");
  }
  return Node{Expr::call(op, std::move(args), {}, /*infix=*/true, loc), depth};
}

Node Parser::expression() { return logical_or(); }

Node Parser::logical_or() {
  Node n = logical_and();
  while (std::optional<OpKind> o = operator_at(Precedence::kOr, peek())) {
    Token op = take();
    n = operation(*o, {std::move(n), logical_and()}, op.loc);
  }
  return n;
}

Node Parser::logical_and() {
  Node n = logical_not();
  while (std::optional<OpKind> o = operator_at(Precedence::kAnd, peek())) {
    Token op = take();
    n = operation(*o, {std::move(n), logical_not()}, op.loc);
  }
  return n;
}

Node Parser::logical_not() {
  std::optional<OpKind> o = operator_at(Precedence::kNot, peek());
  if (!o) return comparison();
  Token op = take();
  enter(op.loc);
  Node inner = logical_not();
  leave();
  return operation(*o, {std::move(inner)}, op.loc);
}

Node Parser::comparison() {
  Node n = additive();
  std::optional<OpKind> cmp = operator_at(Precedence::kComparison, peek());
  if (!cmp) return n;
  Token op = take();
  n = operation(*cmp, {std::move(n), additive()}, op.loc);
  if (operator_at(Precedence::kComparison, peek())) {
    fail(peek().loc, "comparisons cannot be chained; write (a < b) & (b < c)");
  }
  return n;
}

Node Parser::additive() {
  Node n = multiplicative();
  while (std::optional<OpKind> add = operator_at(Precedence::kAdditive, peek())) {
    Token op = take();
    n = operation(*add, {std::move(n), multiplicative()}, op.loc);
  }
  return n;
}

Node Parser::multiplicative() {
  Node n = unary();
  while (std::optional<OpKind> mul = operator_at(Precedence::kMultiplicative, peek())) {
    Token op = take();
    n = operation(*mul, {std::move(n), unary()}, op.loc);
  }
  return n;
}

Node Parser::unary() {
  std::optional<OpKind> o = operator_at(Precedence::kPrefix, peek());
  if (!o) return primary();
  Token op = take();
  // In operand position '-' followed by a number is part of the literal: -3 is an int, -(3) a neg.
  if (peek().kind == TokKind::kInt || peek().kind == TokKind::kFloat) {
    return number(take(), /*negative=*/true, op.loc);
  }
  enter(op.loc);
  Node inner = unary();
  leave();
  return operation(*o, {std::move(inner)}, op.loc);
}

Node Parser::number(const Token& tok, bool negative, SourceLoc loc) {
  if (tok.kind == TokKind::kInt) {
    auto v = int_from_digits(tok.text, negative);
    if (!v) fail(loc, "integer literal out of the int64 range");
    return Node{Expr::integer(*v, loc), 1};
  }
  auto v = double_from_text(tok.text);
  if (!v) fail(loc, "float literal out of the double range");
  return Node{Expr::floating(negative ? -*v : *v, loc), 1};
}

Node Parser::primary() {
  const Token& t = peek();
  SourceLoc loc = t.loc;
  switch (t.kind) {
    case TokKind::kInt:
    case TokKind::kFloat:
      return number(take(), /*negative=*/false, loc);
    case TokKind::kString:
      return Node{Expr::string(take().text, loc), 1};
    case TokKind::kPunct:
      if (t.text == "[") return list();
      if (t.text == "(") {
        take();
        enter(loc);
        Node inner = expression();
        expect_punct(")", "to close the '(' at column " + std::to_string(loc.col));
        leave();
        return inner;
      }
      fail_expected("an expression");
    case TokKind::kEnd:
      fail_expected("an expression");
    case TokKind::kName:
      break;
  }
  if (t.text == "True" || t.text == "False") {
    bool v = t.text == "True";
    take();
    return Node{Expr::boolean(v, loc), 1};
  }
  if (t.text == "None") {
    take();
    return Node{Expr::none(loc), 1};
  }
  if (auto d = dtype_from_name(t.text)) {
    take();
    return Node{Expr::dtype_lit(*d, loc), 1};
  }
  if (t.text == "inf" || t.text == "nan") {
    fail(loc, "'" + t.text + "' is not a literal: .sfz has only finite float literals");
  }
  if (is_keyword(t.text)) fail(loc, "expected an expression, found keyword '" + t.text + "'");
  if (at_punct("(", 1)) return call(take());
  Token name = take();
  use(name);
  return Node{Expr::var(name.text, loc), 1};
}

Node Parser::call(const Token& name) {
  auto op = op_by_name(name.text);
  if (!op) {
    fail(name.loc, "unknown op '" + name.text + "' (the ops are listed in engine/program/ops.def)");
  }
  take();  // '('
  enter(name.loc);
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  int depth = 1;
  if (!at_punct(")")) {
    do {
      if (args.size() + kwargs.size() >= kMaxListLength) fail(peek().loc, "too many arguments");
      if (peek().kind == TokKind::kName && at_punct("=", 1)) {
        std::string key = take().text;
        take();  // '='
        Node v = expression();
        depth = std::max(depth, v.depth + 1);
        kwargs.emplace_back(std::move(key), std::move(v.expr));
      } else {
        if (!kwargs.empty()) fail(peek().loc, "positional argument after a keyword argument");
        Node v = expression();
        depth = std::max(depth, v.depth + 1);
        args.push_back(std::move(v.expr));
      }
    } while (accept_punct(","));
  }
  if (!at_punct(")")) fail_expected("',' or ')' in the arguments of " + name.text + "(...)");
  take();
  leave();
  if (depth > kMaxNesting) fail(name.loc, "expression nested too deeply");
  ExprPtr e = Expr::call(*op, std::move(args), std::move(kwargs), /*infix=*/false, name.loc);
  bind_call(*e);  // arity and keyword names: UserError(kInvalidProgram, "line L:C: ...")
  return Node{e, depth};
}

Node Parser::list() {
  Token open = take();
  enter(open.loc);
  std::vector<ExprPtr> elems;
  int depth = 1;
  if (!at_punct("]")) {
    do {
      if (elems.size() >= kMaxListLength) fail(peek().loc, "list longer than the limit");
      Node v = expression();
      depth = std::max(depth, v.depth + 1);
      elems.push_back(std::move(v.expr));
    } while (accept_punct(","));
  }
  if (!at_punct("]")) fail_expected("',' or ']' in the list");
  take();
  leave();
  if (depth > kMaxNesting) fail(open.loc, "expression nested too deeply");
  return Node{Expr::list(std::move(elems), open.loc), depth};
}

}  // namespace sf::program::internal
