// engine/fake/meta/creation.cc: zeros, ones, full and arange on static, backed and unbacked
// sizes; a size that may be negative is checked (a guard when backed, a deferred assert when not).
#include <gtest/gtest.h>

#include "tests/fake/meta_test_util.h"

namespace sf::fake::testing {
namespace {

TEST(CreationMeta, ZerosOnesFull) {
  CheckAll({
      {.call = "zeros([2, 3])", .out = "f32[2, 3] stride=[3, 1]"},
      {.call = "zeros([])", .out = "f32[] stride=[]"},
      {.call = "zeros([0, 3])", .out = "f32[0, 3] stride=[3, 1]"},
      {.call = "zeros([3, 0])", .out = "f32[3, 0] stride=[1, 1]"},
      {.in = {"x: f32[s0, 3]"},
       .call = "ones([s0, 3], dtype=i64)",
       .out = "i64[s0, 3] stride=[3, 1]"},
      {.in = {"x: f32[3, s0]"}, .call = "ones([3, s0])", .out = "f32[3, s0] stride=[s0, 1]"},
      {.in = {"x: f32[u0]"}, .call = "full([u0, 2], 1.5)", .out = "f32[u0, 2] stride=[2, 1]"},
      // An unbacked size may be 0: the stride before it multiplies by max(size, 1).
      {.in = {"x: f32[u0]"}, .call = "zeros([2, u0])", .out = "f32[2, u0] stride=[Max(1, u0), 1]"},
      {.call = "full([2], True, dtype=bool)", .out = "bool[2]"},
      {.call = "full([2], 7, dtype=i64)", .out = "i64[2]"},
      // A size from an int input may be negative: guarded when backed ...
      {.in = {"n: int s1"},
       .call = "zeros([n])",
       .out = "f32[s1]",
       .facts = {"guard s1 >= 0"},
       .ranges = {"s1: [0, int_oo]"}},
      // ... and a deferred runtime assert (which narrows the range) when unbacked.
      {.in = {"k: int u0"},
       .call = "ones([k, 2])",
       .out = "f32[u0, 2]",
       .facts = {"assert u0 >= 0"},
       .ranges = {"u0: [0, int_oo]"}},
      {.call = "zeros([2, -1])", .error = "shape: negative size -1 at dim 1 of [2, -1]"},
      {.in = {"x: f32[2]"}, .call = "full([2], x)", .error = "invalid_program: must be a scalar"},
  });
}

// arange(start, end=None): length max(end - start, 0), i64 unless a dtype is given (docs/ops.md).
TEST(CreationMeta, Arange) {
  CheckAll({
      {.call = "arange(5)", .out = "i64[5] stride=[1]"},
      {.call = "arange(2, 7)", .out = "i64[5]"},
      {.call = "arange(-3, 0, dtype=f32)", .out = "f32[3]"},
      {.call = "arange(7, 2)", .out = "i64[0]"},
      {.in = {"x: f32[u0]"}, .call = "arange(u0)", .out = "i64[u0]"},
      {.in = {"n: int s1"}, .call = "arange(n)", .out = "i64[Max(0, s1)]"},
      {.in = {"x: f32[s0]"}, .call = "arange(2, s0)", .out = "i64[s0 - 2]"},
      {.call = "arange(2.5)", .error = "invalid_program: arange takes integer bounds"},
      {.call = "arange(3, dtype=bool)", .error = "invalid_program: arange of dtype bool"},
  });
}

}  // namespace
}  // namespace sf::fake::testing
