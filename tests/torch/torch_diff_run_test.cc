// torch-diff's run as a library, against the fake worker (fake_torch_worker.py: a data-dependent
// guard for programs with nonzero, a RuntimeError otherwise): every disagreement is counted by
// key, the ones a known-divergence rule matches are known (no example kept, not minimized), and
// the status says whether anything new is left.
#include "fuzz/torch/torch_diff_run.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "engine/backend/cpu/cpu_backend.h"

namespace sf::torch_ref {
namespace {

namespace fs = std::filesystem;

class TorchDiffRun : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = fs::path(tmp ? tmp : "/tmp") / "torch_diff_run_test";
    fs::remove_all(root_);
    fs::create_directories(root_ / "programs");
    // A --python that runs the fake whatever worker script it is given.
    python_ = root_ / "python";
    std::ofstream(python_) << "#!/bin/sh\nexec python3 "
                           << fs::absolute("tests/torch/fake_torch_worker.py").string() << "\n";
    fs::permissions(python_, fs::perms::owner_all);
    std::ofstream(root_ / "programs" / "with_nonzero.sfz")
        << "# sfz 1\ninput x: i64[4] = [0, 1, 0, 2]\na = nonzero(x)\nreturn a\n";
    std::ofstream(root_ / "programs" / "plain.sfz")
        << "# sfz 1\ninput y: f32[3] = randn(seed=1)\nb = add(y, y)\nreturn b\n";
  }

  TorchDiffOptions options(const std::string& rules) {
    TorchDiffOptions o;
    o.dir = (root_ / "programs").string();
    o.python = python_.string();
    o.ours = [] { return backend::make_cpu_backend(); };
    o.out = (root_ / "out").string();
    o.minimize = 0;
    o.known = KnownDivergences::parse(rules);
    o.known_file = "rules";
    return o;
  }

  fs::path root_, python_;
};

const char* kGuardRule =
    "[fake-guard]\ndetail = data-dependent expression\nprogram = \\bnonzero\\(\nwhy = the fake\n";

TEST_F(TorchDiffRun, KnownDisagreementsAreSeparatedFromNewOnes) {
  std::FILE* log = std::tmpfile();
  TorchDiffResult r = run_torch_diff(options(kGuardRule), log);
  ASSERT_EQ(r.status, TorchDiffStatus::kNew) << r.error;
  EXPECT_EQ(r.report["known"]["fake-guard"], 2);  // eager and aot_eager of with_nonzero.sfz
  EXPECT_EQ(r.report["new_disagreements"], 2);    // plain.sfz's RuntimeErrors
  EXPECT_EQ(r.report["known_keys"]["aot_eager"]
                    ["torch-rejects-we-accept torch:data_dependent_guard/UserError"],
            1);
  for (const auto& p : r.report["programs"]) {
    bool guarded = p["name"].get<std::string>().find("with_nonzero") != std::string::npos;
    for (const auto& [backend, v] : p["backends"].items()) {
      EXPECT_EQ(v.contains("known"), guarded) << p.dump();
    }
  }
  // Examples are kept for the new disagreements only; the report is on disk.
  fs::path examples = root_ / "out" / "aot_eager" / "torch-rejects-we-accept";
  EXPECT_TRUE(fs::exists(examples / "plain.sfz"));
  EXPECT_FALSE(fs::exists(examples / "with_nonzero.sfz"));
  EXPECT_TRUE(fs::exists(root_ / "out" / "report.json"));
  std::fclose(log);
}

TEST_F(TorchDiffRun, OnlyKnownDisagreementsAreNotFindings) {
  std::string rules = std::string(kGuardRule) + "[fake-other]\ndetail = something else\nwhy = b\n";
  std::FILE* log = std::tmpfile();
  TorchDiffResult r = run_torch_diff(options(rules), log);
  EXPECT_EQ(r.status, TorchDiffStatus::kOnlyKnown) << r.error;
  EXPECT_EQ(r.report["new_disagreements"], 0);
  EXPECT_GT(r.report["programs_per_second"].get<double>(), 0);
  std::fclose(log);
}

// A torch-invariant disagreement is minimized into an issue-ready .py: the PyTorch version, the
// invariant in words, what was seen, and how to print the backend's own graph.
TEST_F(TorchDiffRun, AMinimizedInvariantReproducerSaysWhatBrokeAndHowToSeeIt) {
  TorchDiffOptions o = options("");
  o.backends = {"capture_export"};
  o.minimize = 1;
  o.shrink_seconds = 20;
  std::FILE* log = std::tmpfile();
  TorchDiffResult r = run_torch_diff(o, log);
  std::fclose(log);
  ASSERT_EQ(r.status, TorchDiffStatus::kNew) << r.error;
  fs::path py = root_ / "out" / "capture_export" / "torch-invariant" / "with_nonzero.min.py";
  ASSERT_TRUE(fs::exists(py));
  std::ifstream in(py);
  std::string first, second, third;
  std::getline(in, first);
  std::getline(in, second);
  std::getline(in, third);
  EXPECT_EQ(first.rfind("# PyTorch fake breaks: every unbacked symbol", 0), 0u) << first;
  EXPECT_EQ(second.rfind("# Seen (before minimizing): u0 is used by nonzero", 0), 0u) << second;
  EXPECT_NE(third.find("with_nonzero.min.py capture_export` prints torch.export's graph"),
            std::string::npos)
      << third;
}

TEST_F(TorchDiffRun, WithoutAWorkerPyTorchIsUnavailable) {
  TorchDiffOptions o = options("");
  o.python = "/nonexistent/python3";
  TorchDiffResult r = run_torch_diff(o, stdout);
  EXPECT_EQ(r.status, TorchDiffStatus::kTorchUnavailable);
  EXPECT_NE(r.error.find("/nonexistent/python3"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace sf::torch_ref
