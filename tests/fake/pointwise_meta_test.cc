// engine/fake/meta/pointwise.cc: broadcasting (static, backed, unbacked), dtype promotion with
// weak scalars, bool-arithmetic refusals, unary ops, to, where, and scalar (SymInt/SymFloat/
// SymBool) arithmetic when both operands are scalars.
#include <gtest/gtest.h>

#include "tests/fake/meta_test_util.h"

namespace sf::fake::testing {
namespace {

TEST(PointwiseMeta, StaticBroadcast) {
  CheckAll({
      {.in = {"x: f32[2, 3]", "y: f32[3]"}, .call = "add(x, y)", .out = "f32[2, 3] stride=[3, 1]"},
      {.in = {"x: f32[2, 1]", "y: f32[1, 4]"}, .call = "sub(x, y)", .out = "f32[2, 4]"},
      {.in = {"x: f32[0]", "y: f32[1]"}, .call = "mul(x, y)", .out = "f32[0]"},
      {.in = {"x: f32[]", "y: f32[2, 3]"}, .call = "add(x, y)", .out = "f32[2, 3]"},
      // The error names the output dim, both sizes and both shapes (docs/ops.md).
      {.in = {"x: f32[2, 3]", "y: f32[2, 4]"},
       .call = "add(x, y)",
       .error = "shape: line 1: add: cannot broadcast dim 1: 3 vs 4 (shapes [2, 3] and [2, 4])"},
      {.in = {"x: f32[2, 3]", "y: f32[4, 1, 1]"},
       .call = "maximum(x, y)",
       .out = "f32[4, 2, 3] stride=[6, 3, 1]"},
  });
}

// Backed sizes: a size-1 test is decided by the range [2, oo] (no guard); equality of two backed
// sizes guards on their hints (a replacement when equal, a shape error when not).
TEST(PointwiseMeta, BackedBroadcast) {
  CheckAll({
      {.in = {"x: f32[s0, 3]", "y: f32[1, 3]"}, .call = "add(x, y)", .out = "f32[s0, 3]"},
      {.in = {"x: f32[s0]", "y: f32[s0]"}, .call = "add(x, y)", .out = "f32[s0]"},
      {.in = {"x: f32[1]", "y: f32[s0, s1]"},
       .call = "add(x, y)",
       .out = "f32[s0, s1] stride=[s1, 1]"},
      // (Which of two equal-hinted backed symbols is replaced follows their real names.)
      {.in = {"x: f32[s0, 3]", "y: f32[s1=3, 3]"},
       .call = "add(x, y)",
       .out = "f32[s0, 3]",
       .facts = {"guard Eq(s0, s1)", "s1 -> s0"}},
      {.in = {"x: f32[s0]", "y: f32[s1]"},
       .call = "add(x, y)",
       .error = "shape: cannot broadcast dim 0: s0 vs s1 (shapes [s0] and [s1])"},
      {.in = {"x: f32[s0=5]", "y: f32[5]"},
       .call = "add(x, y)",
       .out = "f32[s0]",
       .facts = {"guard Eq(s0, 5)", "s0 -> 5"},
       .ranges = {"s0: [5, 5]"}},
  });
}

// Unbacked sizes: "is 1" is undecidable, so assumed false (guard_or_false), and equality becomes
// a deferred runtime assert tagged as implicit. Eq(u0, u1) of two unbacked inputs replaces u0
// by u1 (PyTorch's trivial_lhs: an input's unbacked symbol may stand for another).
TEST(PointwiseMeta, UnbackedBroadcast) {
  CheckAll({
      {.in = {"x: f32[u0, 3]", "y: f32[3]"}, .call = "add(x, y)", .out = "f32[u0, 3]"},
      {.in = {"x: f32[u0]", "y: f32[1]"}, .call = "add(x, y)", .out = "f32[u0]"},
      {.in = {"x: f32[u0]", "y: f32[u1]"},
       .call = "add(x, y)",
       .out = "f32[u0]",
       .facts = {"assert Eq(u0, u1)", "u0 -> u1"}},
      {.in = {"x: f32[u0]", "y: f32[5]"},
       .call = "eq(x, y)",
       .out = "bool[u0]",
       .facts = {"assert Eq(u0, 5)", "u0 -> 5"},
       .ranges = {"u0: [5, 5] size-like"}},
      {.in = {"x: f32[u0, 1]", "y: f32[s0]"},
       .call = "add(x, y)",
       .out = "f32[u0, s0] stride=[s0, 1]"},
      // The ranges decide the equality where they can: [2, 4] may hold 3 (an assert), [4, 9]
      // cannot (a shape error at trace time).
      {.in = {"x: f32[u0]", "y: f32[3]"},
       .call = "constrain(u0, 2, 4); add(x, y)",
       .out = "f32[u0]",
       .facts = {"assert Eq(u0, 3)", "u0 -> 3"},
       .ranges = {"u0: [3, 3] size-like"}},
      {.in = {"x: f32[u0]", "y: f32[3]"},
       .call = "constrain(u0, 4, 9); add(x, y)",
       .error = "shape: cannot broadcast dim 0: u0 vs 3"},
  });
}

// Weak scalars and bool arithmetic (docs/ops.md "Values and dtypes").
TEST(PointwiseMeta, DTypes) {
  CheckAll({
      {.in = {"x: i64[2]"}, .call = "add(x, 2)", .out = "i64[2]"},
      {.in = {"x: i64[2]"}, .call = "add(x, 0.5)", .out = "f32[2]"},
      {.in = {"x: bool[2]"}, .call = "add(x, True)", .out = "bool[2]"},
      {.in = {"x: bool[2]"}, .call = "add(x, 2)", .out = "i64[2]"},
      {.in = {"x: bool[2]", "y: bool[2]"}, .call = "mul(x, y)", .out = "bool[2]"},
      {.in = {"x: i64[2]", "y: f32[2]"}, .call = "sub(x, y)", .out = "f32[2]"},
      {.in = {"x: i64[2]", "y: i64[2]"}, .call = "div(x, y)", .out = "f32[2]"},
      {.in = {"x: i64[2]"}, .call = "floordiv(x, 2)", .out = "i64[2]"},
      {.in = {"x: f32[2]"}, .call = "remainder(x, 2)", .out = "f32[2]"},
      {.in = {"x: bool[2]", "y: bool[2]"}, .call = "maximum(x, y)", .out = "bool[2]"},
      {.in = {"x: i64[2]", "y: f32[2]"}, .call = "minimum(x, y)", .out = "f32[2]"},
      {.in = {"x: f32[2, 1]", "y: i64[3]"}, .call = "eq(x, y)", .out = "bool[2, 3]"},
      {.in = {"x: f32[2]"}, .call = "ne(x, 1)", .out = "bool[2]"},
      {.in = {"x: i64[2]"}, .call = "lt(x, 0.5)", .out = "bool[2]"},
      {.in = {"x: i64[2]"}, .call = "le(2, x)", .out = "bool[2]"},
      {.in = {"x: bool[2]"}, .call = "gt(x, False)", .out = "bool[2]"},
      {.in = {"x: f32[2]", "y: f32[2]"}, .call = "ge(x, y)", .out = "bool[2]"},
      {.in = {"x: f32[2]", "y: i64[2]"}, .call = "logical_and(x, y)", .out = "bool[2]"},
      {.in = {"x: i64[2]"}, .call = "logical_or(x, 0)", .out = "bool[2]"},
      {.in = {"x: bool[2]"}, .call = "sub(x, True)", .error = "invalid_program: line 1: sub"},
      {.in = {"x: i64[2]"}, .call = "sub(x, True)", .error = "invalid_program: sub"},
      {.in = {"x: bool[2]", "y: bool[2]"},
       .call = "floordiv(x, y)",
       .error = "invalid_program: floordiv"},
      {.in = {"x: bool[2]"}, .call = "remainder(x, True)", .error = "invalid_program: remainder"},
  });
}

TEST(PointwiseMeta, UnaryToAndWhere) {
  CheckAll({
      {.in = {"x: f32[2]"}, .call = "logical_not(x)", .out = "bool[2]"},
      {.in = {"x: i64[s0, 2]"}, .call = "neg(x)", .out = "i64[s0, 2] stride=[2, 1]"},
      {.in = {"x: f32[u0]"}, .call = "abs(x)", .out = "f32[u0]"},
      {.in = {"x: i64[2, 3]"}, .call = "relu(x)", .out = "i64[2, 3]"},
      {.in = {"x: bool[2]"}, .call = "neg(x)", .error = "invalid_program: neg"},
      {.in = {"x: bool[2]"}, .call = "abs(x)", .error = "invalid_program: abs"},
      {.in = {"x: bool[2]"}, .call = "relu(x)", .error = "invalid_program: relu"},
      {.call = "relu(3)", .error = "invalid_program: relu takes a tensor"},
      // to() is a fresh contiguous tensor, even of a transposed view.
      {.in = {"x: f32[s0, 2]"},
       .call = "t = transpose(x, 0, 1); to(t, i64)",
       .out = "i64[2, s0] stride=[s0, 1]"},
      {.in = {"x: i64[u0]"}, .call = "to(x, bool)", .out = "bool[u0]"},
      {.in = {"c: bool[2, 1]", "a: f32[3]"}, .call = "where(c, a, 0)", .out = "f32[2, 3]"},
      {.in = {"c: bool[2]"}, .call = "where(c, 1, 0.5)", .out = "f32[2]"},
      {.in = {"c: bool[2]"}, .call = "where(c, 1, 0)", .out = "i64[2]"},
      {.in = {"c: bool[2]"}, .call = "where(c, True, False)", .out = "bool[2]"},
      {.in = {"c: bool[2]", "a: i64[2]"}, .call = "where(c, a, 0.5)", .out = "f32[2]"},
      {.in = {"c: bool[u0]", "a: f32[u1]"},
       .call = "where(c, a, 1.0)",
       .out = "f32[u0]",
       .facts = {"assert Eq(u0, u1)", "u0 -> u1"}},
      {.in = {"c: bool[2]", "a: f32[3]"},
       .call = "where(c, a, 0)",
       .error = "shape: cannot broadcast dim 0: 2 vs 3"},
      {.in = {"c: f32[2]"},
       .call = "where(c, 1, 0)",
       .error = "invalid_program: where: condition must be bool, got f32[2]"},
  });
}

// Two scalars: SymInt/SymFloat/SymBool arithmetic with Python semantics; integer division by a
// divisor that may be 0 is checked (a guard when backed, a deferred assert when unbacked).
TEST(PointwiseMeta, ScalarArithmetic) {
  CheckAll({
      {.call = "add(2, 3)", .out = "int 5"},
      {.call = "mul(True, True)", .out = "int 1"},
      {.call = "div(7, 2)", .out = "float 3.5"},
      {.in = {"n: int s1"}, .call = "add(n, 2)", .out = "int s1 + 2"},
      {.in = {"n: int s1", "k: int u0"}, .call = "sub(n, k)", .out = "int s1 - u0"},
      {.in = {"n: int s1"}, .call = "mul(n, 0.5)", .out = "float 0.5*s1"},
      {.in = {"n: int s1"}, .call = "add(n, True)", .out = "int s1 + 1"},
      {.in = {"n: int s1"}, .call = "floordiv(n, 2)", .out = "int FloorDiv(s1, 2)"},
      {.in = {"n: int s1"}, .call = "remainder(n, 3)", .out = "int PythonMod(s1, 3)"},
      {.in = {"n: int s1", "m: int s2"},
       .call = "floordiv(n, m)",
       .out = "int FloorDiv(s1, s2)",
       .facts = {"guard Ne(s2, 0)"}},
      {.in = {"n: int s1", "k: int u0"},
       .call = "remainder(n, k)",
       .out = "int PythonMod(s1, u0)",
       .facts = {"assert Ne(u0, 0)"}},
      {.in = {"n: int s1", "k: int u0"},
       .call = "div(n, k)",
       .out = "float FloatTrueDiv(ToFloat(s1), ToFloat(u0))",
       .facts = {"assert Ne(u0, 0)"}},
      {.in = {"n: int s1"},
       .call = "floordiv(n, 0)",
       .error = "zero_division: integer division or modulo by zero (s1 by 0)"},
      {.call = "floordiv(2.5, 2)", .error = "unsupported: floor division / modulo of float"},
      {.in = {"n: int s1", "k: int u0"}, .call = "maximum(n, k)", .out = "int Max(s1, u0)"},
      {.in = {"n: int s1"}, .call = "minimum(n, 2.5)", .out = "float Min(2.5, s1)"},
      {.in = {"n: int s1"}, .call = "eq(n, 3)", .out = "bool Eq(s1, 3)"},
      {.in = {"n: int s1", "k: int u0"}, .call = "lt(n, k)", .out = "bool s1 + 1 <= u0"},
      {.in = {"n: int s1"}, .call = "ge(n, 0)", .out = "bool s1 >= 0"},
      {.in = {"n: int s1"}, .call = "logical_and(n, True)", .out = "bool Ne(s1, 0)"},
      {.in = {"k: int u0"}, .call = "logical_not(k)", .out = "bool Eq(u0, 0)"},
      {.in = {"n: int s1"}, .call = "neg(n)", .out = "int -s1"},
      {.in = {"k: int u0"}, .call = "abs(k)", .out = "int Max(u0, -u0)"},
      {.call = "add(True, True)", .out = "int 2"},
      {.call = "minimum(True, 2.5)", .out = "float 1.0"},
      {.call = "logical_or(0.0, 2)", .out = "bool True"},
      {.call = "div(1, 0.0)", .error = "zero_division: division by zero"},
  });
}

// Bool scalars follow Python, as docs/ops.md and eager: -True == -1 and abs(True) == 1 (ints),
// and maximum/minimum of two bools is a bool. The meta function used to refuse neg of a bool,
// return abs of a bool as the bool (so `add(bool_tensor, abs(True))` traced as bool where eager
// gives i64) and compute maximum/minimum of bools as ints.
TEST(PointwiseMeta, BoolScalarArithmeticIsPythons) {
  CheckAll({
      {.call = "neg(True)", .out = "int -1"},
      {.call = "abs(True)", .out = "int 1"},
      {.call = "maximum(True, False)", .out = "bool True"},
      {.call = "minimum(True, False)", .out = "bool False"},
  });
}

}  // namespace
}  // namespace sf::fake::testing
