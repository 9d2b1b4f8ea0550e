// View ops (as copies): view/reshape with -1, permute, transpose, unsqueeze, squeeze, expand,
// flatten, incl. 0-dim and zero-size tensors; one test per user error.
#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

std::vector<double> iota(int n) {
  std::vector<double> v;
  for (int k = 0; k < n; ++k) v.push_back(k);
  return v;
}

const Inputs& inputs() {
  static const Inputs* in = new Inputs{
      {"a", I64({2, 3}, iota(6))}, {"t", I64({2, 3, 4}, iota(24))}, {"b", I64({3, 1}, {1, 2, 3})},
      {"s", I64({}, {7})},         {"e", I64({0, 3}, {})},
  };
  return *in;
}

TEST(View, ViewReshape) {
  run_cases(
      {
          {"view", C(OpKind::kView, {V("a"), Ints({3, 2})}), I64({3, 2}, iota(6))},
          {"reshape -1", C(OpKind::kReshape, {V("a"), Ints({-1})}), I64({6}, iota(6))},
          {"view inferred dim", C(OpKind::kView, {V("a"), Ints({-1, 2})}), I64({3, 2}, iota(6))},
          {"view unit dims", C(OpKind::kView, {V("a"), Ints({1, -1, 1})}), I64({1, 6, 1}, iota(6))},
          {"reshape empty", C(OpKind::kReshape, {V("e"), Ints({3, 0})}), I64({3, 0}, {})},
          {"reshape empty inferred", C(OpKind::kReshape, {V("e"), Ints({-1, 3})}), I64({0, 3}, {})},
          {"view 0-dim", C(OpKind::kView, {V("s"), Ints({1, 1})}), I64({1, 1}, {7})},
          {"view to 0-dim", C(OpKind::kView, {C(OpKind::kView, {V("s"), Ints({1})}), Ints({})}),
           I64({}, {7})},
      },
      inputs());
}

TEST(View, PermuteTranspose) {
  run_cases(
      {
          {"permute 2-D", C(OpKind::kPermute, {V("a"), Ints({1, 0})}),
           I64({3, 2}, {0, 3, 1, 4, 2, 5})},
          {"permute negative", C(OpKind::kPermute, {V("a"), Ints({-1, 0})}),
           I64({3, 2}, {0, 3, 1, 4, 2, 5})},
          {"permute 3-D", C(OpKind::kPermute, {V("t"), Ints({2, 0, 1})}),
           I64({4, 2, 3}, {0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                           2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23})},
          {"transpose", C(OpKind::kTranspose, {V("t"), I(0), I(-1)}),
           I64({4, 3, 2}, {0, 12, 4, 16, 8,  20, 1, 13, 5, 17, 9,  21,
                           2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23})},
          {"transpose same dim", C(OpKind::kTranspose, {V("a"), I(1), I(-1)}),
           I64({2, 3}, iota(6))},
          {"transpose 0-dim", C(OpKind::kTranspose, {V("s"), I(0), I(-1)}), I64({}, {7})},
          {"transpose empty", C(OpKind::kTranspose, {V("e"), I(0), I(1)}), I64({3, 0}, {})},
      },
      inputs());
}

