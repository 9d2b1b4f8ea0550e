// `def` blocks and the higher-order ops in the text format: they parse, print back to
// the same text (parse . print round-trips), and what a block may name is checked at parse time.
#include <gtest/gtest.h>

#include <string>

#include "engine/base/errors.h"
#include "engine/program/host_value.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"

namespace sf::program {
namespace {

const char* kProgram =
    "# sfz 1\n"
    "# expect: ok\n"
    "input x: i64[4] = arange()\n"
    "input t: i64[1] = [2]\n"
    "def more(i, v):\n"
    "  return i < 3\n"
    "def step(i, v):\n"
    "  if i > 0:\n"
    "    w = v + 1\n"
    "  else:\n"
    "    w = v - 1\n"
    "  return i + 1, w\n"
    "def then_fn(a, k):\n"
    "  j, b = while_loop(more, step, [k, a])\n"
    "  return b\n"
    "def else_fn(a, k):\n"
    "  return a + k\n"
    "k = item(t)\n"
    "r = cond(k > 1, then_fn, else_fn, [x, k])\n"
    "n, y = while_loop(more, step, [0, r])\n"
    "z, m = invoke_subgraph(step, [n, y])\n"
    "return n, y, z, m\n";

TEST(HigherOrderSyntax, ParsesAndRoundTrips) {
  Program p = parse_program(kProgram);
  ASSERT_EQ(p.functions.size(), 4u);
  EXPECT_EQ(p.functions[0].name, "more");
  EXPECT_EQ(p.functions[0].params, (std::vector<std::string>{"i", "v"}));
  EXPECT_EQ(p.functions[1].body.size(), 2u);  // if/else, return
  ASSERT_EQ(p.body.size(), 5u);
  const Stmt& c = p.body[1];
  EXPECT_EQ(c.kind, Stmt::Kind::kCond);
  EXPECT_EQ(c.targets, (std::vector<std::string>{"r"}));
  EXPECT_EQ(c.functions, (std::vector<std::string>{"then_fn", "else_fn"}));
  EXPECT_EQ(c.operands.size(), 2u);
  const Stmt& w = p.body[2];
  EXPECT_EQ(w.kind, Stmt::Kind::kWhileLoop);
  EXPECT_EQ(w.functions, (std::vector<std::string>{"more", "step"}));
  const Stmt& call = p.body[3];
  EXPECT_EQ(call.kind, Stmt::Kind::kInvokeSubgraph);
  EXPECT_EQ(call.functions, (std::vector<std::string>{"step"}));
  EXPECT_EQ(call.targets, (std::vector<std::string>{"z", "m"}));
  EXPECT_EQ(call.operands.size(), 2u);
  EXPECT_EQ(print_program(p), kProgram);
  EXPECT_TRUE(parse_program(print_program(p)) == p);
  // Equality sees the functions: a different body is a different program.
  Program q = p;
  q.functions[3].params[1] = "kk";
  EXPECT_FALSE(q == p);
}

std::string error_of(const std::string& body) {
  try {
    parse_program("# sfz 1\ninput x: i64[2] = arange()\n" + body);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(HigherOrderSyntax, AssociativeScanTakesAnIntLiteralDim) {
  const std::string text =
      "# sfz 1\n# expect: ok\ninput x: f32[2, 3] = arange()\n"
      "def both(a, b):\n  return a + b\n"
      "y = associative_scan(both, [x], -1)\nreturn y\n";
  Program p = parse_program(text);
  ASSERT_EQ(p.body.size(), 2u);
  EXPECT_EQ(p.body[0].kind, Stmt::Kind::kAssociativeScan);
  EXPECT_EQ(p.body[0].dim, -1);
  EXPECT_EQ(print_program(p), text);
  // The dim is part of the statement.
  Program q = p;
  q.body[0].dim = 0;
  EXPECT_FALSE(q == p);
  EXPECT_NE(error_of("def f(a, b):\n  return a + b\ny = associative_scan(f, [x])\nreturn y\n")
                .find("then associative_scan's dim (an int literal)"),
            std::string::npos);
  EXPECT_NE(error_of("def f(a, b):\n  return a + b\nd = 0\n"
                     "y = associative_scan(f, [x], d)\nreturn y\n")
                .find("an integer as associative_scan's dim"),
            std::string::npos);
}

// Moving a dim of a dense tensor, as associative_scan's rows along any dim are cut.
TEST(HigherOrderSyntax, MoveDimPermutesTheData) {
  HostTensor t;
  t.dtype = DType::kInt64;
  t.sizes = {2, 3, 2};
  for (int64_t i = 0; i < 12; ++i) t.ints.push_back(i);
  HostTensor m = move_dim(t, 1, 0);  // [3, 2, 2]: m[j][i][k] = t[i][j][k]
  EXPECT_EQ(m.sizes, (std::vector<int64_t>{3, 2, 2}));
  EXPECT_EQ(m.ints, (std::vector<int64_t>{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}));
  HostTensor back = move_dim(m, 0, 1);
  EXPECT_EQ(back.sizes, t.sizes);
  EXPECT_EQ(back.ints, t.ints);
  HostTensor last = move_dim(t, 2, 0);  // [2, 2, 3]: last[k][i][j] = t[i][j][k]
  EXPECT_EQ(last.ints, (std::vector<int64_t>{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));
}

TEST(HigherOrderSyntax, BlocksSeeOnlyTheirParameters) {
  // x is an input of the program, not a parameter: a block reads only what it is given.
  EXPECT_NE(error_of("def f(a):\n  return x\nr = cond(True, f, f, [x])\nreturn r\n")
                .find("undefined variable 'x'"),
            std::string::npos);
}

TEST(HigherOrderSyntax, FunctionsMustBeDefinedAbove) {
  EXPECT_NE(error_of("r = cond(True, f, f, [x])\nreturn r\n").find("not a function defined above"),
            std::string::npos);
  // Only earlier functions: no recursion by construction.
  EXPECT_NE(error_of("def f(a):\n  r = cond(True, f, f, [a])\n  return r\nreturn x\n")
                .find("not a function defined above"),
            std::string::npos);
  // A region that calls itself is named.
  EXPECT_NE(error_of("def again(a):\n  r = invoke_subgraph(again, [a])\n  return r\nreturn x\n")
                .find("'again' is not a function defined above (as invoke_subgraph's region)"),
            std::string::npos);
  EXPECT_NE(error_of("r = invoke_subgraph(x)\nreturn r\n").find("not a function defined above"),
            std::string::npos);
  EXPECT_NE(error_of("y = x\ndef f(a):\n  return a\nreturn y\n").find("after the inputs"),
            std::string::npos);
  EXPECT_NE(error_of("def f(a, a):\n  return a\nreturn x\n").find("duplicate parameter"),
            std::string::npos);
  EXPECT_NE(error_of("def f(a):\n  y = a\nreturn x\n").find("must end with a 'return'"),
            std::string::npos);
  EXPECT_NE(
      error_of("def f(a):\n  return a\nr = cond(True, f, f, x)\nreturn r\n").find("operand list"),
      std::string::npos);
}

}  // namespace
}  // namespace sf::program
