// Malformed .sfz text: each case names the error kind, the "line L:C" and a message substring,
// so messages stay precise (what was expected, where) as the parser evolves.
#include <gtest/gtest.h>

#include "engine/base/errors.h"
#include "engine/program/parser.h"

namespace sf::program {
namespace {

constexpr UserErrorKind P = UserErrorKind::kParse;
constexpr UserErrorKind I = UserErrorKind::kInvalidProgram;

struct Case {
  std::string text;
  UserErrorKind kind;
  const char* where;  // "line L:C"
  const char* message;
};

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int k = 0; k < n; ++k) out += s;
  return out;
}

std::vector<Case> cases() {
  const std::string h = "# sfz 1\n";
  return {
      // header
      {"", P, "line 1:1", "expected the header line '# sfz 1'"},
      {"x = 1\nreturn x\n", P, "line 1:1", "expected the header line"},
      {"# sfz 2\nreturn\n", P, "line 1:7", "unsupported format version 2"},
      {h + "# expect: maybe\nreturn\n", P, "line 2:11", "expected 'ok' or 'error <kind>"},
      {h + "# expect: error bogus\nreturn\n", P, "line 2:17",
       "expected an error kind (one of parse,"},
      {h + "# expect: error shape oops\nreturn\n", P, "line 2:23", "expected a quoted substring"},
      {h + "# expect: ok\n# expect: ok\nreturn\n", P, "line 3:1", "duplicate '# expect:'"},
      {h + "# mode: training\nreturn\n", P, "line 2:9", "expected 'inference'"},
      {h + "x = 1\n# expect: ok\nreturn x\n", P, "line 3:1", "header line after the header block"},
      {h + "# found-by: a\rb\nreturn\n", P, "line 2:14", "control character in '# found-by:'"},
      // lexical
      {h + "x = 1 $ 2\nreturn x\n", P, "line 2:7", "unexpected character '$'"},
      {h + "check(True, \"abc)\nreturn\n", P, "line 2:13", "unterminated string"},
      {h + "if True:\n\tx = 1\nreturn\n", P, "line 3:1", "tab character in indentation"},
      // literals
      {h + "x = 9223372036854775808\nreturn x\n", P, "line 2:5", "out of the int64 range"},
      {h + "x = -9223372036854775809\nreturn x\n", P, "line 2:5", "out of the int64 range"},
      {h + "x = 1e999\nreturn x\n", P, "line 2:5", "float literal out of the double range"},
      {h + "x = inf\nreturn x\n", P, "line 2:5", "'inf' is not a literal"},
      // expressions
      {h + "x = foo(1)\nreturn x\n", P, "line 2:5", "unknown op 'foo'"},
      {h + "x = (1 + 2\nreturn x\n", P, "line 2:11", "expected ')' to close the '(' at column 5"},
      {h + "x = 1 + 2)\nreturn x\n", P, "line 2:10", "expected end of line after the expression"},
      {h + "x = sum([1, 2\nreturn x\n", P, "line 2:14", "expected ',' or ']' in the list"},
      {h + "x = 1 < 2 < 3\nreturn x\n", P, "line 2:11", "comparisons cannot be chained"},
      {h + "x = 1 +\nreturn x\n", P, "line 2:8", "expected an expression, found end of line"},
      {h + "x = if\nreturn x\n", P, "line 2:5", "expected an expression, found keyword 'if'"},
      {h + "x = sum(a=1, [0])\nreturn x\n", P, "line 2:14", "positional argument after a keyword"},
      {h + "x = " + repeat("(", 201) + "1" + repeat(")", 201) + "\nreturn x\n", P,
       "line 2:", "nested too deeply"},
      {h + "x = 1" + repeat(" + 1", 250) + "\nreturn x\n", P, "line 2:", "nested too deeply"},
      {h + "x = " + repeat("-", 300) + "y\nreturn x\n", P, "line 2:", "nested too deeply"},
      // names and binding
      {h + "x = add(y, 1)\nreturn x\n", I, "line 2:9", "undefined variable 'y'"},
      {h + "x = add(1)\nreturn x\n", I, "line 2:5", "missing argument 'b'"},
      {h + "x = add(1, 2, 3)\nreturn x\n", I, "line 2:5", "takes at most 2 arguments"},
      {h + "x = sum(1, foo=1)\nreturn x\n", I, "line 2:5", "unknown keyword argument 'foo'"},
      {h + "x = sum(1, dim=[0], dim=[1])\nreturn x\n", I, "line 2:5", "given twice"},
      {h + "if True:\n  y = 1\nreturn y\n", I, "line 4:8", "undefined variable 'y'"},
      {h + "True = 3\nreturn\n", P, "line 2:1", "found keyword 'True'"},
      {h + "input x: i64 = 1\ninput x: i64 = 2\nreturn x\n", I, "line 3:1", "duplicate input 'x'"},
      // statements and blocks
      {h + "x = 1\n", P, "line 3:1", "expected a 'return' statement at the end"},
      {h + "return 1\nx = 2\n", P, "line 3:1", "statement after 'return'"},
      {h + "if True:\n  return 1\nreturn\n", P, "line 3:3", "'return' is only allowed as the last"},
      {h + "if True:\nx = 1\nreturn x\n", P, "line 3:1", "expected an indented block"},
      {h + "if True:\n  x = 1\n   y = 2\nreturn x\n", P, "line 4:3", "unexpected indentation"},
      {h + "if True:\n    x = 1\n  y = 2\nreturn x\n", P, "line 4:1", "dedent does not match"},
      {h + "  x = 1\nreturn x\n", P, "line 2:1", "unexpected indentation"},
      {h + "if True\n  x = 1\nreturn\n", P, "line 2:8", "expected ':' after the if condition"},
      {h + "else:\n  x = 1\nreturn\n", P, "line 2:1", "'else' without a matching 'if'"},
      {h + "if True:\n  pass\n  x = 1\nreturn\n", P, "line 4:1", "'pass' may only be the sole"},
      {h + "check(True)\nreturn\n", P, "line 2:11", "expected ',' then a message string"},
      {h + "check_is_size(1, 2)\nreturn\n", P, "line 2:18", "expected 'max'"},
      {h + "x = 1\ninput y: i64 = 1\nreturn x\n", P, "line 3:1", "input declarations must come"},
      {h + "x\nreturn\n", P, "line 2:2", "expected '=' after the assignment target"},
      // inputs
      {h + "input x: f32[3] = [1.0, 2.0]\nreturn x\n", P, "line 2:28",
       "input 'x': data has 2 values but its shape has 3 elements"},
      {h + "input x: i64[2] = [1, 2, 3]\nreturn x\n", P, "line 2:26",
       "more data values than the 2"},
      {h + "input x: f32[100000, 100000] = randn(seed=1)\nreturn x\n", P, "line 2:22",
       "more than 2^24 elements"},
      {h + "input x: f32[16777217] = arange()\nreturn x\n", P, "line 2:14", "more than 2^24"},
      {h + "input x: f32[" + repeat("1, ", 8) + "1] = arange()\nreturn x\n", P, "line 2:38",
       "rank above the limit of 8"},
      {h + "input x: f32[16777216] = arange()\ninput y: f32[1] = arange()\nreturn x\n", P,
       "line 3:1", "more than 2^24 elements in total"},
      {h + "input x: f32[2] dynamic(2) = arange()\nreturn x\n", P, "line 2:25", "dim out of range"},
      {h + "input x: f32[2] dynamic(0) unbacked(0) = arange()\nreturn x\n", P, "line 2:37",
       "dim 0 marked twice"},
      {h + "input x: f16[2] = arange()\nreturn x\n", P, "line 2:10", "expected a dtype"},
      {h + "input f: f32 dynamic = 1.0\nreturn f\n", P, "line 2:14", "only i64 scalar inputs"},
      {h + "input b: bool[1] = [2]\nreturn b\n", P, "line 2:21", "expected a bool value"},
      {h + "input t: i64[1] = [1.5]\nreturn t\n", P, "line 2:20", "expected an integer"},
      {h + "input t: i64[1] = [9007199254740993]\nreturn t\n", P, "line 2:20", "beyond 2^53"},
      {h + "input t: f32[1] = [1e39]\nreturn t\n", P, "line 2:20", "out of the f32 range"},
      {h + "input t: i64[2] = randint(5, 5, seed=1)\nreturn t\n", P, "line 2:19",
       "needs LOW < HIGH"},
      {h + "input t: bool[2] = randbool(1.5, seed=1)\nreturn t\n", P, "line 2:29",
       "probability must be in [0, 1]"},
      {h + "input t: f32[2] = randn(7)\nreturn t\n", P, "line 2:25", "expected 'seed'"},
      {h + "input t: f32[2] = ones()\nreturn t\n", P, "line 2:19", "expected input data"},
      {h + "input t: f32[2] = arange() extra\nreturn t\n", P, "line 2:28",
       "expected end of line after the input declaration"},
      // size limits
      {std::string(kMaxInputBytes + 1, '#'), P, "line 1:1", "above the limit of 4 MiB"},
      {h + repeat("x = 1\n", 70000) + "return x\n", P, "line 65538:1", "too many statements"},
  };
}

TEST(ParserErrorsTest, ReportsKindLocationAndMessage) {
  auto all = cases();
  EXPECT_GE(all.size(), 25u);
  for (const Case& c : all) {
    std::string shown = c.text.size() > 200 ? c.text.substr(0, 200) + "..." : c.text;
    try {
      parse_program(c.text);
      ADD_FAILURE() << "Input:\n" << shown << "\nparsed, expected: " << c.message;
    } catch (const UserError& e) {
      std::string msg = e.what();
      EXPECT_EQ(e.kind(), c.kind) << "Input:\n" << shown << "\nOutput: " << msg;
      EXPECT_EQ(msg.rfind(std::string(c.where), 0), 0u)
          << "Input:\n"
          << shown << "\nOutput: " << msg << "\nExpected at: " << c.where;
      EXPECT_NE(msg.find(c.message), std::string::npos)
          << "Input:\n"
          << shown << "\nOutput: " << msg << "\nExpected: " << c.message;
    }
  }
}

}  // namespace
}  // namespace sf::program
