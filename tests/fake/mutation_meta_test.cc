// The mutation family (meta_mutation in engine/fake/meta/scalar.cc): add_ returns its first
// argument, one version later; the other operand broadcasts to its shape and its dtype must not
// narrow.
#include <gtest/gtest.h>

#include "tests/fake/meta_test_util.h"

namespace sf::fake::testing {
namespace {

TEST(MutationMeta, AddInplace) {
  CheckAll({
      {.in = {"x: f32[2, 3]", "y: f32[3]"}, .call = "add_(x, y)", .out = "f32[2, 3] stride=[3, 1]"},
      {.in = {"x: f32[2, 3]"}, .call = "add_(x, 1)", .out = "f32[2, 3]"},
      {.in = {"x: i64[2]", "y: bool[2]"}, .call = "add_(x, y)", .out = "i64[2]"},
      {.in = {"x: f32[2]", "y: i64[2]"}, .call = "add_(x, y)", .out = "f32[2]"},
      // The result is the input itself: a view stays a view (its offset and strides).
      {.in = {"x: f32[4, 3]"},
       .call = "t = select(x, 0, 2); add_(t, 1.5)",
       .out = "f32[3] stride=[1] offset=6"},
      {.in = {"x: f32[u0, 3]", "y: f32[u1, 3]"},
       .call = "add_(x, y)",
       .out = "f32[u0, 3]",
       .facts = {"assert Eq(u0, u1)", "u0 -> u1"}},
      {.in = {"x: f32[3]", "y: f32[2, 3]"},
       .call = "add_(x, y)",
       .error = "shape: line 1: add_: output with shape [3] doesn't match the broadcast shape "
                "[2, 3]"},
      {.in = {"x: i64[2]"},
       .call = "add_(x, 0.5)",
       .error = "invalid_program: add_: result type f32 can't be cast to the desired output type "
                "i64"},
      {.in = {"x: bool[2]", "y: bool[2]"},
       .call = "add_(x, y)",
       .error = "invalid_program: add_: in-place addition on a bool tensor"},
      {.in = {"x: bool[2]"}, .call = "add_(x, 1)", .error = "invalid_program: add_"},
  });
}

// The broadcast shape must be a's, dim for dim: a size-1 dim of `a` that `b` would grow is
// refused, as eager and PyTorch ("output with shape [1] doesn't match the broadcast shape [3]",
// docs/ops.md "Mutation"); the meta function used to compare only the rank.
TEST(MutationMeta, BroadcastMustNotGrowTheMutatedTensor) {
  CheckAll({
      {.in = {"x: f32[1]", "y: f32[3]"},
       .call = "add_(x, y)",
       .error = "shape: add_: output with shape [1] doesn't match the broadcast shape [3]"},
      {.in = {"x: f32[2, 1]", "y: f32[2, 4]"},
       .call = "add_(x, y)",
       .error = "shape: add_: output with shape [2, 1] doesn't match the broadcast shape [2, 4]"},
  });
}

}  // namespace
}  // namespace sf::fake::testing
