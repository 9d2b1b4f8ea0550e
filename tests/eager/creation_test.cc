// zeros/ones/full (the value is cast to the dtype) and arange, with one test per user error.
#include <limits>

#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

const Inputs& inputs() {
  static const Inputs* in = new Inputs{
      {"n", Int(3)},
      {"x", F32({2, 1}, {1, 2})},
  };
  return *in;
}

TEST(Creation, Fill) {
  run_cases(
      {
          {"zeros", C(OpKind::kZeros, {Ints({2, 3})}), F32({2, 3}, {0, 0, 0, 0, 0, 0})},
          {"zeros i64", C(OpKind::kZeros, {Ints({2}), D(DType::kInt64)}), I64({2}, {0, 0})},
          {"ones bool", C(OpKind::kOnes, {Ints({3}), D(DType::kBool)}), Bool({3}, {1, 1, 1})},
          {"ones 0-dim", C(OpKind::kOnes, {Ints({})}), F32({}, {1})},
          {"zeros with a zero dim", C(OpKind::kZeros, {Ints({0, 2})}), F32({0, 2}, {})},
          {"sizes from scalars", C(OpKind::kZeros, {L({V("n"), C(OpKind::kSize, {V("x"), I(0)})})}),
           F32({3, 2}, {0, 0, 0, 0, 0, 0})},
          {"full f32", C(OpKind::kFull, {Ints({2}), F(2.5)}), F32({2}, {2.5, 2.5})},
          {"full i64 truncates", C(OpKind::kFull, {Ints({2}), F(-2.7), D(DType::kInt64)}),
           I64({2}, {-2, -2})},
          {"full bool", C(OpKind::kFull, {Ints({1}), I(3), D(DType::kBool)}), Bool({1}, {1})},
          {"full from bool", C(OpKind::kFull, {Ints({2}), B(true)}), F32({2}, {1, 1})},
          {"full dtype kwarg", C(OpKind::kFull, {Ints({2}), I(7)}, {{"dtype", D(DType::kInt64)}}),
           I64({2}, {7, 7})},
      },
      inputs());
}

TEST(Creation, Arange) {
  run_cases(
      {
          {"one argument", C(OpKind::kArange, {I(4)}), I64({4}, {0, 1, 2, 3})},
          {"start end", C(OpKind::kArange, {I(2), I(5)}), I64({3}, {2, 3, 4})},
          {"end before start is empty", C(OpKind::kArange, {I(5), I(2)}), I64({0}, {})},
          {"zero", C(OpKind::kArange, {I(0)}), I64({0}, {})},
          {"f32", C(OpKind::kArange, {I(-2), I(1), D(DType::kFloat32)}), F32({3}, {-2, -1, 0})},
          {"dtype kwarg", C(OpKind::kArange, {V("n")}, {{"dtype", D(DType::kFloat32)}}),
           F32({3}, {0, 1, 2})},
      },
      inputs());
}

TEST(CreationErrors, NegativeSize) {
  expect_error(C(OpKind::kZeros, {Ints({2, -1})}), inputs(), UserErrorKind::kShape,
               "zeros: negative size -1 at dim 1 in shape [2, -1]");
}

TEST(CreationErrors, TensorFillValue) {
  expect_error(
      C(OpKind::kFull, {Ints({2}), V("x")}), inputs(), UserErrorKind::kInvalidProgram,
      "full: argument 'value' must be a scalar (int, float or bool), got f32[2, 1] tensor");
}

TEST(CreationErrors, FloatSize) {
  expect_error(C(OpKind::kOnes, {L({F(2.5)})}), inputs(), UserErrorKind::kInvalidProgram,
               "ones: argument 'shape' must be a list of ints");
}

TEST(CreationErrors, BoolSize) {
  expect_error(C(OpKind::kZeros, {L({B(true)})}), inputs(), UserErrorKind::kInvalidProgram,
               "zeros: argument 'shape' must be a list of ints");
}

TEST(CreationErrors, ArangeBool) {
  expect_error(C(OpKind::kArange, {I(3), None(), D(DType::kBool)}), inputs(),
               UserErrorKind::kInvalidProgram, "arange: dtype bool is not supported");
}

TEST(CreationErrors, ArangeFloatBound) {
  expect_error(C(OpKind::kArange, {F(0.5)}), inputs(), UserErrorKind::kInvalidProgram,
               "arange: argument 'start' must be an int, got float 0.5");
}

TEST(CreationErrors, TooManyElements) {
  expect_error(C(OpKind::kZeros, {Ints({1 << 20, 1 << 20})}), inputs(), UserErrorKind::kTooComplex,
               "zeros: a tensor of shape [1048576, 1048576] exceeds");
}

TEST(CreationErrors, ArangeTooLong) {
  expect_error(C(OpKind::kArange, {I(std::numeric_limits<int64_t>::min()), I(1)}), inputs(),
               UserErrorKind::kTooComplex, "exceeds the eager limit");
}

}  // namespace
}  // namespace sf::eager::testing
