// oracles/backend_differential.h: a plan run on the CPU backend and on a scripted second backend
// (the CPU's run, altered) agrees only when outputs, σ and raised errors all match.
#include "oracles/backend_differential.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/parser.h"

namespace sf::oracles {
namespace {

// The CPU backend's run, then `alter` applied to its result (or thrown instead of it).
class ScriptedBackend : public backend::Backend {
 public:
  explicit ScriptedBackend(std::function<void(backend::RunResult&)> alter)
      : cpu_(backend::make_cpu_backend()), alter_(std::move(alter)) {}
  std::string name() const override { return "scripted"; }
  bool available(std::string*) const override { return true; }
  backend::RunResult run(const lower::Plan& plan, const ShapeEnv& env,
                         const std::map<std::string, program::HostValue>& inputs) override {
    backend::RunResult r = cpu_->run(plan, env, inputs);
    alter_(r);
    return r;
  }

 private:
  std::unique_ptr<backend::Backend> cpu_;
  std::function<void(backend::RunResult&)> alter_;
};

const char* const kNonzero =
    "# sfz 1\n"
    "input x: i64[6] = [0, 3, 0, 5, 7, 0]\n"
    "n = nonzero(x)\n"
    "return n + 1\n";

const char* const kIndexError =
    "# sfz 1\n"
    "input x: f32[3, 2] = randn(seed=1)\n"
    "input idx: i64[2] = [0, 5]\n"
    "return index_select(x, 0, idx)\n";

BackendDiff diff_with(const char* text, std::function<void(backend::RunResult&)> alter) {
  std::unique_ptr<backend::Backend> cpu = backend::make_cpu_backend();
  ScriptedBackend other(std::move(alter));
  return diff_backends(program::parse_program(text), *cpu, other, Tolerance{});
}

TEST(BackendDifferential, TheSameRunAgrees) {
  BackendDiff d = diff_with(kNonzero, [](backend::RunResult&) {});
  EXPECT_EQ(d.kind, BackendDiff::Kind::kAgree) << d.detail;
  EXPECT_EQ(d.detail, "");
}

TEST(BackendDifferential, BothRaisingTheSameErrorAgree) {
  BackendDiff d = diff_with(kIndexError, [](backend::RunResult&) {});
  EXPECT_EQ(d.kind, BackendDiff::Kind::kAgree) << d.detail;
  EXPECT_EQ(d.detail, "index");  // the user error kind both raised
}

TEST(BackendDifferential, AnOutputElementThatDiffersIsADifference) {
  BackendDiff d =
      diff_with(kNonzero, [](backend::RunResult& r) { r.outputs.at(0).tensor.ints.at(0) += 1; });
  EXPECT_EQ(d.kind, BackendDiff::Kind::kDiffer);
  EXPECT_NE(d.detail.find("output 0"), std::string::npos) << d.detail;
}

TEST(BackendDifferential, ADifferentSigmaIsADifference) {
  BackendDiff d = diff_with(kNonzero, [](backend::RunResult& r) { r.bindings.emplace_back("u9"); });
  EXPECT_EQ(d.kind, BackendDiff::Kind::kDiffer);
  EXPECT_EQ(d.detail, "sigma differs");
}

TEST(BackendDifferential, AnErrorOnOneSideOnlyIsADifference) {
  BackendDiff d = diff_with(kNonzero, [](backend::RunResult&) {
    throw_user_error(UserErrorKind::kIndex, "scripted: index 9 out of range");
  });
  EXPECT_EQ(d.kind, BackendDiff::Kind::kDiffer);
  EXPECT_EQ(d.detail, "scripted raised (index: scripted: index 9 out of range), cpu did not");
}

TEST(BackendDifferential, AnEngineBugNeverAgrees) {
  BackendOutcome bug;
  bug.error_kind = "engine_bug";
  bug.error = "x.cc:1: broken";
  bug.engine_bug = true;
  // Even against the same engine bug on the other side.
  EXPECT_EQ(compare_backend_outcomes("cpu", bug, "cuda", bug, Tolerance{}),
            "cpu raised an engine bug: x.cc:1: broken; cuda raised an engine bug: x.cc:1: broken");
}

TEST(BackendDifferential, TheSameErrorKindWithAnotherMessageIsADifference) {
  BackendOutcome a, b;
  a.error_kind = b.error_kind = "index";
  a.error = "index 5 out of range for size 3";
  b.error = "index out of range";
  EXPECT_EQ(compare_backend_outcomes("cpu", a, "cuda", b, Tolerance{}),
            "both raised index with different messages: cpu: index 5 out of range for size 3 | "
            "cuda: index out of range");
}

TEST(BackendDifferential, AProgramWithoutAPlanIsSkipped) {
  // A data-dependent guard rejects the trace: nothing to run on either backend.
  BackendDiff d = diff_with(
      "# sfz 1\n"
      "input x: i64[4] = [1, 0, 2, 0]\n"
      "n = nonzero(x)\n"
      "if size(n, 0) > 1:\n"
      "  y = n + 1\n"
      "else:\n"
      "  y = n - 1\n"
      "return y\n",
      [](backend::RunResult&) {});
  EXPECT_EQ(d.kind, BackendDiff::Kind::kSkipped);
  EXPECT_EQ(d.detail.rfind("no plan: ", 0), 0u) << d.detail;
}

}  // namespace
}  // namespace sf::oracles
