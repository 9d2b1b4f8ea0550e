// engine/fake/meta/reduction.cc: sum, amax, amin, any, all, count_nonzero with dim lists and
// keepdim; amax/amin need every reduced extent non-empty (a deferred assert when unbacked).
#include <gtest/gtest.h>

#include "tests/fake/meta_test_util.h"

namespace sf::fake::testing {
namespace {

TEST(ReductionMeta, ShapesAndDTypes) {
  CheckAll({
      {.in = {"x: f32[2, 3]"}, .call = "sum(x)", .out = "f32[] stride=[]"},
      {.in = {"x: f32[2, 3]"}, .call = "sum(x, [0])", .out = "f32[3]"},
      {.in = {"x: f32[2, 3]"}, .call = "sum(x, -1, True)", .out = "f32[2, 1] stride=[1, 1]"},
      {.in = {"x: f32[s0, 3, s1]"},
       .call = "sum(x, [0, 2], keepdim=True)",
       .out = "f32[1, 3, 1] stride=[3, 1, 1]"},
      {.in = {"x: f32[s0, 3, s1]"}, .call = "sum(x, [1])", .out = "f32[s0, s1] stride=[s1, 1]"},
      {.in = {"x: i64[u0, 2]"}, .call = "sum(x, [1])", .out = "i64[u0] stride=[1]"},
      {.in = {"x: bool[2]"}, .call = "sum(x)", .out = "i64[]"},
      {.in = {"x: i64[2, 3]"}, .call = "amax(x, [1])", .out = "i64[2]"},
      {.in = {"x: bool[2, 3]"}, .call = "amin(x, [0])", .out = "bool[3]"},
      {.in = {"x: f32[2, u0]"}, .call = "any(x, [1], True)", .out = "bool[2, 1]"},
      {.in = {"x: i64[s0]"}, .call = "all(x)", .out = "bool[]"},
      {.in = {"x: f32[2, 3]"}, .call = "count_nonzero(x, [1])", .out = "i64[2]"},
      {.in = {"x: bool[s0, u0]"}, .call = "count_nonzero(x)", .out = "i64[]"},
      // A 0-d tensor accepts dims 0 and -1.
      {.in = {"x: f32[]"}, .call = "sum(x, [0])", .out = "f32[]"},
      {.in = {"x: f32[]"}, .call = "amin(x, [-1], True)", .out = "f32[]"},
  });
}

TEST(ReductionMeta, DimErrors) {
  CheckAll({
      {.in = {"x: f32[2, 3]"},
       .call = "sum(x, [0, -2])",
       .error = "shape: line 1: sum: dim -2 appears twice"},
      {.in = {"x: f32[2, 3]"},
       .call = "any(x, [2])",
       .error = "shape: dim 2 out of range for a tensor of rank 2"},
      {.in = {"x: f32[]"},
       .call = "all(x, [1])",
       .error = "shape: dim 1 out of range for a tensor of rank 0"},
  });
}

// amax/amin have no identity: each reduced extent must be > 0 (docs/ops.md), even when the
// output is empty; an unbacked extent gets the check as a deferred assert that narrows its range.
TEST(ReductionMeta, AmaxAminNeedNonEmptyExtents) {
  CheckAll({
      {.in = {"x: f32[0, 3]"},
       .call = "amax(x, [0])",
       .error = "shape: line 1: amax: amax over an empty extent of f32[0, 3]"},
      {.in = {"x: f32[0, 3]"}, .call = "amin(x, [1])", .out = "f32[0]"},
      {.in = {"x: f32[3, 0]"}, .call = "amin(x)", .error = "shape: amin over an empty extent"},
      {.in = {"x: f32[s0, 3]"}, .call = "amax(x, [0])", .out = "f32[3]"},
      {.in = {"x: f32[u0, 3]"},
       .call = "amax(x, [0])",
       .out = "f32[3]",
       .facts = {"assert u0 >= 1"},
       .ranges = {"u0: [1, int_oo] size-like"}},
      // Only the reduced dims are checked.
      {.in = {"x: f32[u0, 3]"}, .call = "amin(x, [1], True)", .out = "f32[u0, 1]"},
      {.in = {"x: f32[u0, u1]"},
       .call = "amin(x)",
       .out = "f32[]",
       .facts = {"assert u0 >= 1", "assert u1 >= 1"},
       .ranges = {"u0: [1, int_oo] size-like", "u1: [1, int_oo] size-like"}},
      {.in = {"x: f32[u0]"}, .call = "sum(x)", .out = "f32[]"},
  });
}

// An empty dim list reduces every dim, as eager does and docs/ops.md says ("an empty list
// reduces every dim, as PyTorch's sum(dim=[])"); the meta function used to reduce none.
TEST(ReductionMeta, EmptyDimListReducesEveryDim) {
  CheckAll({
      {.in = {"x: f32[2, 3]"}, .call = "sum(x, [])", .out = "f32[]"},
      {.in = {"x: f32[2, 3]"}, .call = "amax(x, [], True)", .out = "f32[1, 1]"},
      {.in = {"x: f32[2, 3]"}, .call = "count_nonzero(x, [])", .out = "i64[]"},
  });
}

}  // namespace
}  // namespace sf::fake::testing