TEST(View, UnsqueezeSqueezeExpandFlatten) {
  run_cases(
      {
          {"unsqueeze 0", C(OpKind::kUnsqueeze, {V("a"), I(0)}), I64({1, 2, 3}, iota(6))},
          {"unsqueeze -1", C(OpKind::kUnsqueeze, {V("a"), I(-1)}), I64({2, 3, 1}, iota(6))},
          {"unsqueeze -3", C(OpKind::kUnsqueeze, {V("a"), I(-3)}), I64({1, 2, 3}, iota(6))},
          {"unsqueeze 0-dim", C(OpKind::kUnsqueeze, {V("s"), I(0)}), I64({1}, {7})},
          {"squeeze size 1", C(OpKind::kSqueeze, {V("b"), I(-1)}), I64({3}, {1, 2, 3})},
          {"squeeze no-op", C(OpKind::kSqueeze, {V("a"), I(0)}), I64({2, 3}, iota(6))},
          {"squeeze 0-dim", C(OpKind::kSqueeze, {V("s"), I(0)}), I64({}, {7})},
          {"expand new dim and stretch", C(OpKind::kExpand, {V("b"), Ints({2, 3, 2})}),
           I64({2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3})},
          {"expand -1 keeps", C(OpKind::kExpand, {V("b"), Ints({-1, 2})}),
           I64({3, 2}, {1, 1, 2, 2, 3, 3})},
          {"expand to 0", C(OpKind::kExpand, {V("b"), Ints({3, 0})}), I64({3, 0}, {})},
          {"expand 0-dim", C(OpKind::kExpand, {V("s"), Ints({2})}), I64({2}, {7, 7})},
          {"flatten all", C(OpKind::kFlatten, {V("t")}), I64({24}, iota(24))},
          {"flatten from 1", C(OpKind::kFlatten, {V("t"), I(1)}), I64({2, 12}, iota(24))},
          {"flatten 0..1", C(OpKind::kFlatten, {V("t"), I(0), I(1)}), I64({6, 4}, iota(24))},
          {"flatten negative", C(OpKind::kFlatten, {V("t"), I(-2), I(-1)}), I64({2, 12}, iota(24))},
          {"flatten one dim", C(OpKind::kFlatten, {V("a"), I(1), I(1)}), I64({2, 3}, iota(6))},
          {"flatten 0-dim is [1]", C(OpKind::kFlatten, {V("s")}), I64({1}, {7})},
          {"flatten empty", C(OpKind::kFlatten, {V("e")}), I64({0}, {})},
      },
      inputs());
}

TEST(View, TensorSplitIsSlices) {
  // [0, i0), [i0, i1), ..., [ik, end), clamped as Python slices: out-of-order indices give empty
  // parts, negative ones count from the end.
  run_cases(
      {
          {"rows", C(OpKind::kTensorSplit, {V("a"), Ints({1})}),
           Tup({I64({1, 3}, {0, 1, 2}), I64({1, 3}, {3, 4, 5})})},
          {"columns, negative", C(OpKind::kTensorSplit, {V("a"), Ints({-1}), I(1)}),
           Tup({I64({2, 2}, {0, 1, 3, 4}), I64({2, 1}, {2, 5})})},
          {"out of order and past the end", C(OpKind::kTensorSplit, {V("a"), Ints({2, 1, 9})}),
           Tup({I64({2, 3}, iota(6)), I64({0, 3}, {}), I64({1, 3}, {3, 4, 5}), I64({0, 3}, {})})},
      },
      inputs());
}

TEST(ViewErrors, ViewNumelMismatch) {
  expect_error(C(OpKind::kView, {V("a"), Ints({4, 2})}), inputs(), UserErrorKind::kShape,
               "view: shape [4, 2] is invalid for input of shape [2, 3] (6 elements)");
}

TEST(ViewErrors, TwoInferredDims) {
  expect_error(C(OpKind::kView, {V("a"), Ints({-1, -1})}), inputs(), UserErrorKind::kShape,
               "only one dimension can be inferred");
}

TEST(ViewErrors, NegativeSize) {
  expect_error(C(OpKind::kReshape, {V("a"), Ints({-2, 3})}), inputs(), UserErrorKind::kShape,
               "reshape: invalid size -2 at dim 0");
}

TEST(ViewErrors, AmbiguousInferredDim) {
  expect_error(C(OpKind::kReshape, {V("e"), Ints({-1, 0})}), inputs(), UserErrorKind::kShape,
               "the -1 dim is ambiguous");
}

TEST(ViewErrors, InferredDimNotDivisible) {
  expect_error(C(OpKind::kReshape, {V("a"), Ints({-1, 4})}), inputs(), UserErrorKind::kShape,
               "shape [-1, 4] is invalid for input of shape [2, 3]");
}

TEST(ViewErrors, PermuteWrongLength) {
  expect_error(C(OpKind::kPermute, {V("a"), Ints({0})}), inputs(), UserErrorKind::kShape,
               "permute: dims [0] do not match the rank 2");
}

TEST(ViewErrors, PermuteRepeatedDim) {
  expect_error(C(OpKind::kPermute, {V("a"), Ints({0, -2})}), inputs(), UserErrorKind::kShape,
               "dim 0 repeats in dims [0, -2]");
}

