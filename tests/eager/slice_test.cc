// slice (Python bounds: negative, out of range, steps), narrow and select, with one test per user
// error.
#include <limits>

#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

const Inputs& inputs() {
  static const Inputs* in = new Inputs{
      {"a", I64({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})},
      {"v", I64({6}, {0, 1, 2, 3, 4, 5})},
      {"e", F32({0, 3}, {})},
      {"s", I64({}, {7})},
  };
  return *in;
}

ExprPtr slice(ExprPtr t, int64_t dim, ExprPtr start, ExprPtr end = None(), int64_t step = 1) {
  return C(OpKind::kSlice, {std::move(t), I(dim), std::move(start), std::move(end), I(step)});
}

TEST(Slice, PythonBounds) {
  run_cases(
      {
          {"plain", slice(V("v"), 0, I(1), I(4)), I64({3}, {1, 2, 3})},
          {"negative start", slice(V("v"), 0, I(-2)), I64({2}, {4, 5})},
          {"negative end", slice(V("v"), 0, None(), I(-1)), I64({5}, {0, 1, 2, 3, 4})},
          {"step 2", slice(V("v"), 0, I(0), I(6), 2), I64({3}, {0, 2, 4})},
          {"step 4", slice(V("v"), 0, None(), None(), 4), I64({2}, {0, 4})},
          {"step past end", slice(V("v"), 0, I(1), None(), 10), I64({1}, {1})},
          {"clamped both", slice(V("v"), 0, I(-100), I(100)), I64({6}, {0, 1, 2, 3, 4, 5})},
          {"end before start", slice(V("v"), 0, I(4), I(2)), I64({0}, {})},
          {"start past size", slice(V("v"), 0, I(7), I(9)), I64({0}, {})},
          {"INT64_MAX end", slice(V("v"), 0, I(1), I(kMax)), I64({5}, {1, 2, 3, 4, 5})},
          {"INT64_MIN start", slice(V("v"), 0, I(kMin), I(2)), I64({2}, {0, 1})},
          {"dim 1 with step", slice(V("a"), 1, I(1), None(), 3), I64({2, 2}, {1, 4, 6, 9})},
          {"negative dim", slice(V("a"), -1, I(-3), I(-1)), I64({2, 2}, {2, 3, 7, 8})},
          {"dim 0", slice(V("a"), 0, I(1)), I64({1, 5}, {5, 6, 7, 8, 9})},
          {"step kwarg", C(OpKind::kSlice, {V("v"), I(0)}, {{"step", I(3)}}), I64({2}, {0, 3})},
          {"empty input", slice(V("e"), 1, I(1)), F32({0, 2}, {})},
      },
      inputs());
}

TEST(Slice, NarrowSelect) {
  run_cases(
      {
          {"narrow", C(OpKind::kNarrow, {V("a"), I(1), I(1), I(3)}),
           I64({2, 3}, {1, 2, 3, 6, 7, 8})},
          {"narrow negative start", C(OpKind::kNarrow, {V("a"), I(1), I(-2), I(2)}),
           I64({2, 2}, {3, 4, 8, 9})},
          {"narrow empty at the end", C(OpKind::kNarrow, {V("a"), I(0), I(2), I(0)}),
           I64({0, 5}, {})},
          {"narrow negative dim", C(OpKind::kNarrow, {V("a"), I(-1), I(5), I(0)}), I64({2, 0}, {})},
          {"narrow whole", C(OpKind::kNarrow, {V("v"), I(0), I(-6), I(6)}),
           I64({6}, {0, 1, 2, 3, 4, 5})},
          {"select row", C(OpKind::kSelect, {V("a"), I(0), I(1)}), I64({5}, {5, 6, 7, 8, 9})},
          {"select negative index", C(OpKind::kSelect, {V("a"), I(1), I(-1)}), I64({2}, {4, 9})},
          {"select negative dim", C(OpKind::kSelect, {V("a"), I(-2), I(-2)}),
           I64({5}, {0, 1, 2, 3, 4})},
          {"select to 0-dim", C(OpKind::kSelect, {V("v"), I(0), I(3)}), I64({}, {3})},
      },
      inputs());
}

TEST(SliceErrors, ZeroStep) {
  expect_error(slice(V("v"), 0, I(0), I(3), 0), inputs(), UserErrorKind::kValue,
               "slice: step must be positive, got 0");
}

TEST(SliceErrors, NegativeStep) {
  expect_error(slice(V("v"), 0, I(0), I(3), -1), inputs(), UserErrorKind::kValue,
               "step must be positive, got -1");
}

TEST(SliceErrors, ZeroDimTensor) {
  expect_error(slice(V("s"), 0, I(0)), inputs(), UserErrorKind::kShape,
               "slice: cannot be applied to a 0-dim tensor");
}

TEST(SliceErrors, DimOutOfRange) {
  expect_error(slice(V("a"), 2, I(0)), inputs(), UserErrorKind::kShape,
               "slice: dim 2 out of range for a tensor of rank 2");
}

TEST(SliceErrors, NarrowStartOutOfRange) {
  expect_error(C(OpKind::kNarrow, {V("a"), I(1), I(6), I(0)}), inputs(), UserErrorKind::kIndex,
               "narrow: start 6 out of range [-5, 5] for dim 1 of shape [2, 5]");
}

TEST(SliceErrors, NarrowNegativeStartOutOfRange) {
  expect_error(C(OpKind::kNarrow, {V("a"), I(1), I(-6), I(1)}), inputs(), UserErrorKind::kIndex,
               "start -6 out of range");
}

TEST(SliceErrors, NarrowPastEnd) {
  expect_error(C(OpKind::kNarrow, {V("a"), I(1), I(3), I(3)}), inputs(), UserErrorKind::kIndex,
               "narrow: start 3 + length 3 exceeds the size 5 for dim 1");
}

TEST(SliceErrors, NarrowNegativeLength) {
  expect_error(C(OpKind::kNarrow, {V("a"), I(0), I(0), I(-1)}), inputs(), UserErrorKind::kValue,
               "narrow: length must be non-negative, got -1");
}

TEST(SliceErrors, SelectIndexOutOfRange) {
  expect_error(C(OpKind::kSelect, {V("a"), I(1), I(5)}), inputs(), UserErrorKind::kIndex,
               "select: index 5 is out of bounds for dim 1 with size 5 (shape [2, 5])");
}

TEST(SliceErrors, SelectNegativeIndexOutOfRange) {
  expect_error(C(OpKind::kSelect, {V("a"), I(0), I(-3)}), inputs(), UserErrorKind::kIndex,
               "index -3 is out of bounds for dim 0 with size 2");
}

TEST(SliceErrors, SelectEmptyDim) {
  expect_error(C(OpKind::kSelect, {V("e"), I(0), I(0)}), inputs(), UserErrorKind::kIndex,
               "index 0 is out of bounds for dim 0 with size 0");
}

TEST(SliceErrors, SelectZeroDim) {
  expect_error(C(OpKind::kSelect, {V("s"), I(0), I(0)}), inputs(), UserErrorKind::kShape,
               "select: cannot be applied to a 0-dim tensor");
}

}  // namespace
}  // namespace sf::eager::testing
