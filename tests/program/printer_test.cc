// Printer: parse(print(p)) == p for programs using every op (as calls and, where they have one,
// as operators) and every statement kind, and print(parse(t)) == t for canonical text.
#include "engine/program/printer.h"

#include <gtest/gtest.h>

#include "engine/program/parser.h"
#include "engine/program/schema.h"

namespace sf::program {
namespace {

ExprPtr v(const char* name) { return Expr::var(name); }

// A plausible argument for each parameter kind (types are not checked by the parser anyway).
ExprPtr arg_for(ParamKind kind) {
  switch (kind) {
    case ParamKind::kTensor:
      return v("x");
    case ParamKind::kScalar:
    case ParamKind::kInt:
      return v("n");
    case ParamKind::kAny:
      return Expr::floating(2.5);
    case ParamKind::kInts:
      return Expr::list({Expr::integer(2), Expr::integer(-1)});
    case ParamKind::kDim:
      return Expr::integer(-1);
    case ParamKind::kDims:
      return Expr::list({Expr::integer(0), Expr::integer(1)});
    case ParamKind::kTensors:
      return Expr::list({v("x"), v("x")});
    case ParamKind::kDType:
      return Expr::dtype_lit(DType::kInt64);
    case ParamKind::kFlag:
      return Expr::boolean(true);
    case ParamKind::kStr:
      return Expr::string("s");
  }
  return Expr::none();
}

Stmt assign(std::string name, ExprPtr value) {
  Stmt s;
  s.targets = {std::move(name)};
  s.value = std::move(value);
  return s;
}

// Every op two or three ways: required arguments only; all arguments with the first optional
// one positional and the rest as keywords; and, for operator ops, the infix form.
Program every_op_program() {
  Program p;
  p.header.expect = "error shape \"x\\n\"";
  p.header.found_by = "printer_test";
  InputDecl x;
  x.name = "x";
  x.sizes = {2, 3};
  x.dims = {DimMode::kDynamic, DimMode::kStatic};
  x.data.kind = DataSpec::Kind::kRandn;
  x.data.seed = 1;
  InputDecl n;
  n.name = "n";
  n.is_tensor = false;
  n.dtype = DType::kInt64;
  n.scalar_mode = DimMode::kDynamic;
  n.data.literal = {2};
  p.inputs = {x, n};
  for (OpKind op : all_ops()) {
    const OpSchema& s = schema(op);
    std::vector<ExprPtr> required, all;
    std::vector<std::pair<std::string, ExprPtr>> kwargs;
    bool first_optional = true;
    for (const Param& param : s.params) {
      if (!param.optional) {
        required.push_back(arg_for(param.kind));
        all.push_back(arg_for(param.kind));
      } else if (first_optional) {
        all.push_back(arg_for(param.kind));
        first_optional = false;
      } else {
        kwargs.emplace_back(param.name, arg_for(param.kind));
      }
    }
    p.body.push_back(assign(s.name + "_req", Expr::call(op, required)));
    p.body.push_back(assign(s.name + "_all", Expr::call(op, all, kwargs)));
    if (has_operator_syntax(op)) {
      p.body.push_back(assign(s.name + "_infix", Expr::call(op, required, {}, /*infix=*/true)));
    }
  }
  return p;
}

TEST(PrinterTest, EveryOpRoundTrips) {
  Program p = every_op_program();
  std::string text = print_program(p);
  Program q = parse_program(text + "return\n");  // the body needs a return; add it to both sides
  Stmt ret;
  ret.kind = Stmt::Kind::kReturn;
  p.body.push_back(ret);
  EXPECT_TRUE(q == p) << text;
  EXPECT_EQ(print_program(q), text + "return\n");
  for (OpKind op : all_ops()) {
    EXPECT_NE(text.find(std::string(op_name(op)) + "_req = "), std::string::npos) << op_name(op);
  }
  EXPECT_NE(text.find("add_infix = 2.5 + 2.5\n"), std::string::npos);
  EXPECT_NE(text.find("neg_infix = -(2.5)\n"), std::string::npos);
  EXPECT_NE(text.find("logical_not_infix = ~2.5\n"), std::string::npos);
}

TEST(PrinterTest, CanonicalTextIsAFixedPoint) {
  const char* texts[] = {
      "# sfz 1\n"
      "# expect: error check_failed \"tab\\there\"\n"
      "# found-by: pipeline seed=3 rev=abc\n"
      "# mode: inference\n"
      "input x: f32[2, 0] unbacked(1) = []\n"
      "input y: bool[] = [True]\n"
      "input z: i64[3] = [-1, 0, 9007199254740992]\n"
      "input w: f32[2] = [0.1, -2.5e-07]\n"
      "input k: i64 = -3\n"
      "a, b = unique(x, return_counts=True)\n"
      "check(y, \"\\\"quoted\\\"\")\n"
      "check_is_size(k, max=size(x, 0) + 1)\n"
      "if k < 0 | y:\n"
      "  if ~y:\n"
      "    pass\n"
      "  c = 1\n"
      "else:\n"
      "  c = -(1)\n"
      "return c, a, b\n",
      "# sfz 1\n# expect: ok\nreturn\n",
  };
  for (const char* t : texts) EXPECT_EQ(print_program(parse_program(t)), t);
}

TEST(PrinterTest, InfixFlagChoosesTheSyntax) {
  ExprPtr a = v("a"), b = v("b");
  EXPECT_EQ(print_expr(*Expr::call(OpKind::kAdd, {a, b})), "add(a, b)");
  EXPECT_EQ(print_expr(*Expr::call(OpKind::kAdd, {a, b}, {}, true)), "a + b");
  EXPECT_EQ(print_expr(*Expr::call(OpKind::kAdd, {a}, {{"b", b}}, true)), "add(a, b=b)");
  EXPECT_EQ(print_expr(*Expr::call(OpKind::kMax, {a, b}, {}, true)), "max(a, b)");
  EXPECT_EQ(print_expr(*Expr::call(OpKind::kNeg, {Expr::integer(3)}, {}, true)), "-(3)");
  EXPECT_EQ(print_expr(*Expr::call(OpKind::kNeg, {Expr::integer(-3)}, {}, true)), "--3");
  EXPECT_EQ(print_expr(*Expr::call(OpKind::kNeg, {Expr::floating(-0.0)}, {}, true)), "--0.0");
  EXPECT_EQ(print_expr(*Expr::call(OpKind::kNeg, {Expr::integer(3)})), "neg(3)");
}

// The Syntax column is the one source of operators: each reads back as its op, and no two ops
// share an operator at one precedence level.
TEST(PrinterTest, EveryOperatorOfTheTableReadsBackAsItsOp) {
  int operators = 0;
  for (OpKind op : all_ops()) {
    const OpSyntax& syn = schema(op).syntax;
    if (!syn.is_operator()) {
      EXPECT_FALSE(has_operator_syntax(op)) << op_name(op);
      continue;
    }
    ++operators;
    EXPECT_EQ(op_by_operator(syn.precedence, syn.text), op) << op_name(op);
    std::vector<ExprPtr> args{v("a")};
    if (syn.arity() == 2) args.push_back(v("b"));
    ExprPtr e = Expr::call(op, args, {}, true);
    std::string text = print_expr(*e);
    EXPECT_NE(text.find(syn.text), std::string::npos) << text;
    EXPECT_EQ(*parse_expression(text), *e) << text;
  }
  EXPECT_EQ(operators, 16);
}

TEST(PrinterTest, ParenthesesFollowPrecedence) {
  auto call = [](OpKind op, std::vector<ExprPtr> args) {
    return Expr::call(op, std::move(args), {}, true);
  };
  ExprPtr a = v("a"), b = v("b"), c = v("c");
  struct Case {
    ExprPtr e;
    const char* text;
  } cases[] = {
      {call(OpKind::kSub, {a, call(OpKind::kSub, {b, c})}), "a - (b - c)"},
      {call(OpKind::kSub, {call(OpKind::kSub, {a, b}), c}), "a - b - c"},
      {call(OpKind::kMul, {call(OpKind::kAdd, {a, b}), c}), "(a + b) * c"},
      {call(OpKind::kLt, {call(OpKind::kLt, {a, b}), c}), "(a < b) < c"},
      {call(OpKind::kLogicalNot, {call(OpKind::kLogicalAnd, {a, b})}), "~(a & b)"},
      {call(OpKind::kLogicalAnd, {call(OpKind::kLogicalNot, {a}), b}), "~a & b"},
      {call(OpKind::kEq, {call(OpKind::kLogicalNot, {a}), b}), "(~a) == b"},
      {call(OpKind::kNeg, {call(OpKind::kNeg, {a})}), "--a"},
      {call(OpKind::kNeg, {call(OpKind::kMul, {a, b})}), "-(a * b)"},
      {call(OpKind::kMul, {call(OpKind::kNeg, {a}), b}), "-a * b"},
      {call(OpKind::kAdd, {a, Expr::integer(-1)}), "a + -1"},
  };
  for (const Case& k : cases) {
    EXPECT_EQ(print_expr(*k.e), k.text);
    EXPECT_EQ(*parse_expression(k.text), *k.e) << k.text;
  }
}

TEST(PrinterTest, StringsWithAnyBytesRoundTrip) {
  std::string s("q\"b\\s\n\t\r\x01\x7f\xc3\xa9\xff", 13);
  ExprPtr e = Expr::string(s);
  EXPECT_EQ(print_expr(*e), "\"q\\\"b\\\\s\\n\\t\\r\\x01\\x7f\xc3\xa9\xff\"");
  EXPECT_EQ(parse_expression(print_expr(*e))->name, s);
}

TEST(PrinterTest, EmptyIfBodyPrintsPass) {
  Stmt s;
  s.kind = Stmt::Kind::kIf;
  s.value = Expr::boolean(true);
  EXPECT_EQ(print_stmt(s), "if True:\n  pass\n");
  s.then_body.push_back(assign("x", Expr::integer(1)));
  s.else_body.push_back(assign("x", Expr::integer(2)));
  EXPECT_EQ(print_stmt(s, 2), "  if True:\n    x = 1\n  else:\n    x = 2\n");
}

}  // namespace
}  // namespace sf::program
