// Exact values of pointwise ops: broadcasting (zero-size dims too), floor division and remainder on
// i64 and f32, NaN propagation, unary ops, casts and where.
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
      {"a", I64({2, 3}, {1, 2, 3, 4, 5, 6})},
      {"b", I64({3}, {10, 20, 30})},
      {"m", Bool({3}, {1, 0, 1})},
      {"m2", Bool({3}, {0, 0, 1})},
      {"c", Bool({2, 1}, {1, 0})},
      {"z", I64({2, 1}, {7, -7})},
      {"d", I64({3}, {2, -2, 3})},
      {"x", F32({4}, {7, -7, 7, 1})},
      {"y", F32({4}, {2, 2, -2, 0})},
      {"e", F32({0, 3}, {})},
      {"e1", F32({0, 1}, {})},
      {"n1", F32({3}, {1, kNan, 3})},
      {"n2", F32({3}, {2, 0, kNan})},
      {"big", I64x({2}, {kMax, kMin})},
      {"fc", F32({3}, {1.7, -1.7, kNan})},
  };
  return *in;
}

TEST(Pointwise, Arithmetic) {
  run_cases(
      {
          {"add broadcast", C(OpKind::kAdd, {V("a"), V("b")}),
           I64({2, 3}, {11, 22, 33, 14, 25, 36})},
          {"sub", C(OpKind::kSub, {V("b"), V("a")}), I64({2, 3}, {9, 18, 27, 6, 15, 24})},
          {"mul scalar", C(OpKind::kMul, {V("a"), I(2)}), I64({2, 3}, {2, 4, 6, 8, 10, 12})},
          {"scalar on the left", C(OpKind::kSub, {I(1), V("b")}), I64({3}, {-9, -19, -29})},
          {"add float scalar", C(OpKind::kAdd, {V("b"), F(0.5)}), F32({3}, {10.5, 20.5, 30.5})},
          {"div ints", C(OpKind::kDiv, {V("b"), I(4)}), F32({3}, {2.5, 5, 7.5})},
          {"div by zero", C(OpKind::kDiv, {V("d"), I(0)}), F32({3}, {kInf, -kInf, kInf})},
          {"i64 add wraps", C(OpKind::kAdd, {V("big"), I(1)}), I64x({2}, {kMin, kMin + 1})},
          {"i64 mul wraps", C(OpKind::kMul, {V("big"), I(2)}), I64x({2}, {-2, 0})},
      },
      inputs());
}

TEST(Pointwise, BroadcastZeroSize) {
  run_cases(
      {
          {"[0,3] + [3]", C(OpKind::kAdd, {V("e"), V("b")}), F32({0, 3}, {})},
          {"[0,1] + [3]", C(OpKind::kMul, {V("e1"), V("b")}), F32({0, 3}, {})},
          {"[2,1] + [0]", C(OpKind::kAdd, {V("z"), C(OpKind::kArange, {I(0)})}), I64({2, 0}, {})},
          {"[0,3] < scalar", C(OpKind::kLt, {V("e"), I(1)}), Bool({0, 3}, {})},
          // Nothing is computed, so a zero divisor in an empty result raises nothing.
          {"empty floordiv by 0", C(OpKind::kFloorDiv, {C(OpKind::kArange, {I(0)}), I(0)}),
           I64({0}, {})},
      },
      inputs());
}

TEST(Pointwise, FloorDivRemainder) {
  run_cases(
      {
          {"i64 floordiv", C(OpKind::kFloorDiv, {V("z"), V("d")}),
           I64({2, 3}, {3, -4, 2, -4, 3, -3})},
          {"i64 remainder sign of divisor", C(OpKind::kRemainder, {V("z"), V("d")}),
           I64({2, 3}, {1, -1, 1, 1, -1, 2})},
          {"i64 floordiv INT64_MIN by -1 wraps", C(OpKind::kFloorDiv, {V("big"), I(-1)}),
           I64x({2}, {kMin + 1, kMin})},
          {"i64 remainder by -1", C(OpKind::kRemainder, {V("big"), I(-1)}), I64({2}, {0, 0})},
          {"f32 floordiv", C(OpKind::kFloorDiv, {V("x"), V("y")}), F32({4}, {3, -4, -4, kInf})},
          {"f32 remainder", C(OpKind::kRemainder, {V("x"), V("y")}), F32({4}, {1, 1, -1, kNan})},
          {"f32 remainder fraction", C(OpKind::kRemainder, {V("x"), F(2.5)}),
           F32({4}, {2, 0.5, 2, 1})},
          {"i64 tensor floordiv float scalar", C(OpKind::kFloorDiv, {V("b"), F(4.0)}),
           F32({3}, {2, 5, 7})},
      },
      inputs());
}