TEST(ViewErrors, TransposeDimOutOfRange) {
  expect_error(C(OpKind::kTranspose, {V("a"), I(0), I(2)}), inputs(), UserErrorKind::kShape,
               "transpose: dim 2 out of range for a tensor of rank 2");
}

TEST(ViewErrors, UnsqueezeDimOutOfRange) {
  expect_error(
      C(OpKind::kUnsqueeze, {V("a"), I(3)}), inputs(), UserErrorKind::kShape,
      "unsqueeze: dim 3 out of range for a new dim of a tensor of rank 2 (expected [-3, 2])");
}

TEST(ViewErrors, ExpandTooFewSizes) {
  expect_error(C(OpKind::kExpand, {V("b"), Ints({2})}), inputs(), UserErrorKind::kShape,
               "the number of sizes must be at least the tensor's rank");
}

TEST(ViewErrors, ExpandNonSingleton) {
  expect_error(C(OpKind::kExpand, {V("b"), Ints({4, 2})}), inputs(), UserErrorKind::kShape,
               "the expanded size 4 must match the existing size 3 at non-singleton dim 0");
}

TEST(ViewErrors, ExpandMinusOneInNewDim) {
  expect_error(C(OpKind::kExpand, {V("b"), Ints({-1, 3, 1})}), inputs(), UserErrorKind::kShape,
               "size -1 is not allowed in new leading dim 0");
}

TEST(ViewErrors, FlattenStartAfterEnd) {
  expect_error(C(OpKind::kFlatten, {V("t"), I(2), I(1)}), inputs(), UserErrorKind::kShape,
               "flatten: start_dim 2 comes after end_dim 1");
}

// stride() of a view reports the view's strides over its base, as PyTorch (t is i64[2, 3, 4]
// with strides [12, 4, 1]); reshape and flatten report contiguous strides.
TEST(View, StridesOfViews) {
  auto stride = [](ExprPtr v, int64_t d) { return C(OpKind::kStride, {v, I(d)}); };
  ExprPtr tr = C(OpKind::kTranspose, {V("t"), I(0), I(2)});  // [4, 3, 2], strides [1, 4, 12]
  ExprPtr sl = C(OpKind::kSlice, {V("t"), I(2), I(1), I(4), I(2)});  // [2, 3, 2], [12, 4, 2]
  ExprPtr un = C(OpKind::kUnsqueeze, {V("t"), I(1)});                // [2, 1, 3, 4], [12, 12, 4, 1]
  ExprPtr ex = C(OpKind::kExpand, {V("b"), Ints({2, 3, 4})});        // [2, 3, 4], [0, 1, 0]
  ExprPtr se = C(OpKind::kSelect, {tr, I(1), I(0)});                 // [4, 2], [1, 12]
  ExprPtr empty = C(OpKind::kSlice, {V("t"), I(2), I(3), I(1), I(2)});  // [2, 3, 0], [12, 4, 2]
  run_cases(
      {
          {"transpose", stride(tr, 2), Int(12)},
          {"slice with step", stride(sl, 2), Int(2)},
          {"empty slice keeps the step", stride(empty, 2), Int(2)},
          {"unsqueeze", stride(un, 1), Int(12)},
          {"unsqueeze at the end", stride(C(OpKind::kUnsqueeze, {V("t"), I(3)}), 3), Int(1)},
          {"expand new dim", stride(ex, 0), Int(0)},
          {"expand size-1 dim", stride(ex, 2), Int(0)},
          {"expand kept dim", stride(ex, 1), Int(1)},
          {"select of a transpose", stride(se, 1), Int(12)},
          {"permute", stride(C(OpKind::kPermute, {V("t"), Ints({2, 0, 1})}), 1), Int(12)},
          {"narrow", stride(C(OpKind::kNarrow, {tr, I(0), I(1), I(2)}), 2), Int(12)},
          {"reshape of a view is contiguous", stride(C(OpKind::kReshape, {tr, Ints({-1})}), 0),
           Int(1)},
          {"flatten is contiguous", stride(C(OpKind::kFlatten, {sl}), 0), Int(1)},
          {"pointwise result is contiguous", stride(C(OpKind::kNeg, {tr}), 0), Int(6)},
      },
      inputs());
}

}  // namespace
}  // namespace sf::eager::testing
