// Line lexer for .sfz text. Only ASCII is meaningful outside strings and comments; everything
// else is rejected with its position so that fuzzed bytes produce a parse error, never a crash.
#include "engine/program/lexer.h"

#include <cstdio>

#include "engine/base/errors.h"

namespace sf::program {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

std::string show_char(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof(buf), "'\\x%02x'", u);
  return buf;
}

int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool Lexer::next_line() {
  if (started_) {
    if (end_ >= text_.size()) return false;
    begin_ = end_ + 1;
  }
  started_ = true;
  ++number_;
  end_ = text_.find('\n', begin_);
  if (end_ == std::string_view::npos) end_ = text_.size();
  stop_ = end_;
  if (stop_ > begin_ && text_[stop_ - 1] == '\r') --stop_;
  pos_ = begin_;
  ahead_.clear();
  size_t i = begin_;
  while (i < stop_ && (text_[i] == ' ' || text_[i] == '\t')) ++i;
  blank_ = i == stop_ || text_[i] == '#';
  return true;
}

int Lexer::indent() const {
  size_t i = begin_;
  while (i < stop_ && text_[i] == ' ') ++i;
  if (i < stop_ && text_[i] == '\t') fail(i, "tab character in indentation; indent with spaces");
  return static_cast<int>(i - begin_);
}

const Token& Lexer::peek(size_t ahead) {
  while (ahead_.size() <= ahead) ahead_.push_back(lex_token());
  return ahead_[ahead];
}

Token Lexer::take() {
  peek();
  Token t = std::move(ahead_.front());
  ahead_.erase(ahead_.begin());
  return t;
}

SourceLoc Lexer::end_loc() const {
  size_t last = text_.rfind('\n');
  size_t start = last == std::string_view::npos ? 0 : last + 1;
  int lines = 1;
  for (char c : text_) lines += c == '\n';
  return SourceLoc{lines, static_cast<int>(text_.size() - start) + 1};
}

void Lexer::fail(size_t at, const std::string& msg) const { throw_parse_error(loc(at), msg); }

Token Lexer::make(TokKind kind, size_t start) const {
  return Token{kind, std::string(text_.substr(start, pos_ - start)), loc(start)};
}

Token Lexer::lex_token() {
  while (pos_ < stop_ && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  if (pos_ >= stop_ || text_[pos_] == '#') return Token{TokKind::kEnd, "", loc(stop_)};
  size_t start = pos_;
  char c = text_[pos_];
  if (is_name_start(c)) {
    while (pos_ < stop_ && is_name_char(text_[pos_])) ++pos_;
    return make(TokKind::kName, start);
  }
  if (is_digit(c)) return number(start);
  if (c == '"') return string(start);
  static const char* const kTwo[] = {"==", "!=", "<=", ">=", "//"};
  for (const char* op : kTwo) {
    if (at(pos_) == op[0] && at(pos_ + 1) == op[1]) {
      pos_ += 2;
      return make(TokKind::kPunct, start);
    }
  }
  if (std::string_view("()[],:=<>+-*/%|&~").find(c) != std::string_view::npos) {
    ++pos_;
    return make(TokKind::kPunct, start);
  }
  if (c == '\'') fail(start, "strings use double quotes");
  fail(start, "unexpected character " + show_char(c));
}

Token Lexer::number(size_t start) {
  bool is_float = false;
  while (is_digit(at(pos_))) ++pos_;
  if (at(pos_) == '.') {
    if (!is_digit(at(pos_ + 1))) fail(pos_ + 1, "malformed number: expected digits after '.'");
    is_float = true;
    ++pos_;
    while (is_digit(at(pos_))) ++pos_;
  }
  if (at(pos_) == 'e' || at(pos_) == 'E') {
    size_t d = pos_ + 1;
    if (at(d) == '+' || at(d) == '-') ++d;
    if (!is_digit(at(d))) fail(d, "malformed number: expected exponent digits");
    is_float = true;
    pos_ = d;
    while (is_digit(at(pos_))) ++pos_;
  }
  if (is_name_char(at(pos_)) || at(pos_) == '.') {
    fail(pos_, "malformed number: unexpected " + show_char(at(pos_)) + " after digits");
  }
  return make(is_float ? TokKind::kFloat : TokKind::kInt, start);
}

Token Lexer::string(size_t start) {
  std::string out;
  ++pos_;
  while (true) {
    if (pos_ >= stop_) fail(start, "unterminated string (a string ends on its line)");
    char c = text_[pos_];
    auto u = static_cast<unsigned char>(c);
    if (c == '"') break;
    if (u < 0x20 || u == 0x7f) fail(pos_, "control character " + show_char(c) + " in string");
    if (c != '\\') {
      out += c;
      ++pos_;
      continue;
    }
    char e = at(pos_ + 1);
    if (e == '\\' || e == '"') {
      out += e;
    } else if (e == 'n') {
      out += '\n';
    } else if (e == 't') {
      out += '\t';
    } else if (e == 'r') {
      out += '\r';
    } else if (e == 'x' && hex_value(at(pos_ + 2)) >= 0 && hex_value(at(pos_ + 3)) >= 0) {
      out += static_cast<char>(hex_value(at(pos_ + 2)) * 16 + hex_value(at(pos_ + 3)));
      pos_ += 2;
    } else {
      fail(pos_, "bad escape in string; use \\\\, \\\", \\n, \\t, \\r or \\xHH");
    }
    pos_ += 2;
  }
  ++pos_;
  return Token{TokKind::kString, std::move(out), loc(start)};
}

std::string describe(const Token& tok) {
  switch (tok.kind) {
    case TokKind::kEnd:
      return "end of line";
    case TokKind::kString:
      return "string " +
             quote_string(tok.text.size() > 20 ? tok.text.substr(0, 20) + "..." : tok.text);
    case TokKind::kName:
    case TokKind::kInt:
    case TokKind::kFloat:
    case TokKind::kPunct:
      return "'" + (tok.text.size() > 40 ? tok.text.substr(0, 40) + "..." : tok.text) + "'";
  }
  return "?";
}

std::string quote_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

void throw_parse_error(SourceLoc loc, const std::string& message) {
  throw UserError(UserErrorKind::kParse, "line " + std::to_string(loc.line) + ":" +
                                             std::to_string(loc.col) + ": " + message);
}

}  // namespace sf::program
