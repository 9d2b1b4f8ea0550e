// The header block of a .sfz file: "# sfz 1" on line 1, then comment lines among which
// "# expect:", "# found-by:", "# reproduces:", "# mode:", "# valid:" and "# faults:" are
// directives. It ends at the first other line.
#include <algorithm>
#include <string>

#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/program/parser_internal.h"

namespace sf::program::internal {

namespace {

size_t skip_spaces(std::string_view s, size_t i) {
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

size_t trim_end(std::string_view s) {
  size_t e = s.size();
  while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return e;
}

// A line "#  word..." split into the word and the position just after it.
struct Directive {
  std::string word;
  size_t after = 0;
};

Directive directive_word(std::string_view line) {
  Directive d;
  if (line.empty() || line[0] != '#') return d;
  size_t i = skip_spaces(line, 1);
  size_t start = i;
  while (i < line.size() && ((line[i] >= 'a' && line[i] <= 'z') || line[i] == '-')) ++i;
  d.word = std::string(line.substr(start, i - start));
  d.after = i;
  return d;
}

// "# sfz N": returns N's position, or npos when the line is not a version line.
size_t version_pos(std::string_view line) {
  Directive d = directive_word(line);
  if (d.word != "sfz" || d.after >= line.size() || line[d.after] != ' ') return std::string::npos;
  size_t i = skip_spaces(line, d.after);
  size_t end = trim_end(line);
  if (i >= end) return std::string::npos;
  for (size_t k = i; k < end; ++k) {
    if (line[k] < '0' || line[k] > '9') return std::string::npos;
  }
  return i;
}

[[noreturn]] void fail_at(int line, size_t index, const std::string& message) {
  throw_parse_error(SourceLoc{line, static_cast<int>(index) + 1}, message);
}

std::string parse_expect(std::string_view line, int number, size_t i) {
  size_t end = trim_end(line);
  std::string_view value = line.substr(i, end > i ? end - i : 0);
  if (value == "ok") return "ok";
  if (value.substr(0, 5) != "error" || (value.size() > 5 && value[5] != ' ')) {
    fail_at(number, i, "expected 'ok' or 'error <kind> [\"substring\"]' after '# expect:'");
  }
  size_t k = skip_spaces(line, i + 5);
  size_t kind_start = k;
  while (k < line.size() && ((line[k] >= 'a' && line[k] <= 'z') || line[k] == '_')) ++k;
  std::string kind(line.substr(kind_start, k - kind_start));
  if (!user_error_kind_by_name(kind)) {
    std::string names;
    for (UserErrorKind e : all_user_error_kinds()) {
      names += std::string(names.empty() ? "" : ", ") + user_error_kind_name(e);
    }
    fail_at(number, kind_start, "expected an error kind (one of " + names + ")");
  }
  std::string expect = "error " + kind;
  // Lex the rest in place (earlier columns blanked) so positions stay those of the file.
  std::string rest(line.size(), ' ');
  for (size_t c = k; c < line.size(); ++c) rest[c] = line[c];
  Lexer lex(rest, number);
  lex.next_line();
  Token first = lex.take();
  if (first.kind == TokKind::kString) {
    expect += " " + quote_string(first.text);
    if (lex.peek().kind != TokKind::kEnd) {
      throw_parse_error(lex.peek().loc, "expected end of line after the expected substring");
    }
  } else if (first.kind != TokKind::kEnd) {
    throw_parse_error(first.loc,
                      "expected a quoted substring after the error kind, found " + describe(first));
  }
  return expect;
}

// "a, b": fault names from engine/base/faults.def, each once.
std::vector<std::string> parse_faults(std::string_view line, int number, size_t i, size_t end) {
  std::vector<std::string> names;
  while (i < end) {
    size_t start = skip_spaces(line, i), k = start;
    while (k < end && line[k] != ',' && line[k] != ' ') ++k;
    std::string name(line.substr(start, k - start));
    if (!fault_by_name(name)) {
      fail_at(number, start, "unknown fault '" + name + "' (see engine/base/faults.def)");
    }
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      fail_at(number, start, "fault '" + name + "' listed twice");
    }
    names.push_back(name);
    k = skip_spaces(line, k);
    if (k < end && line[k] != ',') fail_at(number, k, "expected ',' between fault names");
    i = k + 1;
  }
  if (names.empty()) fail_at(number, i, "expected fault names after '# faults:'");
  return names;
}

}  // namespace

bool is_header_directive(std::string_view line) {
  Directive d = directive_word(line);
  bool keyed = d.word == "expect" || d.word == "found-by" || d.word == "mode" ||
               d.word == "valid" || d.word == "faults" || d.word == "reproduces";
  return (keyed && d.after < line.size() && line[d.after] == ':') ||
         version_pos(line) != std::string::npos;
}

bool parse_header(Lexer& lex, Header* header) {
  lex.next_line();
  std::string_view first = lex.raw();
  size_t vpos = version_pos(first);
  if (vpos == std::string::npos) fail_at(1, 0, "expected the header line '# sfz 1'");
  std::string_view digits = first.substr(vpos, trim_end(first) - vpos);
  if (digits != "1") {
    fail_at(1, vpos,
            "unsupported format version " + std::string(digits.substr(0, 20)) +
                " (this parser reads version 1)");
  }
  header->version = 1;
  bool seen_expect = false, seen_found_by = false, seen_mode = false, seen_valid = false,
       seen_faults = false, seen_reproduces = false;
  while (lex.next_line()) {
    if (!lex.blank()) return true;
    std::string_view line = lex.raw();
    int number = lex.line_number();
    if (!is_header_directive(line)) continue;
    Directive d = directive_word(line);
    if (d.word == "sfz") fail_at(number, 0, "duplicate '# sfz' version line");
    size_t v = skip_spaces(line, d.after + 1);
    size_t end = std::max(trim_end(line), v);
    auto once = [&](bool* seen) {
      if (*seen) fail_at(number, 0, "duplicate '# " + d.word + ":' header line");
      *seen = true;
    };
    if (d.word == "expect") {
      once(&seen_expect);
      header->expect = parse_expect(line, number, v);
    } else if (d.word == "found-by" || d.word == "reproduces") {
      bool found_by = d.word == "found-by";
      once(found_by ? &seen_found_by : &seen_reproduces);
      std::string* text = found_by ? &header->found_by : &header->reproduces;
      *text = std::string(line.substr(v, end - v));
      for (size_t k = 0; k < text->size(); ++k) {
        auto c = static_cast<unsigned char>((*text)[k]);
        if (c < 0x20 || c == 0x7f) {
          fail_at(number, v + k, "control character in '# " + d.word + ":'");
        }
      }
      if (!found_by && text->empty()) fail_at(number, v, "expected a bucket after '# reproduces:'");
    } else if (d.word == "valid") {
      once(&seen_valid);
      if (line.substr(v, end - v) != "by-construction") {
        fail_at(number, v, "expected 'by-construction' after '# valid:'");
      }
      header->valid_by_construction = true;
    } else if (d.word == "faults") {
      once(&seen_faults);
      header->faults = parse_faults(line, number, v, end);
    } else {
      once(&seen_mode);
      if (line.substr(v, end - v) != "inference") {
        fail_at(number, v, "expected 'inference' after '# mode:' (the only mode)");
      }
      header->inference_mode = true;
    }
  }
  return false;
}

}  // namespace sf::program::internal
