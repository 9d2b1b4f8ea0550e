// Valid .sfz text: expressions to their canonical print and AST, whole programs to their AST
// (header, inputs, statements, scoping, indentation, comments).
#include "engine/program/parser.h"

#include <gtest/gtest.h>

#include "engine/base/errors.h"
#include "engine/program/printer.h"

namespace sf::program {
namespace {

ExprPtr v(const char* name) { return Expr::var(name); }
ExprPtr i(int64_t x) { return Expr::integer(x); }
ExprPtr op(OpKind k, std::vector<ExprPtr> args) { return Expr::call(k, std::move(args), {}, true); }

TEST(ParserTest, ExpressionsPrintCanonically) {
  struct Case {
    const char* input;
    const char* canonical;
  } cases[] = {
      {"a+b*c", "a + b * c"},
      {"(a + b) * c", "(a + b) * c"},
      {"(a - b) - c", "a - b - c"},
      {"a - (b - c)", "a - (b - c)"},
      {"a // b % c", "a // b % c"},
      {"a * (b / c)", "a * (b / c)"},
      {"-3", "-3"},
      {"- 3", "-3"},
      {"-(3)", "-(3)"},
      {"-(1.5)", "-(1.5)"},
      {"--3", "--3"},
      {"-(-x)", "--x"},
      {"-x * y", "-x * y"},
      {"-(x * y)", "-(x * y)"},
      {"a -3", "a - 3"},
      {"x * -2", "x * -2"},
      {"a - -0.0", "a - -0.0"},
      {"~a & b | c", "~a & b | c"},
      {"~(a & b)", "~(a & b)"},
      {"~(a < b)", "~a < b"},
      {"(~a) < b", "(~a) < b"},
      {"(a < b) < c", "(a < b) < c"},
      {"a < (b == c)", "a < (b == c)"},
      {"a | (b | c)", "a | (b | c)"},
      {"(a > 0) & (a <= 5) | (a != 2) & (a >= -1)", "a > 0 & a <= 5 | a != 2 & a >= -1"},
      {"add(a, b) + 1", "add(a, b) + 1"},
      {"sum( x ,dim=[0],keepdim = True )", "sum(x, dim=[0], keepdim=True)"},
      {"zeros([2, n], dtype=bool)", "zeros([2, n], dtype=bool)"},
      {"1.50", "1.5"},
      {"1e3", "1000.0"},
      {"1E-5", "1e-05"},
      {"-9223372036854775808", "-9223372036854775808"},
      {"\"a\\x41\\\"\"", "\"aA\\\"\""},
      {"[ ]", "[]"},
      {"[f32, i64, bool, None, True, False]", "[f32, i64, bool, None, True, False]"},
      {"sum", "sum"},
      {"((((x))))", "x"},
      {"x  # trailing comment", "x"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input);
    ExprPtr e = parse_expression(c.input);
    EXPECT_EQ(print_expr(*e), c.canonical);
    EXPECT_EQ(*parse_expression(c.canonical), *e);
  }
}

TEST(ParserTest, ExpressionsBuildTheExpectedTrees) {
  struct Case {
    const char* input;
    ExprPtr tree;
  } cases[] = {
      {"-3", i(-3)},
      {"-(3)", op(OpKind::kNeg, {i(3)})},
      {"--3", op(OpKind::kNeg, {i(-3)})},
      {"- 2.5", Expr::floating(-2.5)},
      {"a + b * c", op(OpKind::kAdd, {v("a"), op(OpKind::kMul, {v("b"), v("c")})})},
      {"a - b - c", op(OpKind::kSub, {op(OpKind::kSub, {v("a"), v("b")}), v("c")})},
      {"~a < b", op(OpKind::kLogicalNot, {op(OpKind::kLt, {v("a"), v("b")})})},
      {"a | b & c", op(OpKind::kLogicalOr, {v("a"), op(OpKind::kLogicalAnd, {v("b"), v("c")})})},
      {"add(a, b)", Expr::call(OpKind::kAdd, {v("a"), v("b")})},
      {"sum(x, keepdim=True, dim=None)",
       Expr::call(OpKind::kSum, {v("x")},
                  {{"keepdim", Expr::boolean(true)}, {"dim", Expr::none()}})},
      {"[1, -1]", Expr::list({i(1), i(-1)})},
      {"to(x, i64)", Expr::call(OpKind::kTo, {v("x"), Expr::dtype_lit(DType::kInt64)})},
  };
  for (const Case& c : cases) {
    ExprPtr e = parse_expression(c.input);
    EXPECT_EQ(*e, *c.tree) << c.input << " parsed as " << print_expr(*e);
  }
  EXPECT_FALSE(*parse_expression("add(a, b)") == *parse_expression("a + b"));
}

TEST(ParserTest, RecordsSourceLocations) {
  ExprPtr e = parse_expression("a + sum(b)");
  EXPECT_EQ(e->loc.col, 3);
  EXPECT_EQ(e->args[0]->loc.col, 1);
  EXPECT_EQ(e->args[1]->loc.col, 5);
  Program p = parse_program("# sfz 1\ninput x: f32[2] = arange()\n\ny = x\nreturn y\n");
  EXPECT_EQ(p.inputs[0].loc.line, 2);
  EXPECT_EQ(p.body[0].loc.line, 4);
  EXPECT_EQ(p.body[1].returns[0]->loc.col, 8);
}

TEST(ParserTest, ParsesHeaderDirectives) {
  Program p = parse_program(
      "# sfz 1\n"
      "# a free comment\n"
      "\n"
      "# mode: inference\n"
      "#found-by:   shapefuzz gen --seed 3   \n"
      "# expect: error shape   \"cannot \\x62roadcast\"\n"
      "return\n");
  EXPECT_EQ(p.header.version, 1);
  EXPECT_TRUE(p.header.inference_mode);
  EXPECT_EQ(p.header.found_by, "shapefuzz gen --seed 3");
  EXPECT_EQ(p.header.expect, "error shape \"cannot broadcast\"");
  EXPECT_TRUE(p.body[0].returns.empty());
  Program q = parse_program("# sfz 1\nreturn\n");
  EXPECT_EQ(q.header.expect, "ok");
  EXPECT_EQ(parse_program("# sfz 1\n# expect: error value\nreturn\n").header.expect, "error value");
  // Every kind a verdict can carry is a valid expectation (the list is errors.h's, not a copy).
  for (UserErrorKind k : all_user_error_kinds()) {
    std::string expect = std::string("error ") + user_error_kind_name(k);
    EXPECT_EQ(parse_program("# sfz 1\n# expect: " + expect + "\nreturn\n").header.expect, expect);
  }
}

TEST(ParserTest, ParsesInputDeclarations) {
  Program p = parse_program(
      "# sfz 1\n"
      "input x: f32[8, 4] unbacked(1) dynamic(0) = randn(seed=-7)\n"
      "input m: bool[3] = [1, False, True]\n"
      "input r: i64[2] = randint(-9223372036854775808, 5, seed=2)\n"
      "input b: bool[] = randbool(1, seed=0)\n"
      "input e: f32[0] = []\n"
      "input n: i64 unbacked = -4\n"
      "input f: f32 = 2\n"
      "input c: i64[2] = full(-3)\n"
      "return x, m, r, b, e, n, f, c\n");
  ASSERT_EQ(p.inputs.size(), 8u);
  const InputDecl& x = p.inputs[0];
  EXPECT_EQ(x.sizes, (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(x.dims, (std::vector<DimMode>{DimMode::kDynamic, DimMode::kUnbacked}));
  EXPECT_EQ(x.data.kind, DataSpec::Kind::kRandn);
  EXPECT_EQ(x.data.seed, -7);
  EXPECT_EQ(p.inputs[1].data.literal, (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(p.inputs[2].data.low, INT64_MIN);
  EXPECT_EQ(p.inputs[2].data.high, 5);
  EXPECT_EQ(p.inputs[3].data.p, 1.0);
  EXPECT_TRUE(p.inputs[3].sizes.empty());
  EXPECT_TRUE(p.inputs[3].is_tensor);
  EXPECT_TRUE(p.inputs[4].data.literal.empty());
  EXPECT_FALSE(p.inputs[5].is_tensor);
  EXPECT_EQ(p.inputs[5].scalar_mode, DimMode::kUnbacked);
  EXPECT_EQ(p.inputs[5].data.literal, std::vector<double>{-4});
  EXPECT_EQ(p.inputs[6].data.literal, std::vector<double>{2});
  EXPECT_EQ(p.inputs[7].data.value, -3);
  EXPECT_EQ(print_input(x), "input x: f32[8, 4] dynamic(0) unbacked(1) = randn(seed=-7)");
  EXPECT_EQ(print_input(p.inputs[1]), "input m: bool[3] = [True, False, True]");
  EXPECT_EQ(print_input(p.inputs[6]), "input f: f32 = 2.0");
}

TEST(ParserTest, ParsesStatementsAndBlocks) {
  Program p = parse_program(
      "# sfz 1\n"
      "input n: i64 dynamic = 3\n"
      "a, b = unique(n)\n"
      "check(n > 0, \"positive\")\n"
      "check_is_size(n)\n"
      "check_is_size(n, max=10)\n"
      "if n > 1:      # comments and deeper indentation are fine\n"
      "    y = n\n"
      "    if n > 2:\n"
      "          z = 1\n"
      "\n"
      "    else:\n"
      "          pass\n"
      "else:\n"
      "    y = 0\n"
      "return y\n");
  ASSERT_EQ(p.body.size(), 6u);
  EXPECT_EQ(p.body[0].targets, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.body[1].kind, Stmt::Kind::kCheck);
  EXPECT_EQ(p.body[1].message, "positive");
  EXPECT_EQ(p.body[2].max, nullptr);
  EXPECT_EQ(*p.body[3].max, *i(10));
  const Stmt& s = p.body[4];
  EXPECT_EQ(s.kind, Stmt::Kind::kIf);
  ASSERT_EQ(s.then_body.size(), 2u);
  EXPECT_TRUE(s.then_body[1].else_body.empty());  // "else: pass" is no else
  EXPECT_EQ(s.else_body.size(), 1u);
  EXPECT_EQ(print_program(p),
            "# sfz 1\n"
            "# expect: ok\n"
            "input n: i64 dynamic = 3\n"
            "a, b = unique(n)\n"
            "check(n > 0, \"positive\")\n"
            "check_is_size(n)\n"
            "check_is_size(n, max=10)\n"
            "if n > 1:\n"
            "  y = n\n"
            "  if n > 2:\n"
            "    z = 1\n"
            "else:\n"
            "  y = 0\n"
            "return y\n");
}

TEST(ParserTest, NamesDefinedInBothBranchesOrBeforeAreVisible) {
  EXPECT_NO_THROW(parse_program(
      "# sfz 1\ninput x: i64 = 1\nif x > 0:\n  y = 1\n  w = y\nelse:\n  y = 2\nreturn y, x\n"));
  EXPECT_NO_THROW(parse_program("# sfz 1\nsum = 1\nsize = sum + 1\nreturn size\n"));
  EXPECT_NO_THROW(parse_program("# sfz 1\nx = 1\nif x > 0:\n  x = 2\nreturn x\n"));
}

TEST(ParserTest, AcceptsCrlfAndMissingFinalNewline) {
  Program p = parse_program("# sfz 1\r\n# expect: ok\r\nx = 1\r\nreturn x");
  EXPECT_EQ(print_program(p), "# sfz 1\n# expect: ok\nx = 1\nreturn x\n");
}

}  // namespace
}  // namespace sf::program
