// Line-level delta debugging on program text: try removing chunks of body lines (halving the
// chunk size down to one line), then drop returned values one by one; repeat until nothing shrinks.
#include "fuzz/shrink.h"

#include <sstream>
#include <vector>

namespace sf::fuzz {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) lines.push_back(line);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

bool is_fixed_line(const std::string& l) {
  size_t i = l.find_first_not_of(' ');
  return i == std::string::npos || l[i] == '#';
}

// "return a, f(b, c), d" -> {"a", "f(b, c)", "d"}: split at commas outside brackets.
std::vector<std::string> return_items(const std::string& list) {
  std::vector<std::string> items;
  int depth = 0;
  std::string cur;
  for (char c : list) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  items.push_back(cur);
  for (std::string& s : items) {
    size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
    s = b == std::string::npos ? "" : s.substr(b, e - b + 1);
  }
  return items;
}

}  // namespace

int program_text_lines(const std::string& text) {
  int n = 0;
  for (const std::string& l : split_lines(text)) n += is_fixed_line(l) ? 0 : 1;
  return n;
}

ShrinkResult shrink_program_text(const std::string& text,
                                 const std::function<bool(const std::string&)>& interesting,
                                 int max_attempts) {
  ShrinkResult r;
  std::vector<std::string> lines = split_lines(text);
  auto attempt = [&](const std::vector<std::string>& candidate) {
    if (r.attempts >= max_attempts) return false;
    ++r.attempts;
    if (!interesting(join_lines(candidate))) return false;
    lines = candidate;
    ++r.accepted;
    return true;
  };
  bool progress = true;
  while (progress && r.attempts < max_attempts) {
    progress = false;
    std::vector<size_t> body;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!is_fixed_line(lines[i])) body.push_back(i);
    }
    // ddmin: remove chunks of body lines, largest first; from the end, since later lines are
    // the ones nothing else depends on.
    for (size_t chunk = std::max<size_t>(body.size() / 2, 1); chunk >= 1; chunk /= 2) {
      for (size_t end = body.size(); end > 0;) {
        size_t begin = end >= chunk ? end - chunk : 0;
        std::vector<std::string> candidate;
        for (size_t i = 0, k = 0; i < lines.size(); ++i) {
          bool in_chunk = k < body.size() && body[k] == i && k >= begin && k < end;
          if (k < body.size() && body[k] == i) ++k;
          if (!in_chunk) candidate.push_back(lines[i]);
        }
        if (attempt(candidate)) {
          progress = true;
          body.erase(body.begin() + static_cast<long>(begin),
                     body.begin() + static_cast<long>(end));
          for (size_t j = begin; j < body.size(); ++j) body[j] -= end - begin;
        }
        end = begin;
      }
      if (chunk == 1) break;
    }
    // Returned values, one at a time (a program returns at least one).
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].rfind("return ", 0) != 0) continue;
      std::vector<std::string> items = return_items(lines[i].substr(7));
      for (size_t j = items.size(); j-- > 0 && items.size() > 1;) {
        std::vector<std::string> fewer = items;
        fewer.erase(fewer.begin() + static_cast<long>(j));
        std::string ret = "return ";
        for (size_t k = 0; k < fewer.size(); ++k) ret += (k ? ", " : "") + fewer[k];
        std::vector<std::string> candidate = lines;
        candidate[i] = ret;
        if (attempt(candidate)) {
          items = fewer;
          progress = true;
        }
      }
    }
  }
  r.text = join_lines(lines);
  return r;
}

}  // namespace sf::fuzz
