// Float and integer literal text: shortest round trip in Python repr style, overflow detection.
#include "engine/program/number_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sf::program {
namespace {

TEST(NumberTextTest, FormatsLikePythonRepr) {
  struct Case {
    double value;
    const char* text;
  } cases[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {100.0, "100.0"},
      {0.1, "0.1"},
      {1.0 / 3, "0.3333333333333333"},
      {123.456, "123.456"},
      {0.0001, "0.0001"},
      {1e-05, "1e-05"},
      {-2.5e-07, "-2.5e-07"},
      {1e15, "1000000000000000.0"},
      {1e16, "1e+16"},
      {1.5e300, "1.5e+300"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"},
      {std::nan(""), "nan"},
  };
  for (const Case& c : cases) EXPECT_EQ(format_double(c.value), c.text) << "value " << c.value;
}

TEST(NumberTextTest, FormattedFloatsReadBackExactly) {
  double values[] = {
      0.1,     1.0 / 3, 5e-324,       2.2250738585072014e-308, 1e23, 9007199254740993.0, -1.5,
      3.14159, 1e-300,  6.02214076e23};
  for (double v : values) {
    std::string text = format_double(v);
    auto back = double_from_text(text[0] == '-' ? text.substr(1) : text);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(text[0] == '-' ? -*back : *back, v) << text;
  }
}

TEST(NumberTextTest, FloatOverflowAndUnderflowAreRejected) {
  EXPECT_FALSE(double_from_text("1e309").has_value());
  EXPECT_FALSE(double_from_text("1e-400").has_value());
  EXPECT_EQ(double_from_text("0e-400"), 0.0);
  EXPECT_EQ(double_from_text("2e3"), 2000.0);
}

TEST(NumberTextTest, IntegersCheckTheInt64Range) {
  EXPECT_EQ(int_from_digits("9223372036854775807", false), INT64_MAX);
  EXPECT_EQ(int_from_digits("9223372036854775808", true), INT64_MIN);
  EXPECT_FALSE(int_from_digits("9223372036854775808", false).has_value());
  EXPECT_FALSE(int_from_digits("9223372036854775809", true).has_value());
  EXPECT_FALSE(int_from_digits("99999999999999999999999", false).has_value());
  EXPECT_EQ(int_from_digits("000042", true), -42);
}

}  // namespace
}  // namespace sf::program
