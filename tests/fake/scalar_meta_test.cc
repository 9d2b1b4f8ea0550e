// engine/fake/meta/scalar.cc: size, stride and numel read a tensor's symbolic metadata (the raw
// expressions, unguarded); min and max are scalar arithmetic on ints, floats and bools.
#include <gtest/gtest.h>

#include "tests/fake/meta_test_util.h"

namespace sf::fake::testing {
namespace {

TEST(ScalarMeta, SizeStrideNumel) {
  CheckAll({
      {.in = {"x: f32[s0, 3]"}, .call = "size(x, 0)", .out = "int s0"},
      {.in = {"x: f32[s0, 3]"}, .call = "size(x, -1)", .out = "int 3"},
      {.in = {"x: f32[u0, 2]"}, .call = "size(x, 0)", .out = "int u0"},
      {.in = {"x: f32[2, s0]"}, .call = "stride(x, 0)", .out = "int s0"},
      {.in = {"x: f32[2, s0]"}, .call = "stride(x, 1)", .out = "int 1"},
      // A possibly-empty unbacked dim counts as 1 in the strides before it.
      {.in = {"x: f32[2, u0]"}, .call = "stride(x, 0)", .out = "int Max(1, u0)"},
      // A view's stride is over its base.
      {.in = {"x: f32[2, 3]"}, .call = "t = transpose(x, 0, 1); stride(t, 1)", .out = "int 3"},
      {.in = {"x: f32[10]"}, .call = "t = slice(x, 0, 1, None, 3); stride(t, 0)", .out = "int 3"},
      {.in = {"x: f32[s0, 3]"}, .call = "numel(x)", .out = "int 3*s0"},
      {.in = {"x: f32[u0, u1]"}, .call = "numel(x)", .out = "int u0*u1"},
      {.in = {"x: f32[]"}, .call = "numel(x)", .out = "int 1"},
      {.in = {"x: f32[]"},
       .call = "size(x, 0)",
       .error = "shape: line 1: size: dimension specified as 0 but tensor has no dimensions"},
      {.in = {"x: f32[]"}, .call = "stride(x, -1)", .error = "shape: stride: dimension specified"},
      {.in = {"x: f32[2, 3]"},
       .call = "size(x, 2)",
       .error = "shape: dim 2 out of range for a tensor of rank 2"},
  });
}

TEST(ScalarMeta, MinMax) {
  CheckAll({
      {.call = "min(2, 3)", .out = "int 2"},
      {.call = "max(2, 3.5)", .out = "float 3.5"},
      {.in = {"n: int s1", "k: int u0"}, .call = "min(n, k)", .out = "int Min(s1, u0)"},
      {.in = {"n: int s1"}, .call = "max(n, 0)", .out = "int Max(0, s1)"},
      // Scalar arithmetic builds the expression; ranges are not consulted (s0 >= 2 here).
      {.in = {"x: f32[s0]"}, .call = "max(s0, 1)", .out = "int Max(1, s0)"},
      {.in = {"x: f32[2]"},
       .call = "min(x, 2)",
       .error = "invalid_program: min/max take scalars; use minimum/maximum for tensors"},
  });
}

// Scalar min/max (and maximum/minimum) of two bools give a bool, as docs/ops.md, eager and
// Python's max(True, False) (the meta function used to compute them on ints).
TEST(ScalarMeta, MinMaxOfBoolsIsBool) {
  CheckAll({
      {.call = "max(True, False)", .out = "bool True"},
      {.call = "min(True, False)", .out = "bool False"},
  });
}

}  // namespace
}  // namespace sf::fake::testing
