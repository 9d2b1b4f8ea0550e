// The line lexer: token kinds and columns, string escapes, comments, CRLF and bad bytes.
#include "engine/program/lexer.h"

#include <gtest/gtest.h>

#include "engine/base/errors.h"

namespace sf::program {
namespace {

std::vector<Token> tokens_of(std::string_view text) {
  Lexer lex(text);
  lex.next_line();
  std::vector<Token> out;
  while (lex.peek().kind != TokKind::kEnd) out.push_back(lex.take());
  return out;
}

TEST(LexerTest, SplitsALineIntoTokensWithColumns) {
  auto toks = tokens_of("x1 = a//2 <= -3.5e-2 # comment");
  ASSERT_EQ(toks.size(), 8u);
  const char* texts[] = {"x1", "=", "a", "//", "2", "<=", "-", "3.5e-2"};
  TokKind kinds[] = {TokKind::kName, TokKind::kPunct, TokKind::kName,  TokKind::kPunct,
                     TokKind::kInt,  TokKind::kPunct, TokKind::kPunct, TokKind::kFloat};
  int cols[] = {1, 4, 6, 7, 9, 11, 14, 15};
  for (size_t i = 0; i < toks.size(); ++i) {
    EXPECT_EQ(toks[i].text, texts[i]);
    EXPECT_EQ(toks[i].kind, kinds[i]) << i;
    EXPECT_EQ(toks[i].loc.col, cols[i]) << i;
  }
}

TEST(LexerTest, DecodesStringEscapes) {
  auto toks = tokens_of(R"("a\"b\\c\n\t\r\x41\xff é")");
  ASSERT_EQ(toks.size(), 1u);
  EXPECT_EQ(toks[0].kind, TokKind::kString);
  EXPECT_EQ(toks[0].text, "a\"b\\c\n\t\rA\xff \xc3\xa9");
  EXPECT_EQ(quote_string(toks[0].text), R"("a\"b\\c\n\t\rA)"
                                        "\xff"
                                        R"( é")");
  EXPECT_EQ(quote_string(std::string("\x01\x7f", 2)), R"("\x01\x7f")");
}

TEST(LexerTest, TracksLinesIndentationAndBlankLines) {
  Lexer lex("a\r\n  # only a comment\n\n    b = 1\n");
  ASSERT_TRUE(lex.next_line());
  EXPECT_FALSE(lex.blank());
  EXPECT_EQ(lex.raw(), "a");
  ASSERT_TRUE(lex.next_line());
  EXPECT_TRUE(lex.blank());
  ASSERT_TRUE(lex.next_line());
  EXPECT_TRUE(lex.blank());
  ASSERT_TRUE(lex.next_line());
  EXPECT_EQ(lex.line_number(), 4);
  EXPECT_EQ(lex.indent(), 4);
  EXPECT_EQ(lex.peek().loc.col, 5);
  ASSERT_TRUE(lex.next_line());  // the empty line after the final '\n'
  EXPECT_TRUE(lex.blank());
  EXPECT_FALSE(lex.next_line());
}

TEST(LexerTest, RejectsBadCharactersWithTheirPosition) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"a $ b", "line 1:3: unexpected character '$'"},
      {"a = 'x'", "line 1:5: strings use double quotes"},
      {"s = \"abc", "line 1:5: unterminated string"},
      {"s = \"\\q\"", "line 1:6: bad escape"},
      {"x = 1.e3", "line 1:7: malformed number"},
      {"x = 12ab", "line 1:7: malformed number"},
      {"x = \xc3\xa9", "line 1:5: unexpected character '\\xc3'"},
  };
  for (const Case& c : cases) {
    try {
      tokens_of(c.text);
      ADD_FAILURE() << "no error for " << c.text;
    } catch (const UserError& e) {
      EXPECT_EQ(e.kind(), UserErrorKind::kParse);
      EXPECT_EQ(std::string(e.what()).rfind(c.message, 0), 0u) << e.what();
    }
  }
}

TEST(LexerTest, RejectsTabsInIndentation) {
  Lexer lex("\tx = 1");
  lex.next_line();
  EXPECT_THROW(lex.indent(), UserError);
}

}  // namespace
}  // namespace sf::program
