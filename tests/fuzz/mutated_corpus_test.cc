// Fuzzes the harness itself: every hand-written and regression corpus program, mutated at the
// token and the statement level, runs through the whole pipeline in a child process. No mutant
// may crash, hang or FAIL: a mutant's FAIL is an engine bug or the harness crying wolf (a limit
// of its own reported as a disagreement), and either is a finding to fix, not to allow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "fuzz/files.h"
#include "fuzz/outcome.h"

namespace sf::fuzz {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(text.substr(start, nl - start));
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// A mutant of `text` made by `rng`: one token replaced, deleted or doubled, or one statement
// deleted, doubled or moved. The header keeps only `# sfz 1` and the expectation: a mutant is
// neither valid by construction nor under a zoo fault.
class Mutator {
 public:
  explicit Mutator(const std::string& text) {
    for (const std::string& l : split_lines(text)) {
      if (l.rfind("# faults:", 0) == 0 || l.rfind("# valid:", 0) == 0) continue;
      if (l.rfind("# reproduces:", 0) == 0) continue;
      lines_.push_back(l);
      if (!l.empty() && l[0] != '#') body_.push_back(lines_.size() - 1);
    }
    static const std::regex kToken(R"([A-Za-z_][A-Za-z0-9_]*|-?[0-9]+(\.[0-9]+)?|\S)");
    for (size_t i : body_) {
      for (std::sregex_iterator it(lines_[i].begin(), lines_[i].end(), kToken), end; it != end;
           ++it) {
        tokens_.push_back(it->str());
      }
    }
  }

  bool empty() const { return body_.empty() || tokens_.empty(); }

  std::string mutant(std::mt19937_64& rng) const {
    std::vector<std::string> lines = lines_;
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    size_t at = body_[pick(body_.size())];
    switch (pick(6)) {
      case 0:
      case 1:
      case 2:
        lines[at] = mutate_token(lines[at], rng);
        break;
      case 3:
        lines.erase(lines.begin() + static_cast<ptrdiff_t>(at));
        break;
      case 4:
        lines.insert(lines.begin() + static_cast<ptrdiff_t>(at), lines[at]);
        break;
      case 5: {
        size_t to = body_[pick(body_.size())];
        std::swap(lines[at], lines[to]);
        break;
      }
    }
    return join_lines(lines);
  }

 private:
  // A number becomes an interesting one, a name another name of the program (a use of another
  // value, or another op), punctuation stays: most mutants still parse and reach the engine.
  std::string mutate_token(const std::string& line, std::mt19937_64& rng) const {
    static const std::regex kWord(R"([A-Za-z_][A-Za-z0-9_]*|-?[0-9]+(\.[0-9]+)?)");
    std::vector<std::pair<size_t, size_t>> spans;
    for (std::sregex_iterator it(line.begin(), line.end(), kWord), end; it != end; ++it)
      spans.emplace_back(it->position(), it->length());
    if (spans.empty()) return line;
    auto [pos, len] = spans[rng() % spans.size()];
    std::string old = line.substr(pos, len);
    static const std::vector<std::string> kNumbers = {
        "0",   "1",    "-1", "2", "3", "64", "-4", "4611686018427387904", "9223372036854775807",
        "0.5", "1e308"};
    std::string replacement;
    if (std::isdigit(static_cast<unsigned char>(old.back()))) {
      replacement = kNumbers[rng() % kNumbers.size()];
    } else {
      std::vector<std::string> names;
      for (const std::string& t : tokens_) {
        if (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_') names.push_back(t);
      }
      replacement = names[rng() % names.size()];
    }
    return line.substr(0, pos) + replacement + line.substr(pos + len);
  }

  std::vector<std::string> lines_;
  std::vector<size_t> body_;  // indexes of the lines with tokens (statements and inputs)
  std::vector<std::string> tokens_;
};

bool acceptable(const std::string& bucket) {
  return bucket.rfind("fail:", 0) != 0 && bucket.rfind("crash:", 0) != 0;
}

TEST(MutatedCorpus, NoMutantCrashesHangsOrFails) {
  constexpr int kMutantsPerProgram = 16;
  oracles::PipelineOptions opts;
  opts.oracles = oracles::OracleSet::all();
  IsolationLimits limits;
  limits.timeout_seconds = 30;  // a hang, not a slow program: the oracles' deadlines are 2 s
  int mutants = 0, parsed = 0;
  std::vector<std::string> findings;
  for (const char* dir : {"corpus/program", "corpus/regressions"}) {
    std::vector<std::filesystem::path> files = sfz_files_under(dir);
    std::sort(files.begin(), files.end());
    ASSERT_FALSE(files.empty()) << dir;
    for (const std::filesystem::path& file : files) {
      std::optional<std::string> text = read_text_file(file);
      ASSERT_TRUE(text) << file;
      Mutator m(*text);
      if (m.empty()) continue;
      std::mt19937_64 rng(std::hash<std::string>{}(file.filename().string()));
      for (int k = 0; k < kMutantsPerProgram; ++k) {
        std::string mutant = m.mutant(rng);
        Outcome o = run_program_isolated(mutant, opts, limits);
        ++mutants;
        if (o.bucket != "invalid") ++parsed;
        if (!acceptable(o.bucket)) {
          findings.push_back(file.string() + " mutant " + std::to_string(k) + ": " + o.bucket +
                             ": " + o.detail.substr(0, 300) + "\n" + mutant);
        }
      }
    }
  }
  // Many mutants must still parse, or the test fuzzes only the parser.
  EXPECT_GT(parsed * 4, mutants) << parsed << " of " << mutants << " mutants parsed";
  EXPECT_TRUE(findings.empty()) << findings.size() << " of " << mutants << " mutants:\n"
                                << [&] {
                                     std::string all;
                                     for (const std::string& f : findings) all += f + "\n";
                                     return all;
                                   }();
}

}  // namespace
}  // namespace sf::fuzz
