// The known-divergence file: a small block format parsed strictly (a typo in a rule must not
// silently turn a known class into new findings, or hide a new one).
#include "fuzz/torch/known_divergences.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "engine/base/errors.h"
#include "fuzz/files.h"
#include "fuzz/torch/torch_diff.h"

namespace sf::torch_ref {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& x) {
  return list.empty() || std::find(list.begin(), list.end(), x) != list.end();
}

class Parser {
 public:
  explicit Parser(std::string origin) : origin_(std::move(origin)) {}

  std::vector<KnownDivergence> parse(const std::string& text) {
    std::istringstream in(text);
    std::string raw;
    while (std::getline(in, raw)) {
      ++line_;
      std::string s = trim(raw);
      if (s.empty() || s[0] == '#') continue;
      if (s.front() == '[') {
        finish();
        if (s.back() != ']' || s.size() < 3) fail("a rule starts with [id]");
        std::string id = trim(s.substr(1, s.size() - 2));
        if (!ids_.insert(id).second) fail("the id '" + id + "' is used twice");
        keys_.clear();
        rules_.push_back(KnownDivergence{});
        rules_.back().id = id;
        rules_.back().line = line_;
        continue;
      }
      if (rules_.empty()) fail("'" + s + "' is outside a rule (start one with [id])");
      size_t eq = s.find('=');
      if (eq == std::string::npos) fail("expected 'key = value', got '" + s + "'");
      set(trim(s.substr(0, eq)), trim(s.substr(eq + 1)));
    }
    finish();
    return std::move(rules_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     origin_ + ":" + std::to_string(line_) + ": " + what);
  }

  std::regex pattern(const std::string& p) const {
    try {
      return std::regex(p, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      fail("bad pattern '" + p + "': " + e.what());
    }
  }

  void set(const std::string& key, const std::string& value) {
    KnownDivergence& r = rules_.back();
    if (value.empty()) fail("'" + key + "' has no value");
    // Only `program` repeats (each pattern must match); a second detail or path would silently
    // replace the first.
    if (key != "program" && !keys_.insert(key).second) {
      fail("'" + key + "' is given twice in rule '" + r.id + "'");
    }
    if (key == "backends") {
      r.backends = words(value);
    } else if (key == "class") {
      for (const std::string& c : words(value)) {
        bool known = false;
        for (DiffClass d : all_diff_classes()) known |= c == diff_class_name(d);
        if (!known || c == "agree") fail("'" + c + "' is not a disagreement class");
        r.classes.push_back(c);
      }
    } else if (key == "detail") {
      r.detail_pattern = value;
      r.detail = pattern(value);
    } else if (key == "program") {
      r.program_patterns.push_back(value);
      r.programs.push_back(pattern(value));
    } else if (key == "path") {
      r.path_pattern = value;
      r.path = pattern(value);
    } else if (key == "why") {
      r.why = value;
    } else {
      fail("unknown key '" + key + "' (backends, class, detail, program, path, why)");
    }
  }

  // Checks the rule just read (its errors name its first line).
  void finish() {
    if (rules_.empty()) return;
    const KnownDivergence& r = rules_.back();
    int at = line_;
    line_ = r.line;
    if (r.why.empty()) fail("rule '" + r.id + "' has no 'why' (its triage)");
    if (r.detail_pattern.empty() && r.program_patterns.empty() && r.path_pattern.empty()) {
      fail("rule '" + r.id + "' needs a 'detail', 'program' or 'path' pattern");
    }
    line_ = at;
  }

  std::string origin_;
  int line_ = 0;
  std::set<std::string> ids_;
  std::set<std::string> keys_;  // the keys the rule being read has set
  std::vector<KnownDivergence> rules_;
};

}  // namespace

KnownDivergences KnownDivergences::parse(const std::string& text, const std::string& origin) {
  KnownDivergences k;
  k.rules_ = Parser(origin).parse(text);
  return k;
}

KnownDivergences KnownDivergences::load(const std::string& path) {
  std::optional<std::string> text = fuzz::read_text_file(path);
  if (!text) {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     "cannot read the known-divergence file " + path);
  }
  return parse(*text, path);
}

const KnownDivergence* KnownDivergences::match(const std::string& backend, const std::string& cls,
                                               const std::string& detail, const std::string& sfz,
                                               const std::string& name) const {
  for (const KnownDivergence& r : rules_) {
    if (!contains(r.backends, backend) || !contains(r.classes, cls)) continue;
    // Our own failure is never PyTorch's: only a rule that names the class can know it (a
    // program made to fail ours, such as a bug-zoo reproducer with its fault injected).
    if (cls == "ours-failed" && r.classes.empty()) continue;
    if (!r.detail_pattern.empty() && !std::regex_search(detail, r.detail)) continue;
    if (!r.path_pattern.empty() && !std::regex_search(name, r.path)) continue;
    bool program_matches =
        std::all_of(r.programs.begin(), r.programs.end(),
                    [&](const std::regex& p) { return std::regex_search(sfz, p); });
    if (program_matches) return &r;
  }
  return nullptr;
}

}  // namespace sf::torch_ref
