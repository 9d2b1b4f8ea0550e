// The one UTF-8 check: every ill-formed class the XML and JSON parsers reject is caught.
#include "fuzz/utf8.h"

#include <gtest/gtest.h>

#include "fuzz/signature.h"

namespace sf::fuzz {
namespace {

TEST(Utf8Test, AcceptsEveryLengthAtItsBounds) {
  uint32_t cp = 0;
  EXPECT_EQ(utf8_char_length("\x7f", 0, &cp), 1u);
  EXPECT_EQ(utf8_char_length("\xc2\x80", 0, &cp), 2u);
  EXPECT_EQ(cp, 0x80u);
  EXPECT_EQ(utf8_char_length("\xe0\xa0\x80", 0, &cp), 3u);
  EXPECT_EQ(cp, 0x800u);
  EXPECT_EQ(utf8_char_length("\xef\xbf\xbf", 0, &cp), 3u);  // U+FFFF is UTF-8 (XML excludes it)
  EXPECT_EQ(cp, 0xFFFFu);
  EXPECT_EQ(utf8_char_length("\xf0\x90\x80\x80", 0, &cp), 4u);
  EXPECT_EQ(cp, 0x10000u);
  EXPECT_EQ(utf8_char_length("\xf4\x8f\xbf\xbf", 0, &cp), 4u);
  EXPECT_EQ(cp, 0x10FFFFu);
}

TEST(Utf8Test, RejectsOverlongSurrogateTooLargeTruncatedAndStray) {
  for (const char* bad : {"\xc0\xaf", "\xc1\xbf", "\xe0\x9f\xbf", "\xf0\x8f\xbf\xbf",  // overlong
                          "\xed\xa0\x80", "\xed\xbf\xbf",                              // surrogates
                          "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff",  // past U+10FFFF
                          "\xe2\x88", "\x80", "\xc3\x28"}) {
    EXPECT_EQ(utf8_char_length(bad, 0), 0u) << testing::PrintToString(bad);
  }
}

TEST(Utf8Test, ValidUtf8ReplacesEachBadByte) {
  EXPECT_EQ(valid_utf8("a\xc0\xaf b \xed\xa0\x80 σ"), "a?? b ??? σ");
  EXPECT_EQ(valid_utf8("\xf4\x90\x80\x80"), "????");
}

TEST(Utf8Test, SignaturesAreWellFormed) {
  std::string m = normalize_message("bad \xc0\xaf byte \xed\xa0\x80 in σ");
  EXPECT_EQ(valid_utf8(m), m) << m;
  EXPECT_NE(m.find("σ"), std::string::npos) << m;
}

}  // namespace
}  // namespace sf::fuzz
