// The regression corpus (corpus/regressions): the minimized reproducer of every engine or oracle
// bug fixed so far that has a program. Each file runs through the whole pipeline on the CPU
// backend with every oracle, in a child process (several of these bugs were aborts), and its
// verdict must match its '# expect:' header: never a failure, a crash, a wrong rejection or an
// undecided oracle. The programs of corpus/pytorch (PyTorch's findings) must give theirs too: ours is
// the reference each one is a finding against.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/parser.h"
#include "fuzz/campaign.h"
#include "fuzz/isolated.h"
#include "oracles/pipeline.h"
#include "oracles/verdict.h"

namespace sf::oracles {
namespace {

const char* const kDir = "corpus/regressions";
const char* const kPyTorchDir = "corpus/pytorch";

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> sfz_files(const char* dir) {
  std::vector<std::string> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".sfz") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> regression_files() { return sfz_files(kDir); }

// The header's comment lines (everything before the first line with tokens).
std::vector<std::string> header_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') break;
    out.push_back(line);
  }
  return out;
}

struct Outcome {
  std::string bucket;  // the verdict's bucket, or the child's crash bucket
  bool matches = false;
  std::string verdict;
};

// The verdict of `p` through the whole pipeline with every oracle, in a child process.
Outcome judge_in_child(const program::Program& p) {
  std::string out = fuzz::run_isolated(
      [&]() -> std::string {
        auto cpu = backend::make_cpu_backend();
        PipelineOptions opts;
        opts.backend = cpu.get();
        opts.oracles = OracleSet::all();
        Verdict v = run_pipeline(p, opts).verdict;
        bool ok = matches_expectation(v, p.header.expect) &&
                  v.kind != Verdict::Kind::kWrongRejection && !fuzz::is_finding_bucket(v.bucket());
        return v.bucket() + "\n" + (ok ? "1" : "0") + "\n" + v.str();
      },
      120);
  Outcome o;
  size_t a = out.find('\n');
  if (a == std::string::npos) {  // the child crashed: run_isolated returned its bucket
    o.bucket = out;
    return o;
  }
  size_t b = out.find('\n', a + 1);
  o.bucket = out.substr(0, a);
  o.matches = out.substr(a + 1, b - a - 1) == "1";
  o.verdict = b == std::string::npos ? "" : out.substr(b + 1);
  return o;
}

class RegressionFile : public ::testing::TestWithParam<std::string> {};

TEST_P(RegressionFile, GivesItsExpectation) {
  std::filesystem::path file = std::filesystem::path(kDir) / GetParam();
  std::string text = read(file);
  program::Program p = program::parse_program(text);
  EXPECT_FALSE(p.header.found_by.empty()) << file << ": no '# found-by:'";
  EXPECT_TRUE(p.header.faults.empty()) << file << ": a regression runs with no fault switched on";
  std::vector<std::string> header = header_lines(text);
  EXPECT_TRUE(std::any_of(header.begin(), header.end(),
                          [](const std::string& l) { return l.rfind("# guards: ", 0) == 0; }))
      << file << ": no '# guards:' line naming the bug and commit";
  Outcome o = judge_in_child(p);
  EXPECT_TRUE(o.matches) << file << " expects '" << p.header.expect << "' but gives " << o.bucket
                         << "\n"
                         << o.verdict;
}

class PyTorchFinding : public ::testing::TestWithParam<std::string> {};

TEST_P(PyTorchFinding, GivesItsExpectation) {
  std::filesystem::path file = std::filesystem::path(kPyTorchDir) / GetParam();
  program::Program p = program::parse_program(read(file));
  Outcome o = judge_in_child(p);
  EXPECT_TRUE(o.matches) << file << " expects '" << p.header.expect << "' but gives " << o.bucket
                         << "\n"
                         << o.verdict;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - 4);  // without ".sfz"
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Regressions, RegressionFile, ::testing::ValuesIn(regression_files()),
                         test_name);

INSTANTIATE_TEST_SUITE_P(PyTorch, PyTorchFinding, ::testing::ValuesIn(sfz_files(kPyTorchDir)),
                         test_name);

TEST(RegressionCorpus, IsThere) {
  EXPECT_GE(regression_files().size(), 20u);
  EXPECT_GE(sfz_files(kPyTorchDir).size(), 20u);
}

}  // namespace
}  // namespace sf::oracles
