// RangeTable: ranges only narrow, empty intersections are user errors, size-like symbols keep an
// upper bound >= 2 and read as >= 2 size-obliviously.
#include "engine/shape_env/range_table.h"

#include <gtest/gtest.h>

#include "engine/base/errors.h"
#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using sym::ExtInt;
using testing::U;

TEST(RangeTableTest, NarrowIntersectsAndReportsChange) {
  RangeTable t;
  EXPECT_EQ(t.get(U(0)), ValueRange::unknown_int());  // no record: the kind's unknown range
  EXPECT_TRUE(t.narrow(U(0), ValueRange::ints(0, 10)));
  EXPECT_FALSE(t.narrow(U(0), ValueRange::ints(-5, 20)));  // wider: no change
  EXPECT_TRUE(t.narrow(U(0), ValueRange::ints(3, 20)));
  EXPECT_EQ(t.get(U(0)), ValueRange::ints(3, 10));
  try {
    t.narrow(U(0), ValueRange::ints(11, 12));
    ADD_FAILURE() << "an empty range was accepted";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kValueRange);
  }
}

TEST(RangeTableTest, SizeLikeSymbolsKeepRoomForTwo) {
  RangeTable t;
  t.narrow(U(1), ValueRange::ints(0, ExtInt::pos_inf()));
  t.add_size_like(U(1));
  t.narrow(U(1), ValueRange::ints(0, 1));  // would rule out 2: clamped to [0, 2]
  EXPECT_EQ(t.get(U(1)), ValueRange::ints(0, 2));
  EXPECT_EQ(t.size_oblivious(U(1)), ValueRange::ints(2, 2));
  t.narrow(U(2), ValueRange::ints(0, 1));
  EXPECT_EQ(t.size_oblivious(U(2)), ValueRange::ints(0, 1));  // not size-like
}

TEST(RangeTableTest, DivisibilityFacts) {
  RangeTable t;
  ExprRef m = sym::mod(U(0), sym::integer(4));
  EXPECT_FALSE(t.any_divisible());
  EXPECT_TRUE(t.add_divisible(m));
  EXPECT_FALSE(t.add_divisible(m));
  EXPECT_TRUE(t.is_divisible(m));
  t.add_factor(U(1), U(0), 4);
  EXPECT_EQ(t.factors().at(U(1)), std::make_pair(U(0), int64_t{4}));
}

}  // namespace
}  // namespace sf
