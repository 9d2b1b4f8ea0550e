// Disagreements with PyTorch already triaged (a PyTorch bug kept in corpus/pytorch, a torch
// limitation, or one of our deliberate divergences): rules that match a judgement by backend,
// class, detail, program text and path, so a nightly torch-diff separates new keys from known ones.
#pragma once

#include <regex>
#include <string>
#include <vector>

namespace sf::torch_ref {

// One triaged class. A disagreement matches when its backend and class are listed (or the list is
// empty), `detail` matches somewhere in the judgement's detail, and every `program` pattern
// somewhere in the program's .sfz text, and `path` somewhere in the program's name (its file for a
// corpus program, seed-N for a generated one); each optional, but a rule needs one pattern. An
// ours-failed judgement matches only a rule that lists that class.
struct KnownDivergence {
  std::string id;
  std::vector<std::string> backends;
  std::vector<std::string> classes;  // diff_class_name()s
  std::string detail_pattern;
  std::regex detail;  // ECMAScript, searched (not anchored)
  std::vector<std::string> program_patterns;
  std::vector<std::regex> programs;
  std::string path_pattern;
  std::regex path;
  std::string why;  // the triage: whose it is and where it is kept
  int line = 0;     // where it starts in its file
};

// The rules of a file in order; the first that matches names a disagreement. Format, a block per
// rule:
//   [scan-guards-on-empty]
//   backends = aot_eager eager
//   class = torch-rejects-we-accept torch-self
//   detail = data-dependent expression Eq\(.*, 0\)
//   program = \b(map|scan)\(
//   program = \bnonzero\(        (a second pattern: both must match)
//   path = (^|/)corpus/pytorch/
//   why = PyTorch's: ... (corpus/pytorch/...)
// '#' starts a comment line. A malformed file (an unknown key or class, a bad pattern, a rule
// without `why` or without any of `detail`, `program` and `path`, a key other than `program`
// given twice, a repeated id) is a UserError naming the line.
class KnownDivergences {
 public:
  static KnownDivergences parse(const std::string& text, const std::string& origin = "known");
  static KnownDivergences load(const std::string& path);  // a file that cannot be read: UserError

  // The first rule matching, or nullptr.
  const KnownDivergence* match(const std::string& backend, const std::string& cls,
                               const std::string& detail, const std::string& sfz,
                               const std::string& name = "") const;
  const std::vector<KnownDivergence>& rules() const { return rules_; }
  bool empty() const { return rules_.empty(); }

 private:
  std::vector<KnownDivergence> rules_;
};

}  // namespace sf::torch_ref
