// The dtype promotion table: tensor/tensor (bool < i64 < f32), weak scalars (only raise the
// category), bool tensor arithmetic as PyTorch's (add/mul stay bool, the rest refuse), and per-op
// result dtypes (div f32, comparisons bool).
#include <cmath>

#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

const Inputs& inputs() {
  static const Inputs* in = new Inputs{
      {"tb", Bool({2}, {1, 0})}, {"ti", I64({2}, {3, -2})}, {"tf", F32({2}, {1.5, -0.5})},
      {"zf", F32({}, {2.5})},  // 0-dim tensors promote like any tensor, not weakly
      {"zi", I64({}, {4})},
  };
  return *in;
}

TEST(Promotion, TensorTensor) {
  run_cases(
      {
          {"bool + bool stays bool (or)", C(OpKind::kAdd, {V("tb"), V("tb")}), Bool({2}, {1, 0})},
          {"bool * bool stays bool (and)", C(OpKind::kMul, {V("tb"), V("tb")}), Bool({2}, {1, 0})},
          {"bool + i64", C(OpKind::kAdd, {V("tb"), V("ti")}), I64({2}, {4, -2})},
          {"bool + f32", C(OpKind::kAdd, {V("tb"), V("tf")}), F32({2}, {2.5, -0.5})},
          {"i64 * i64", C(OpKind::kMul, {V("ti"), V("ti")}), I64({2}, {9, 4})},
          {"i64 + f32", C(OpKind::kAdd, {V("ti"), V("tf")}), F32({2}, {4.5, -2.5})},
          {"f32 - f32", C(OpKind::kSub, {V("tf"), V("tf")}), F32({2}, {0, 0})},
          {"i64 + 0-dim f32", C(OpKind::kAdd, {V("ti"), V("zf")}), F32({2}, {5.5, 0.5})},
          {"f32 + 0-dim i64", C(OpKind::kAdd, {V("tf"), V("zi")}), F32({2}, {5.5, 3.5})},
      },
      inputs());
}

// PyTorch refuses the other arithmetic on bool tensors (torch-diff found ours computed it as i64).
TEST(Promotion, BoolTensorArithmeticIsRefused) {
  for (OpKind op : {OpKind::kSub, OpKind::kFloorDiv, OpKind::kRemainder}) {
    expect_error(C(op, {V("tb"), V("tb")}), inputs(), UserErrorKind::kInvalidProgram,
                 "of bool tensors is not supported");
  }
  expect_error(C(OpKind::kSub, {V("tb"), B(true)}), inputs(), UserErrorKind::kInvalidProgram,
               "sub of bool tensors is not supported");
  // ATen's sub refuses any bool operand, also beside an int tensor or as a bool scalar.
  expect_error(C(OpKind::kSub, {V("tb"), V("ti")}), inputs(), UserErrorKind::kInvalidProgram,
               "sub with a bool operand is not supported");
  expect_error(C(OpKind::kSub, {V("ti"), B(true)}), inputs(), UserErrorKind::kInvalidProgram,
               "sub with a bool operand is not supported");
  for (OpKind op : {OpKind::kNeg, OpKind::kAbs, OpKind::kRelu}) {
    expect_error(C(op, {V("tb")}), inputs(), UserErrorKind::kInvalidProgram,
                 "of bool tensors is not supported");
  }
}

TEST(Promotion, WeakScalars) {
  run_cases(
      {
          {"bool + True stays bool", C(OpKind::kAdd, {V("tb"), B(true)}), Bool({2}, {1, 1})},
          {"bool + 2 is i64", C(OpKind::kAdd, {V("tb"), I(2)}), I64({2}, {3, 2})},
          {"bool + 0.5 is f32", C(OpKind::kAdd, {V("tb"), F(0.5)}), F32({2}, {1.5, 0.5})},
          {"i64 + True stays i64", C(OpKind::kAdd, {V("ti"), B(true)}), I64({2}, {4, -1})},
          {"i64 + 2 stays i64", C(OpKind::kAdd, {V("ti"), I(2)}), I64({2}, {5, 0})},
          {"i64 + 0.5 is f32", C(OpKind::kAdd, {V("ti"), F(0.5)}), F32({2}, {3.5, -1.5})},
          {"f32 + True", C(OpKind::kAdd, {V("tf"), B(true)}), F32({2}, {2.5, 0.5})},
          {"f32 + 2", C(OpKind::kAdd, {V("tf"), I(2)}), F32({2}, {3.5, 1.5})},
          {"f32 * 0.5", C(OpKind::kMul, {V("tf"), F(0.5)}), F32({2}, {0.75, -0.25})},
          // The scalar is cast to f32 before the comparison, as PyTorch does.
          {"f32 compare rounds the scalar", C(OpKind::kEq, {V("tf"), F(1.5000000001)}),
           Bool({2}, {1, 0})},
      },
      inputs());
}

TEST(Promotion, PerOpResultDtypes) {
  run_cases(
      {
          {"div bool is f32", C(OpKind::kDiv, {V("tb"), V("tb")}), F32({2}, {1, NAN})},
          {"div i64 is f32", C(OpKind::kDiv, {V("ti"), I(2)}), F32({2}, {1.5, -1})},
          {"maximum bool, bool stays bool", C(OpKind::kMaximum, {V("tb"), B(false)}),
           Bool({2}, {1, 0})},
          {"maximum bool, int is i64", C(OpKind::kMaximum, {V("tb"), I(0)}), I64({2}, {1, 0})},
          {"minimum i64, f32", C(OpKind::kMinimum, {V("ti"), V("tf")}), F32({2}, {1.5, -2})},
          {"lt is bool", C(OpKind::kLt, {V("ti"), V("tf")}), Bool({2}, {0, 1})},
          {"logical_and is bool", C(OpKind::kLogicalAnd, {V("ti"), V("tf")}), Bool({2}, {1, 1})},
          {"where bool, int scalar", C(OpKind::kWhere, {V("tb"), V("tb"), I(7)}), I64({2}, {1, 7})},
          {"where int, float scalars", C(OpKind::kWhere, {V("tb"), I(1), F(0.5)}),
           F32({2}, {1, 0.5})},
          {"where i64, 0-dim f32", C(OpKind::kWhere, {V("tb"), V("ti"), V("zf")}),
           F32({2}, {3, 2.5})},
      },
      inputs());
}

}  // namespace
}  // namespace sf::eager::testing
