// engine/sym/interval.h: ExtInt saturation and infinities, ValueRange set operations, every vr_*
// op on hand-picked cases, and overflow that must widen bounds rather than abort.
#include "engine/sym/interval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "tests/sym/range_literals.h"

namespace sf::sym {
namespace {

using namespace test;  // NOLINT: range literals

template <typename T>
struct Case {
  const char* input;
  T output;
  T expected;
};

template <typename T>
void CheckAll(const std::vector<Case<T>>& cases) {
  for (const Case<T>& c : cases) {
    EXPECT_TRUE(c.output == c.expected)
        << "\nInput:    " << c.input << "\nOutput:   " << c.output.str()
        << "\nExpected: " << c.expected.str();
  }
}

TEST(ExtIntTest, SaturatesAndFollowsLimits) {
  CheckAll<ExtInt>({
      {"max + 1", ExtInt(kMax) + 1, kOo},
      {"min + -1", ExtInt(kMin) + ExtInt(-1), kNegOo},
      {"max + min", ExtInt(kMax) + ExtInt(kMin), -1},
      {"-min", -ExtInt(kMin), kOo},
      {"-max", -ExtInt(kMax), kMin + 1},
      {"max * 2", ExtInt(kMax) * 2, kOo},
      {"max * -2", ExtInt(kMax) * ExtInt(-2), kNegOo},
      {"min * -1", ExtInt(kMin) * ExtInt(-1), kOo},
      {"int_oo * -3", kOo * ExtInt(-3), kNegOo},
      {"int_oo * 0", kOo * 0, 0},
      {"-int_oo * -int_oo", kNegOo * kNegOo, kOo},
      {"int_oo + 5", kOo + 5, kOo},
      {"-int_oo - 5", kNegOo - 5, kNegOo},
      {"5 - int_oo", ExtInt(5) - kOo, kNegOo},
      {"floordiv(-7, 2)", ExtInt::floordiv(-7, 2), -4},
      {"floordiv(7, -2)", ExtInt::floordiv(7, -2), -4},
      {"floordiv(min, -1)", ExtInt::floordiv(kMin, -1), kOo},
      {"floordiv(int_oo, -3)", ExtInt::floordiv(kOo, -3), kNegOo},
      {"floordiv(-int_oo, -3)", ExtInt::floordiv(kNegOo, -3), kOo},
      {"floordiv(5, int_oo)", ExtInt::floordiv(5, kOo), 0},
      {"floordiv(-5, int_oo)", ExtInt::floordiv(-5, kOo), -1},
      {"floordiv(5, -int_oo)", ExtInt::floordiv(5, kNegOo), -1},
      {"floordiv(-5, -int_oo)", ExtInt::floordiv(-5, kNegOo), 0},
  });
}

// A difference that fits in int64 must stay finite ("a finite result that overflows").
TEST(ExtIntTest, SubtractingMinIsExactWhenTheResultFits) {
  CheckAll<ExtInt>({
      {"-1 - min", ExtInt(-1) - ExtInt(kMin), kMax},
      {"min - min", ExtInt(kMin) - ExtInt(kMin), 0},
  });
}

TEST(ExtIntTest, IntegerInfinityIsDistinctFromFloatInfinity) {
  EXPECT_EQ(kOo.str(), "int_oo");
  EXPECT_EQ(kNegOo.str(), "-int_oo");
  EXPECT_TRUE(kOo > ExtInt(kMax) && kNegOo < ExtInt(kMin) && kOo != ExtInt(kMax));
  EXPECT_EQ(kOo.as_double(), kInf);
  EXPECT_EQ(ValueRange::unknown_int().str(), "[-int_oo, int_oo]");
  EXPECT_EQ(ValueRange::unknown_float().str(), "[-oo, oo]");
  EXPECT_TRUE(ValueRange::unknown_int() != ValueRange::unknown_float());
  EXPECT_TRUE(ValueRange::unknown_int().as_float() == ValueRange::unknown_float());
  EXPECT_TRUE(R(0, kMax) != R(0, kOo));
  EXPECT_FALSE(R(kMin, kMax).is_unknown());
}

TEST(ValueRangeTest, ContainsIssubsetSingletonAndStr) {
  struct BoolCase {
    const char* input;
    bool output, expected;
  } cases[] = {
      {"[0, 5] contains 5", R(0, 5).contains(5), true},
      {"[0, 5] contains 6", R(0, 5).contains(6), false},
      {"[-int_oo, -1] contains 0", R(kNegOo, -1).contains(0), false},
      {"unknown int contains min", ValueRange::unknown_int().contains(kMin), true},
      {"[0.5, 1.5] contains 1", F(0.5, 1.5).contains(1), true},
      {"[0.5, 1.5] contains 2.0", F(0.5, 1.5).contains_float(2.0), false},
      {"[-oo, oo] contains nan", ValueRange::unknown_float().contains_float(NAN), true},
      {"[0, 1] float contains nan", F(0, 1).contains_float(NAN), false},
      {"{True} contains 0", kTrue.contains(0), false},
      {"[1, 2] <= [0, 5]", R(1, 2).issubset(R(0, 5)), true},
      {"[0, int_oo] <= [0, max]", R(0, kOo).issubset(R(0, kMax)), false},
      {"[0, max] <= [0, int_oo]", R(0, kMax).issubset(R(0, kOo)), true},
      {"[0.0, 1.0] <= [0, 1]", F(0, 1).issubset(R(0, 1)), true},
      {"[0, 2] <= [-0.5, 1.5]", R(0, 2).issubset(F(-0.5, 1.5)), false},
      {"[3, 3] singleton", R(3, 3).is_singleton(), true},
      {"[2.0, 2.0] singleton", F(2, 2).is_singleton(), true},
      {"{False, True} singleton", kEither.is_singleton(), false},
  };
  for (const BoolCase& c : cases) {
    EXPECT_EQ(c.output, c.expected)
        << "\nInput:    " << c.input << "\nOutput:   " << c.output << "\nExpected: " << c.expected;
  }
  EXPECT_EQ(R(-3, kOo).str(), "[-3, int_oo]");
  EXPECT_EQ(F(0.5, 1).str(), "[0.500000, 1.000000]");
  EXPECT_EQ(kTrue.str(), "{True}");
  EXPECT_EQ(kEither.str(), "{False, True}");
}

TEST(ValueRangeTest, IntersectAndHull) {
  CheckAll<ValueRange>({
      {"[0, 5] & [3, 9]", R(0, 5).intersect(R(3, 9)), R(3, 5)},
      {"[-int_oo, 3] & [0, int_oo]", R(kNegOo, 3).intersect(R(0, kOo)), R(0, 3)},
      {"[0.5, 2.5] & [0, 10]", F(0.5, 2.5).intersect(R(0, 10)), R(1, 2)},
      {"[0, 10] & [0.5, 2.5]", R(0, 10).intersect(F(0.5, 2.5)), R(1, 2)},
      {"[0.0, 1.0] & [0.5, 2.0]", F(0, 1).intersect(F(0.5, 2)), F(0.5, 1)},
      {"{F, T} & {T}", kEither.intersect(kTrue), kTrue},
      {"[0, 5] | [7, 9]", R(0, 5).hull(R(7, 9)), R(0, 9)},
      {"[-int_oo, 0] | [0, int_oo]", R(kNegOo, 0).hull(R(0, kOo)), ValueRange::unknown_int()},
      {"[0.0, 1.0] | [3, 4]", F(0, 1).hull(R(3, 4)), F(0, 4)},
      {"{F} | {T}", kFalse.hull(kTrue), kEither},
  });
}

TEST(ValueRangeTest, EmptyIntersectionIsAValueRangeError) {
  struct {
    ValueRange a, b;
    const char* a_text;
    const char* b_text;
  } cases[] = {
      {R(0, 1), R(2, 3), "[0, 1]", "[2, 3]"},
      {R(kNegOo, -1), R(0, kOo), "[-int_oo, -1]", "[0, int_oo]"},
      {F(0.25, 0.75), R(0, 5), "[0.250000, 0.750000]", "[0, 5]"},
      {kTrue, kFalse, "{True}", "{False}"},
  };
  for (const auto& c : cases) {
    try {
      ValueRange r = c.a.intersect(c.b);
      ADD_FAILURE() << "\nInput:    " << c.a_text << " & " << c.b_text << "\nOutput:   " << r.str()
                    << "\nExpected: UserError(kValueRange)";
    } catch (const UserError& e) {
      EXPECT_EQ(e.kind(), UserErrorKind::kValueRange) << e.what();
      std::string msg = e.what();
      EXPECT_NE(msg.find(c.a_text), std::string::npos) << msg;
      EXPECT_NE(msg.find(c.b_text), std::string::npos) << msg;
    }
  }
}

TEST(IntervalOpsTest, HandPickedCases) {
  CheckAll<ValueRange>({
      {"[1, 2] + [10, 20]", vr_add(R(1, 2), R(10, 20)), R(11, 22)},
      {"[0, int_oo] + [-5, 5]", vr_add(R(0, kOo), R(-5, 5)), R(-5, kOo)},
      {"[max-1, max] + [0, 1]", vr_add(R(kMax - 1, kMax), R(0, 1)), R(kMax - 1, kOo)},
      {"[0.5, 1.0] + [1, 2]", vr_add(F(0.5, 1), R(1, 2)), F(1.5, 3)},
      {"[-2, 3] * [-5, 4]", vr_mul(R(-2, 3), R(-5, 4)), R(-15, 12)},
      {"[0, int_oo] * [-1, 0]", vr_mul(R(0, kOo), R(-1, 0)), R(kNegOo, 0)},
      {"[0, 0] * unknown", vr_mul(R(0, 0), ValueRange::unknown_int()), R(0, 0)},
      {"[0.0, 0.0] * [-oo, oo]", vr_mul(F(0, 0), ValueRange::unknown_float()), F(0, 0)},
      {"-[-3, int_oo]", vr_neg(R(-3, kOo)), R(kNegOo, 3)},
      {"-[1.0, 2.0]", vr_neg(F(1, 2)), F(-2, -1)},
      {"[-2, 3]**2", vr_pow(R(-2, 3), 2), R(0, 9)},
      {"[-3, -2]**3", vr_pow(R(-3, -2), 3), R(-27, -8)},
      {"[5, 7]**0", vr_pow(R(5, 7), 0), R(1, 1)},
      {"[-7, -7] // [2, 2]", vr_floordiv(R(-7, -7), R(2, 2)), R(-4, -4)},
      {"[7, 7] // [-2, -2]", vr_floordiv(R(7, 7), R(-2, -2)), R(-4, -4)},
      {"[-7, -7] // [-2, -2]", vr_floordiv(R(-7, -7), R(-2, -2)), R(3, 3)},
      {"[-7, 7] // [2, 3]", vr_floordiv(R(-7, 7), R(2, 3)), R(-4, 3)},
      {"[1, 10] // [-3, 3]", vr_floordiv(R(1, 10), R(-3, 3)), R(-10, 10)},
      {"[1, 10] // [0, 3]", vr_floordiv(R(1, 10), R(0, 3)), R(0, 10)},
      {"[5, 5] // [0, 0]", vr_floordiv(R(5, 5), R(0, 0)), ValueRange::unknown_int()},
      {"[-5, 5] // [1, int_oo]", vr_floordiv(R(-5, 5), R(1, kOo)), R(-5, 5)},
      {"[3, int_oo] // [2, 2]", vr_floordiv(R(3, kOo), R(2, 2)), R(1, kOo)},
      {"[-int_oo, -3] // [-2, -2]", vr_floordiv(R(kNegOo, -3), R(-2, -2)), R(1, kOo)},
      {"[1.0, 2.0] // [1, 1]", vr_floordiv(F(1, 2), R(1, 1)), ValueRange::unknown_float()},
      {"[7, 7] % [3, 3]", vr_mod(R(7, 7), R(3, 3)), R(1, 1)},
      {"[-7, -7] % [3, 3]", vr_mod(R(-7, -7), R(3, 3)), R(2, 2)},
      {"[7, 7] % [-3, -3]", vr_mod(R(7, 7), R(-3, -3)), R(-2, -2)},
      {"[-7, -7] % [-3, -3]", vr_mod(R(-7, -7), R(-3, -3)), R(-1, -1)},
      {"[4, 6] % [4, 4]", vr_mod(R(4, 6), R(4, 4)), R(0, 2)},
      {"[3, 5] % [4, 4]", vr_mod(R(3, 5), R(4, 4)), R(0, 3)},
      {"[0, 2] % [5, 9]", vr_mod(R(0, 2), R(5, 9)), R(0, 2)},
      {"[-10, 10] % [1, int_oo]", vr_mod(R(-10, 10), R(1, kOo)), R(0, kOo)},
      {"[-3, 0] % [-5, -2]", vr_mod(R(-3, 0), R(-5, -2)), R(-3, 0)},
      {"[0, 10] % [-3, 4]", vr_mod(R(0, 10), R(-3, 4)), R(-2, 3)},
      {"unknown % [-8, -8]", vr_mod(ValueRange::unknown_int(), R(-8, -8)), R(-7, 0)},
      {"max([0, 5], [3, int_oo])", vr_max(R(0, 5), R(3, kOo)), R(3, kOo)},
      {"min([-int_oo, 2], [-1, 7])", vr_min(R(kNegOo, 2), R(-1, 7)), R(kNegOo, 2)},
      {"max([0.0, 1.0], [2, 3])", vr_max(F(0, 1), R(2, 3)), F(2, 3)},
      {"where({T}, [1, 2], [5, 6])", vr_where(kTrue, R(1, 2), R(5, 6)), R(1, 2)},
      {"where({F}, [1, 2], [5, 6])", vr_where(kFalse, R(1, 2), R(5, 6)), R(5, 6)},
      {"where({F, T}, [1, 2], [5, 6])", vr_where(kEither, R(1, 2), R(5, 6)), R(1, 6)},
      {"to_float([0, int_oo])", vr_to_float(R(0, kOo)), F(0, kInf)},
      {"trunc([-2.5, 3.75])", vr_trunc_to_int(F(-2.5, 3.75)), R(-2, 3)},
      {"trunc([0.25, 0.75])", vr_trunc_to_int(F(0.25, 0.75)), R(0, 0)},
      {"trunc([-oo, oo])", vr_trunc_to_int(ValueRange::unknown_float()), ValueRange::unknown_int()},
      {"[1.0, 2.0] / [2.0, 4.0]", vr_true_div(F(1, 2), F(2, 4)), F(0.25, 1)},
      {"[1, 2] / [-1, 1]", vr_true_div(R(1, 2), R(-1, 1)), ValueRange::unknown_float()},
      {"[-4, 4] / [2, 2]", vr_true_div(R(-4, 4), R(2, 2)), F(-2, 2)},
      {"[1, 1] / [1, int_oo]", vr_true_div(R(1, 1), R(1, kOo)), F(0, 1)},
      {"[0, 3] < [4, 9]", vr_lt(R(0, 3), R(4, 9)), kTrue},
      {"[0, 4] < [4, 9]", vr_lt(R(0, 4), R(4, 9)), kEither},
      {"[4, 9] < [0, 4]", vr_lt(R(4, 9), R(0, 4)), kFalse},
      {"[0, 4] <= [4, 9]", vr_le(R(0, 4), R(4, 9)), kTrue},
      {"[5, 9] <= [0, 4]", vr_le(R(5, 9), R(0, 4)), kFalse},
      {"[0.0, 0.5] < [1, 2]", vr_lt(F(0, 0.5), R(1, 2)), kTrue},
      {"[3, 3] == [3, 3]", vr_eq(R(3, 3), R(3, 3)), kTrue},
      {"[1.0, 1.0] == [1, 1]", vr_eq(F(1, 1), R(1, 1)), kTrue},
      {"[0, 2] == [3, 5]", vr_eq(R(0, 2), R(3, 5)), kFalse},
      {"[0, 3] == [3, 5]", vr_eq(R(0, 3), R(3, 5)), kEither},
      {"[0, 2] != [3, 5]", vr_ne(R(0, 2), R(3, 5)), kTrue},
      {"{T} & {F, T}", vr_and(kTrue, kEither), kEither},
      {"{F} & {F, T}", vr_and(kFalse, kEither), kFalse},
      {"{T} | {F, T}", vr_or(kTrue, kEither), kTrue},
      {"~{F}", vr_not(kFalse), kTrue},
  });
}

// Overflow must widen a bound to an infinity, never build a malformed range (SF_CHECK abort).
TEST(IntervalDeathTest, OverflowingBoundsDoNotAbort) {
  struct {
    const char* input;
    std::function<ValueRange()> op;
  } cases[] = {
      {"vr_add([max, max], [1, 1])", [] { return vr_add(R(kMax, kMax), R(1, 1)); }},
      {"vr_mul([2^62, 2^62], [4, 4])", [] { return vr_mul(R(1LL << 62, 1LL << 62), R(4, 4)); }},
      {"vr_mul([min, min], [-1, -1])", [] { return vr_mul(R(kMin, kMin), R(-1, -1)); }},
      {"vr_floordiv([min, min], [-1, -1])", [] { return vr_floordiv(R(kMin, kMin), R(-1, -1)); }},
      {"vr_trunc_to_int([1e19, 2e19])", [] { return vr_trunc_to_int(F(1e19, 2e19)); }},
      {"vr_add([1e308, 1e308], [1e308, 1e308])",
       [] { return vr_add(F(1e308, 1e308), F(1e308, 1e308)); }},
      {"vr_true_div([1e308, 1e308], [1e-10, 1e-10])",
       [] { return vr_true_div(F(1e308, 1e308), F(1e-10, 1e-10)); }},
  };
  for (const auto& c : cases) {
    EXPECT_EXIT(
        {
          c.op();
          std::exit(0);
        },
        ::testing::ExitedWithCode(0), "")
        << "\nInput:    " << c.input << "\nExpected: a well-formed (widened) range, no abort";
  }
}

}  // namespace
}  // namespace sf::sym
