// engine/program/elementwise.h: the element semantics eager and the CPU kernels share, on the
// cases where a naive formula and PyTorch's differ (found by torch-diff against PyTorch 2.15).
#include "engine/program/elementwise.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sf::program {
namespace {

// PyTorch's floor_divide of floats works from the exact fmod: (3b) // b is 2 where 3b rounded
// down in f32, although 3b / b rounds to 3.0 (floor(a / b) says 3).
TEST(FloatFloorDiv, FollowsTheExactFmodNotTheRoundedQuotient) {
  float b = 0.761532723903656f, a = 3 * b;
  ASSERT_EQ(std::floor(a / b), 3.0f);  // the naive formula
  EXPECT_EQ(float_binary(BinaryOp::kFloorDiv, a, b), 2.0f);
  EXPECT_EQ(float_binary(BinaryOp::kFloorDiv, 7.0f, -2.0f), -4.0f);
  EXPECT_EQ(float_binary(BinaryOp::kFloorDiv, -7.0f, 2.0f), -4.0f);
  EXPECT_EQ(float_binary(BinaryOp::kFloorDiv, -0.5f, 2.0f), -1.0f);
  EXPECT_FALSE(std::signbit(float_binary(BinaryOp::kFloorDiv, -0.5f, -2.0f)));  // +0, as Python
  EXPECT_TRUE(std::isinf(float_binary(BinaryOp::kFloorDiv, 1.0f, 0.0f)));
}

TEST(FloatRemainder, IsTheFmodMovedToTheDivisorsSign) {
  float b = 0.761532723903656f, a = 3 * b;
  EXPECT_EQ(float_binary(BinaryOp::kRemainder, a, b), std::fmod(a, b));  // not a - 3b = 0
  EXPECT_NE(float_binary(BinaryOp::kRemainder, a, b), 0.0f);
  EXPECT_EQ(float_binary(BinaryOp::kRemainder, 7.0f, -2.0f), -1.0f);
  EXPECT_EQ(float_binary(BinaryOp::kRemainder, -7.0f, 2.0f), 1.0f);
  EXPECT_TRUE(std::isnan(float_binary(BinaryOp::kRemainder, 1.0f, 0.0f)));
}

}  // namespace
}  // namespace sf::program
