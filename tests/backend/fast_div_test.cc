// engine/backend/cuda/fast_div.h: the multiply-high division of the extern kernels against `/`,
// for small divisors exhaustively over small dividends, and for divisors and dividends at the
// edges of the range it claims (dividends below 2^31, divisors up to 2^31).
#include "engine/backend/cuda/fast_div.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace sf::backend::cuda {
namespace {

TEST(FastDivTest, SmallDivisorsAndDividendsExhaustively) {
  for (unsigned d = 1; d <= 300; ++d) {
    FastDiv f = fast_div(d);
    for (unsigned x = 0; x < 5000; ++x) ASSERT_EQ(div_by(f, x), x / d) << x << " / " << d;
  }
}

TEST(FastDivTest, EdgesOfTheRange) {
  std::mt19937_64 rng(36);
  std::vector<unsigned> divisors = {
      1, 2, 3, 7, 1u << 16, (1u << 16) + 1, (1u << 30) + 1, (1u << 31) - 1, 1u << 31};
  for (int i = 0; i < 2000; ++i) divisors.push_back(1 + static_cast<unsigned>(rng() % (1u << 31)));
  const unsigned top = (1u << 31) - 1;
  for (unsigned d : divisors) {
    FastDiv f = fast_div(d);
    std::vector<unsigned> xs = {0, 1, top, top - 1};
    for (unsigned k : {d - 1, d, d + 1, 2 * d - 1, 2 * d}) {
      if (k <= top) xs.push_back(k);
    }
    for (int i = 0; i < 50; ++i) xs.push_back(static_cast<unsigned>(rng() % (uint64_t{top} + 1)));
    for (unsigned x : xs) ASSERT_EQ(div_by(f, x), x / d) << x << " / " << d;
  }
}

// A divisor whose multiplier is off by one (a broken fast_div) gives wrong quotients: the test
// above can fail.
TEST(FastDivTest, AWrongMultiplierIsCaught) {
  FastDiv f = fast_div(7);
  f.m -= 1;
  bool wrong = false;
  for (unsigned x = 0; x < (1u << 31) - 1 && !wrong; x += 9973) wrong = div_by(f, x) != x / 7;
  EXPECT_TRUE(wrong);
}

}  // namespace
}  // namespace sf::backend::cuda
