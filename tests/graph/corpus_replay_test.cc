// Replays every corpus/program/*.sfz through the pipeline, with and without the CPU backend (the
// CLI's default): each verdict must match the file's `# expect:` header and never be a FAIL.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "oracles/pipeline.h"

namespace sf::oracles {
namespace {

// The test runs in the runfiles root (`shapefuzz/`), where the data dependency puts the corpus.
std::vector<std::filesystem::path> corpus_files() {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("corpus/program", ec)) {
    if (e.path().extension() == ".sfz") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void replay(backend::Backend* b) {
  std::vector<std::filesystem::path> files = corpus_files();
  ASSERT_GE(files.size(), 28u) << "corpus/program not found or too small (cwd: "
                               << std::filesystem::current_path() << ")";
  int rejected = 0;
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    program::Program p;
    try {
      p = program::parse_program(read(f));
    } catch (const UserError& e) {
      ADD_FAILURE() << "does not parse: " << e.what();
      continue;
    }
    PipelineOptions opts;
    opts.backend = b;
    PipelineResult r = run_pipeline(p, opts);
    EXPECT_NE(r.verdict.kind, Verdict::Kind::kFail) << r.verdict.str();
    EXPECT_TRUE(matches_expectation(r.verdict, p.header.expect))
        << "expected '" << p.header.expect << "', got " << r.verdict.str();
    rejected += r.verdict.kind == Verdict::Kind::kRejected;
    if (b && r.verdict.kind == Verdict::Kind::kPass) {
      EXPECT_TRUE(r.run.has_value()) << "a pass with a backend means the compiled run completed";
    }
  }
  EXPECT_GE(rejected, 8) << "the corpus keeps a share of programs whose expectation is an error";
}

TEST(CorpusReplay, EveryProgramMatchesItsExpectationWithoutBackend) { replay(nullptr); }

TEST(CorpusReplay, EveryProgramMatchesItsExpectationOnCpu) {
  std::unique_ptr<backend::Backend> cpu = backend::make_cpu_backend();
  std::string why;
  ASSERT_TRUE(cpu->available(&why)) << why;
  replay(cpu.get());
}

TEST(CorpusReplay, HeadersCarryProvenance) {
  for (const auto& f : corpus_files()) {
    SCOPED_TRACE(f.filename().string());
    program::Program p = program::parse_program(read(f));
    EXPECT_FALSE(p.header.found_by.empty());
    std::string text = read(f);
    EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 30) << "corpus programs stay short";
  }
}

}  // namespace
}  // namespace sf::oracles
