// One test per user error of the pointwise ops: kind and message (Halide test/error style).
#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

const Inputs& inputs() {
  static const Inputs* in = new Inputs{
      {"a", I64({2, 3}, {1, 2, 3, 4, 5, 6})},
      {"b", I64({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})},
      {"d", I64({3}, {1, 0, 2})},
      {"f", F32({3}, {1, 2, 3})},
      {"m", Bool({3}, {1, 0, 1})},
  };
  return *in;
}

TEST(PointwiseErrors, BroadcastNamesDimAndShapes) {
  expect_error(C(OpKind::kAdd, {V("a"), V("b")}), inputs(), UserErrorKind::kShape,
               "add: cannot broadcast dim 1: 3 vs 4 (shapes [2, 3] and [2, 4])");
}

TEST(PointwiseErrors, BroadcastDifferentRanks) {
  expect_error(C(OpKind::kLt, {V("b"), V("d")}), inputs(), UserErrorKind::kShape,
               "lt: cannot broadcast dim 1: 4 vs 3 (shapes [2, 4] and [3])");
}

TEST(PointwiseErrors, WhereBroadcastNamesThreeShapes) {
  expect_error(C(OpKind::kWhere, {V("m"), V("a"), V("b")}), inputs(), UserErrorKind::kShape,
               "shapes [3], [2, 3] and [2, 4]");
}

TEST(PointwiseErrors, IntegerFloorDivByZero) {
  expect_error(C(OpKind::kFloorDiv, {V("a"), V("d")}), inputs(), UserErrorKind::kZeroDivision,
               "floordiv: integer division by zero");
}

TEST(PointwiseErrors, IntegerRemainderByZeroScalar) {
  expect_error(C(OpKind::kRemainder, {V("d"), I(0)}), inputs(), UserErrorKind::kZeroDivision,
               "remainder: integer division by zero");
}

TEST(PointwiseErrors, BoolDivisorZeroIsIntegerDivision) {
  expect_error(C(OpKind::kFloorDiv, {V("d"), B(false)}), inputs(), UserErrorKind::kZeroDivision,
               "integer division by zero");
}

TEST(PointwiseErrors, WhereConditionMustBeBool) {
  expect_error(C(OpKind::kWhere, {V("d"), V("d"), I(0)}), inputs(), UserErrorKind::kInvalidProgram,
               "where: condition must be a bool tensor");
}

TEST(PointwiseErrors, TupleOperand) {
  expect_error(C(OpKind::kAdd, {V("d"), Ints({1, 2})}), inputs(), UserErrorKind::kInvalidProgram,
               "add: argument 'b' must be a tensor or a scalar, got a list");
}

TEST(PointwiseErrors, ReluNeedsTensor) {
  expect_error(C(OpKind::kRelu, {I(3)}), inputs(), UserErrorKind::kInvalidProgram,
               "relu: argument 'a' must be a tensor, got int 3");
}

TEST(PointwiseErrors, ToNeedsDtype) {
  expect_error(C(OpKind::kTo, {V("f"), I(1)}), inputs(), UserErrorKind::kInvalidProgram,
               "to: argument 'dtype' must be a dtype");
}

}  // namespace
}  // namespace sf::eager::testing