TEST(Pointwise, MaxMinCompareLogical) {
  run_cases(
      {
          {"maximum NaN", C(OpKind::kMaximum, {V("n1"), V("n2")}), F32({3}, {2, kNan, kNan})},
          {"minimum NaN", C(OpKind::kMinimum, {V("n1"), V("n2")}), F32({3}, {1, kNan, kNan})},
          {"maximum bools stay bool", C(OpKind::kMaximum, {V("m"), V("m2")}), Bool({3}, {1, 0, 1})},
          {"minimum i64 scalar", C(OpKind::kMinimum, {V("b"), I(20)}), I64({3}, {10, 20, 20})},
          {"lt float scalar", C(OpKind::kLt, {V("a"), F(3.5)}), Bool({2, 3}, {1, 1, 1, 0, 0, 0})},
          {"eq NaN", C(OpKind::kEq, {V("n1"), V("n1")}), Bool({3}, {1, 0, 1})},
          {"ne NaN", C(OpKind::kNe, {V("n1"), V("n2")}), Bool({3}, {1, 1, 1})},
          {"ge", C(OpKind::kGe, {V("b"), I(20)}), Bool({3}, {0, 1, 1})},
          {"gt", C(OpKind::kGt, {V("d"), I(2)}), Bool({3}, {0, 0, 1})},
          {"le", C(OpKind::kLe, {V("d"), I(2)}), Bool({3}, {1, 1, 0})},
          {"eq bool with int", C(OpKind::kEq, {V("m"), I(1)}), Bool({3}, {1, 0, 1})},
          {"logical_and broadcast", C(OpKind::kLogicalAnd, {V("m"), V("c")}),
           Bool({2, 3}, {1, 0, 1, 0, 0, 0})},
          {"logical_or NaN is true", C(OpKind::kLogicalOr, {V("n2"), B(false)}),
           Bool({3}, {1, 0, 1})},
          {"logical_not", C(OpKind::kLogicalNot, {V("d")}), Bool({3}, {0, 0, 0})},
          {"logical_not bool", C(OpKind::kLogicalNot, {V("m")}), Bool({3}, {0, 1, 0})},
      },
      inputs());
}

TEST(Pointwise, UnaryAndCasts) {
  run_cases(
      {
          {"neg i64", C(OpKind::kNeg, {V("d")}), I64({3}, {-2, 2, -3})},
          {"neg INT64_MIN wraps", C(OpKind::kNeg, {V("big")}), I64x({2}, {kMin + 1, kMin})},
          {"abs f32", C(OpKind::kAbs, {V("fc")}), F32({3}, {1.7, 1.7, kNan})},
          {"relu f32", C(OpKind::kRelu, {V("fc")}), F32({3}, {1.7, 0, kNan})},
          {"relu i64", C(OpKind::kRelu, {V("d")}), I64({3}, {2, 0, 3})},
          {"to i64 truncates, NaN is INT64_MIN", C(OpKind::kTo, {V("fc"), D(DType::kInt64)}),
           I64x({3}, {1, -1, kMin})},
          {"to bool", C(OpKind::kTo, {V("n2"), D(DType::kBool)}), Bool({3}, {1, 0, 1})},
          {"to f32", C(OpKind::kTo, {V("d"), D(DType::kFloat32)}), F32({3}, {2, -2, 3})},
          {"to same dtype", C(OpKind::kTo, {V("m"), D(DType::kBool)}), Bool({3}, {1, 0, 1})},
      },
      inputs());
}

TEST(Pointwise, Where) {
  run_cases(
      {
          {"tensor and float scalar", C(OpKind::kWhere, {V("m"), V("b"), F(0.5)}),
           F32({3}, {10, 0.5, 30})},
          {"two int scalars", C(OpKind::kWhere, {V("m"), I(1), I(0)}), I64({3}, {1, 0, 1})},
          {"two bool scalars", C(OpKind::kWhere, {V("m"), B(false), B(true)}),
           Bool({3}, {0, 1, 0})},
          {"broadcast all three", C(OpKind::kWhere, {V("c"), V("b"), V("d")}),
           I64({2, 3}, {10, 20, 30, 2, -2, 3})},
          {"bool and i64 tensors", C(OpKind::kWhere, {V("m"), V("m2"), V("d")}),
           I64({3}, {0, -2, 1})},
      },
      inputs());
}

}  // namespace
}  // namespace sf::eager::testing
