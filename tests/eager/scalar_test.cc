// Scalar arithmetic with Python semantics and the scalar-valued ops size/stride/numel/min/max,
// with one test per user error.
#include <cmath>
#include <limits>

#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

const Inputs& inputs() {
  static const Inputs* in = new Inputs{
      {"a", F32({2, 0, 3}, {})},
      {"b", I64({2, 3, 4}, std::vector<double>(24, 1))},
      {"s", I64({}, {5})},
  };
  return *in;
}

TEST(Scalar, Arithmetic) {
  run_cases({
      {"int + int", C(OpKind::kAdd, {I(2), I(3)}), Int(5)},
      {"bool + bool is int", C(OpKind::kAdd, {B(true), B(true)}), Int(2)},
      {"int + float", C(OpKind::kAdd, {I(2), F(0.5)}), Flt(2.5)},
      {"sub", C(OpKind::kSub, {I(1), I(3)}), Int(-2)},
      {"mul", C(OpKind::kMul, {I(3), I(4)}), Int(12)},
      {"true division", C(OpKind::kDiv, {I(-7), I(2)}), Flt(-3.5)},
      {"floordiv floors", C(OpKind::kFloorDiv, {I(7), I(-2)}), Int(-4)},
      {"floordiv negative dividend", C(OpKind::kFloorDiv, {I(-7), I(2)}), Int(-4)},
      {"remainder sign of divisor", C(OpKind::kRemainder, {I(7), I(-2)}), Int(-1)},
      {"remainder negative dividend", C(OpKind::kRemainder, {I(-7), I(2)}), Int(1)},
      {"float floordiv", C(OpKind::kFloorDiv, {F(7.5), I(2)}), Flt(3.0)},
      {"float remainder", C(OpKind::kRemainder, {F(-7.5), I(2)}), Flt(0.5)},
      {"float floordiv by inf", C(OpKind::kFloorDiv, {F(-0.5), F(kInf)}), Flt(-1.0)},
      {"float remainder by inf", C(OpKind::kRemainder, {F(-0.5), F(kInf)}), Flt(kInf)},
      {"INT64_MIN % -1", C(OpKind::kRemainder, {I(kMin), I(-1)}), Int(0)},
      {"neg bool is int", C(OpKind::kNeg, {B(true)}), Int(-1)},
      {"neg float", C(OpKind::kNeg, {F(2.5)}), Flt(-2.5)},
      {"abs int", C(OpKind::kAbs, {I(-3)}), Int(3)},
      {"abs float", C(OpKind::kAbs, {F(-2.5)}), Flt(2.5)},
  });
}

TEST(Scalar, CompareLogicalMinMax) {
  run_cases({
      {"int == float", C(OpKind::kEq, {I(2), F(2.0)}), Bl(true)},
      {"exact int/float compare", C(OpKind::kEq, {I(9007199254740993), F(9007199254740992.0)}),
       Bl(false)},
      {"exact int/float gt", C(OpKind::kGt, {I(9007199254740993), F(9007199254740992.0)}),
       Bl(true)},
      {"NaN != NaN", C(OpKind::kNe, {F(kNan), F(kNan)}), Bl(true)},
      {"NaN < 1", C(OpKind::kLt, {F(kNan), I(1)}), Bl(false)},
      {"le", C(OpKind::kLe, {I(3), I(3)}), Bl(true)},
      {"ge", C(OpKind::kGe, {I(2), I(3)}), Bl(false)},
      {"logical_and", C(OpKind::kLogicalAnd, {I(2), I(0)}), Bl(false)},
      {"logical_or", C(OpKind::kLogicalOr, {I(0), F(0.5)}), Bl(true)},
      {"logical_not", C(OpKind::kLogicalNot, {I(0)}), Bl(true)},
      {"maximum promotes to float", C(OpKind::kMaximum, {I(3), F(2.5)}), Flt(3.0)},
      {"minimum of bools is bool", C(OpKind::kMinimum, {B(true), B(false)}), Bl(false)},
      {"max NaN propagates", C(OpKind::kMax, {F(1.0), F(kNan)}), Flt(kNan)},
      {"max", C(OpKind::kMax, {I(2), I(7)}), Int(7)},
      {"min", C(OpKind::kMin, {I(2), I(7)}), Int(2)},
  });
}

TEST(Scalar, SizeStrideNumel) {
  run_cases(
      {
          {"size of a zero dim", C(OpKind::kSize, {V("a"), I(1)}), Int(0)},
          {"size negative dim", C(OpKind::kSize, {V("a"), I(-1)}), Int(3)},
          {"stride treats size 0 as 1", C(OpKind::kStride, {V("a"), I(0)}), Int(3)},
          {"stride", C(OpKind::kStride, {V("b"), I(0)}), Int(12)},
          {"stride last", C(OpKind::kStride, {V("b"), I(-1)}), Int(1)},
          {"numel", C(OpKind::kNumel, {V("b")}), Int(24)},
          {"numel empty", C(OpKind::kNumel, {V("a")}), Int(0)},
          {"numel 0-dim", C(OpKind::kNumel, {V("s")}), Int(1)},
      },
      inputs());
}

TEST(ScalarErrors, FloorDivByZero) {
  expect_error(C(OpKind::kFloorDiv, {I(1), I(0)}), {}, UserErrorKind::kZeroDivision,
               "floordiv: division by zero: int 1 // int 0");
}

TEST(ScalarErrors, FloatRemainderByZero) {
  expect_error(C(OpKind::kRemainder, {F(1.5), F(0.0)}), {}, UserErrorKind::kZeroDivision,
               "remainder: division by zero");
}

TEST(ScalarErrors, TrueDivisionByZero) {
  expect_error(C(OpKind::kDiv, {I(1), B(false)}), {}, UserErrorKind::kZeroDivision,
               "div: division by zero");
}

TEST(ScalarErrors, AddOverflow) {
  expect_error(C(OpKind::kAdd, {I(kMax), I(1)}), {}, UserErrorKind::kTooComplex,
               "add: integer overflow");
}

TEST(ScalarErrors, FloorDivOverflow) {
  expect_error(C(OpKind::kFloorDiv, {I(kMin), I(-1)}), {}, UserErrorKind::kTooComplex,
               "floordiv: integer overflow");
}

TEST(ScalarErrors, NegOverflow) {
  expect_error(C(OpKind::kNeg, {I(kMin)}), {}, UserErrorKind::kTooComplex, "neg: integer overflow");
}

TEST(ScalarErrors, MaxOfTensor) {
  expect_error(C(OpKind::kMax, {V("s"), I(1)}), inputs(), UserErrorKind::kInvalidProgram,
               "max: argument 'a' must be a scalar");
}

TEST(ScalarErrors, SizeOfZeroDim) {
  expect_error(C(OpKind::kSize, {V("s"), I(0)}), inputs(), UserErrorKind::kShape,
               "size: cannot be applied to a 0-dim tensor");
}

TEST(ScalarErrors, SizeDimOutOfRange) {
  expect_error(C(OpKind::kStride, {V("a"), I(3)}), inputs(), UserErrorKind::kShape,
               "stride: dim 3 out of range for a tensor of rank 3 (expected [-3, 2])");
}

}  // namespace
}  // namespace sf::eager::testing
