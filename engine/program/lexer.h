// Tokens of the .sfz format. The format is line-oriented (a statement never spans lines); the
// lexer walks the text line by line and lexes tokens lazily, so memory stays small on any input.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/program/ast.h"

namespace sf::program {

enum class TokKind {
  kName,    // [A-Za-z_][A-Za-z0-9_]*, keywords included (the parser tells them apart)
  kInt,     // decimal digits, no sign (the parser attaches a leading '-' and checks overflow)
  kFloat,   // digits with a fraction and/or an exponent, no sign
  kString,  // a "..." literal; `text` holds the decoded contents
  kPunct,   // ( ) [ ] , : = == != < <= > >= + - * / // % | & ~
  kEnd,     // end of the line (repeats if peeked past)
};

struct Token {
  TokKind kind = TokKind::kEnd;
  std::string text;
  SourceLoc loc;
};

class Lexer {
 public:
  // first_line: the number given to the text's first line.
  explicit Lexer(std::string_view text, int first_line = 1)
      : text_(text), number_(first_line - 1) {}

  // Moves to the next source line ('\n' separated, a trailing '\r' dropped); false after the
  // last one. Lines are 1-based; an empty text has one empty line.
  bool next_line();
  std::string_view raw() const { return text_.substr(begin_, stop_ - begin_); }
  int line_number() const { return number_; }
  // Only spaces, tabs and possibly a comment.
  bool blank() const { return blank_; }
  // Leading spaces of a non-blank line; a tab there is a parse error.
  int indent() const;
  // Tokens of the current line, lexed on demand. Errors are UserError(kParse, "line L:C: ...").
  const Token& peek(size_t ahead = 0);
  Token take();
  // Where the text ends (for "expected ... at end of input").
  SourceLoc end_loc() const;

 private:
  Token lex_token();
  Token number(size_t start);
  Token string(size_t start);
  Token make(TokKind kind, size_t start) const;
  SourceLoc loc(size_t at) const { return SourceLoc{number_, static_cast<int>(at - begin_) + 1}; }
  [[noreturn]] void fail(size_t at, const std::string& msg) const;
  char at(size_t i) const { return i < stop_ ? text_[i] : '\0'; }

  std::string_view text_;
  bool started_ = false;
  size_t begin_ = 0, stop_ = 0, end_ = 0;  // line start, content end, position of its '\n'
  size_t pos_ = 0;                         // next unlexed byte of the line
  int number_ = 0;
  bool blank_ = true;
  std::vector<Token> ahead_;
};

// How a token is named in error messages: 'x', '(', end of line, string "...".
std::string describe(const Token& tok);

// Escapes a string's contents as a "..." literal: \\ \" \n \t \r, other control bytes and DEL as
// \xHH; bytes >= 0x80 stay as they are (so any byte string round-trips).
std::string quote_string(std::string_view s);

[[noreturn]] void throw_parse_error(SourceLoc loc, const std::string& message);

}  // namespace sf::program
