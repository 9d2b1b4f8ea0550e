// engine/fake/meta/join.cc: cat (legacy empty tensors skipped, sizes summed along dim, others
// equal), stack (equal shapes, new dim) and index_select (the dim takes the index's length).
#include <gtest/gtest.h>

#include "tests/fake/meta_test_util.h"

namespace sf::fake::testing {
namespace {

TEST(JoinMeta, Cat) {
  CheckAll({
      {.in = {"x: f32[2, 3]", "y: f32[4, 3]"},
       .call = "cat([x, y])",
       .out = "f32[6, 3] stride=[3, 1]"},
      {.in = {"x: f32[2, 3]", "y: f32[2, 4]"}, .call = "cat([x, y], -1)", .out = "f32[2, 7]"},
      {.in = {"x: f32[2]", "y: i64[3]"}, .call = "cat([x, y])", .out = "f32[5]"},
      {.in = {"x: f32[s0, 3]", "y: f32[s1, 3]"},
       .call = "cat([x, y])",
       .out = "f32[s0 + s1, 3] stride=[3, 1]"},
      {.in = {"x: f32[u0, 3]", "y: f32[2, 3]", "z: f32[u1, 3]"},
       .call = "cat([x, y, z])",
       .out = "f32[u0 + u1 + 2, 3]"},
      // 1-D tensors of static size 0 are skipped (legacy empty tensors) but promote the dtype.
      {.in = {"e: f32[0]", "x: i64[2, 3]"}, .call = "cat([e, x], 1)", .out = "f32[2, 3]"},
      {.in = {"e: i64[0]", "f: f32[0]"}, .call = "cat([e, f])", .out = "f32[0] stride=[1]"},
      // Sizes off the cat dim must be equal: backed ones guard, unbacked ones defer an assert.
      // (Which of two equal-hinted backed symbols is replaced follows their real names.)
      {.in = {"x: f32[2, s0]", "y: f32[2, s1=3]"},
       .call = "cat([x, y])",
       .out = "f32[4, s0]",
       .facts = {"guard Eq(s0, s1)", "s0 -> s1"}},
      {.in = {"x: f32[2, u0]", "y: f32[2, u1]"},
       .call = "cat([x, y])",
       .out = "f32[4, u0] stride=[Max(1, u1), 1]",
       .facts = {"assert Eq(u0, u1)", "u0 -> u1"}},
      {.in = {"x: f32[u0, 3]", "y: f32[u1, 4]"},
       .call = "cat([x, y])",
       .error = "shape: line 1: cat: sizes of tensors must match except in dimension 0: expected 3 "
                "but got 4 in dim 1 (tensor 1)"},
      {.in = {"x: f32[2, 3]", "y: f32[3]"},
       .call = "cat([x, y])",
       .error = "shape: tensors must have the same rank: f32[2, 3] vs f32[3]"},
      {.in = {"x: f32[]"},
       .call = "cat([x, x])",
       .error = "shape: zero-dimensional tensors cannot be concatenated"},
      {.in = {"x: f32[2, 3]"}, .call = "cat([x], 2)", .error = "shape: dim 2 out of range"},
  });
}

TEST(JoinMeta, Stack) {
  CheckAll({
      {.in = {"x: f32[2, 3]", "y: f32[2, 3]"},
       .call = "stack([x, y])",
       .out = "f32[2, 2, 3] stride=[6, 3, 1]"},
      {.in = {"x: f32[2, 3]", "y: f32[2, 3]"},
       .call = "stack([x, y, x], 2)",
       .out = "f32[2, 3, 3]"},
      {.in = {"x: f32[2, 3]", "y: f32[2, 3]"}, .call = "stack([x, y], -1)", .out = "f32[2, 3, 2]"},
      {.in = {"x: f32[]", "y: f32[]"}, .call = "stack([x, y])", .out = "f32[2] stride=[1]"},
      {.in = {"x: bool[2]", "y: i64[2]"}, .call = "stack([x, y])", .out = "i64[2, 2]"},
      {.in = {"x: f32[s0]", "y: f32[s0]"},
       .call = "stack([x, y])",
       .out = "f32[2, s0] stride=[s0, 1]"},
      {.in = {"x: f32[u0]", "y: f32[u1]"},
       .call = "stack([x, y])",
       .out = "f32[2, u0]",
       .facts = {"assert Eq(u0, u1)", "u0 -> u1"}},
      {.in = {"x: f32[2]", "y: f32[3]"},
       .call = "stack([x, y])",
       .error = "shape: stack expects each tensor to be equal size, but got f32[2] and f32[3]"},
      {.in = {"x: f32[2]", "y: f32[2, 1]"},
       .call = "stack([x, y])",
       .error = "shape: stack expects each tensor to be equal size"},
      {.in = {"x: f32[2]"}, .call = "stack([x], 2)", .error = "shape: dim 2 out of range"},
  });
}

TEST(JoinMeta, IndexSelect) {
  CheckAll({
      {.in = {"x: f32[5, 3]", "i: i64[4]"},
       .call = "index_select(x, 0, i)",
       .out = "f32[4, 3] stride=[3, 1]"},
      {.in = {"x: f32[s0, 3]", "i: i64[u0]"},
       .call = "index_select(x, -1, i)",
       .out = "f32[s0, u0] stride=[Max(1, u0), 1]"},
      // A 0-d index is one index: the dim keeps size 1.
      {.in = {"x: f32[5, 3]", "i: i64[]"}, .call = "index_select(x, 0, i)", .out = "f32[1, 3]"},
      {.in = {"x: f32[]", "i: i64[1]"}, .call = "index_select(x, 0, i)", .out = "f32[]"},
      {.in = {"x: f32[5, 3]", "i: f32[2]"},
       .call = "index_select(x, 0, i)",
       .error = "invalid_program: index_select: index must be a 1-D i64 tensor, got f32[2]"},
      {.in = {"x: f32[5, 3]", "i: i64[2]"},
       .call = "index_select(x, 2, i)",
       .error = "shape: dim 2 out of range"},
  });
}

// index_select on a 0-d tensor checks the dim (only 0 and -1 are valid) and the index (exactly
// one value, docs/ops.md), as eager; it used to return first, and a traced dim 5 reached the CPU
// kernel (it crashed there).
TEST(JoinMeta, IndexSelectOnZeroDimChecksDimAndIndex) {
  CheckAll({
      {.in = {"x: f32[]", "i: i64[1]"},
       .call = "index_select(x, 5, i)",
       .error = "shape: dim 5 out of range"},
      {.in = {"x: f32[]", "i: i64[3]"}, .call = "index_select(x, 0, i)", .error = "index: "},
  });
}

// Error kinds as docs/ops.md and eager give them: an empty cat/stack list is a `value` error and
// a 2-D index_select index a `shape` error (the meta functions used to raise invalid_program).
TEST(JoinMeta, ErrorKindsAsDocumented) {
  CheckAll({
      {.call = "cat([])", .error = "value: "},
      {.call = "stack([])", .error = "value: "},
      {.in = {"x: f32[5, 3]", "i: i64[2, 2]"}, .call = "index_select(x, 0, i)", .error = "shape: "},
  });
}

}  // namespace
}  // namespace sf::fake::testing
