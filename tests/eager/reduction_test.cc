// Reductions: dims (int, list, negative, empty list = all), keepdim, empty extents, NaN, the
// double accumulator of f32 sum, and one test per user error.
#include <cmath>
#include <limits>

#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

const Inputs& inputs() {
  static const Inputs* in = new Inputs{
      {"a", F32({2, 3}, {1, 2, 3, 4, 5, 6})},
      {"i", I64({2, 3}, {1, -2, 3, -4, 5, -6})},
      {"m", Bool({2, 3}, {1, 0, 1, 0, 0, 0})},
      {"e", F32({0, 3}, {})},
      {"e2", F32({2, 0}, {})},
      {"n", F32({3}, {1, kNan, 3})},
      {"big", F32({3}, {16777216, 1, 1})},
      {"s", F32({}, {2.5})},
  };
  return *in;
}

ExprPtr keep() { return B(true); }

TEST(Reduction, Sum) {
  run_cases(
      {
          {"all dims", C(OpKind::kSum, {V("a")}), F32({}, {21})},
          {"dim 0", C(OpKind::kSum, {V("a"), Ints({0})}), F32({3}, {5, 7, 9})},
          {"int dim", C(OpKind::kSum, {V("a"), I(1)}), F32({2}, {6, 15})},
          {"negative dim keepdim", C(OpKind::kSum, {V("a"), Ints({-1}), keep()}),
           F32({2, 1}, {6, 15})},
          {"keepdim kwarg all dims", C(OpKind::kSum, {V("a")}, {{"keepdim", B(true)}}),
           F32({1, 1}, {21})},
          {"both dims", C(OpKind::kSum, {V("a"), Ints({1, 0})}), F32({}, {21})},
          {"empty dim list is all dims", C(OpKind::kSum, {V("a"), Ints({})}), F32({}, {21})},
          {"i64", C(OpKind::kSum, {V("i")}), I64({}, {-3})},
          {"bool sums to i64", C(OpKind::kSum, {V("m"), I(1)}), I64({2}, {2, 0})},
          {"empty extent", C(OpKind::kSum, {V("e")}), F32({}, {0})},
          {"empty extent dim 0", C(OpKind::kSum, {V("e"), I(0)}), F32({3}, {0, 0, 0})},
          {"empty extent dim 1", C(OpKind::kSum, {V("e2"), I(1)}), F32({2}, {0, 0})},
          {"empty output", C(OpKind::kSum, {V("e"), I(1)}), F32({0}, {})},
          {"accumulates in double", C(OpKind::kSum, {V("big")}), F32({}, {16777218})},
          {"NaN", C(OpKind::kSum, {V("n")}), F32({}, {kNan})},
          {"0-dim", C(OpKind::kSum, {V("s")}), F32({}, {2.5})},
          {"0-dim dim 0", C(OpKind::kSum, {V("s"), I(-1), keep()}), F32({}, {2.5})},
      },
      inputs());
}

TEST(Reduction, AmaxAmin) {
  run_cases(
      {
          {"amax dim 1", C(OpKind::kAmax, {V("a"), I(1)}), F32({2}, {3, 6})},
          {"amin i64 dim 0", C(OpKind::kAmin, {V("i"), I(0)}), I64({3}, {-4, -2, -6})},
          {"amax keepdim", C(OpKind::kAmax, {V("i"), I(0), keep()}), I64({1, 3}, {1, 5, 3})},
          {"amax NaN propagates", C(OpKind::kAmax, {V("n")}), F32({}, {kNan})},
          {"amin NaN propagates", C(OpKind::kAmin, {V("n")}), F32({}, {kNan})},
          {"amin bool", C(OpKind::kAmin, {V("m")}), Bool({}, {0})},
          {"amax bool dim", C(OpKind::kAmax, {V("m"), I(1)}), Bool({2}, {1, 0})},
          {"non-empty extent, empty output", C(OpKind::kAmax, {V("e2"), I(0)}), F32({0}, {})},
      },
      inputs());
}

TEST(Reduction, AnyAllCount) {
  run_cases(
      {
          {"any dim", C(OpKind::kAny, {V("m"), I(1)}), Bool({2}, {1, 0})},
          {"all", C(OpKind::kAll, {V("m")}), Bool({}, {0})},
          {"all of empty is True", C(OpKind::kAll, {V("e")}), Bool({}, {1})},
          {"any of empty is False", C(OpKind::kAny, {V("e")}), Bool({}, {0})},
          {"all NaN is truthy", C(OpKind::kAll, {V("n")}), Bool({}, {1})},
          {"any keepdim", C(OpKind::kAny, {V("a"), I(0), keep()}), Bool({1, 3}, {1, 1, 1})},
          {"all dim over empty extent", C(OpKind::kAll, {V("e2"), I(1)}), Bool({2}, {1, 1})},
          {"count_nonzero", C(OpKind::kCountNonzero, {V("i")}), I64({}, {6})},
          {"count_nonzero dim", C(OpKind::kCountNonzero, {V("m"), I(0)}), I64({3}, {1, 0, 1})},
          {"count_nonzero empty", C(OpKind::kCountNonzero, {V("e")}), I64({}, {0})},
          {"count_nonzero empty dim", C(OpKind::kCountNonzero, {V("e"), I(0)}),
           I64({3}, {0, 0, 0})},
      },
      inputs());
}

TEST(ReductionErrors, AmaxEmptyExtent) {
  expect_error(C(OpKind::kAmax, {V("e")}), inputs(), UserErrorKind::kShape,
               "amax: cannot reduce over the empty dim 0 of shape [0, 3]");
}

TEST(ReductionErrors, AminEmptyExtentDim) {
  expect_error(C(OpKind::kAmin, {V("e2"), I(-1)}), inputs(), UserErrorKind::kShape,
               "amin: cannot reduce over the empty dim 1 of shape [2, 0]");
}

TEST(ReductionErrors, DimOutOfRange) {
  expect_error(C(OpKind::kSum, {V("a"), I(2)}), inputs(), UserErrorKind::kShape,
               "sum: dim 2 out of range for a tensor of rank 2 (expected [-2, 1])");
}

TEST(ReductionErrors, RepeatedDim) {
  expect_error(C(OpKind::kAny, {V("a"), Ints({0, -2})}), inputs(), UserErrorKind::kShape,
               "any: dim 0 appears multiple times in the list of dims [0, -2]");
}

TEST(ReductionErrors, ScalarOperand) {
  expect_error(C(OpKind::kCountNonzero, {I(3)}), inputs(), UserErrorKind::kInvalidProgram,
               "count_nonzero: argument 'a' must be a tensor, got int 3");
}

TEST(ReductionErrors, KeepdimMustBeFlag) {
  expect_error(C(OpKind::kSum, {V("a"), I(0), I(1)}), inputs(), UserErrorKind::kInvalidProgram,
               "sum: argument 'keepdim' must be True or False");
}

}  // namespace
}  // namespace sf::eager::testing
