// torch-diff's PyTorch side without PyTorch: a fake worker (fake_torch_worker.py, same protocol)
// shows that a hung, dead or missing worker is reported as such, that a worker is replaced after
// its share of programs, and that the disagreement shrinker keeps the disagreement (the fake's
// data-dependent guard needs a nonzero) while it removes everything else.
#include "fuzz/torch/torch_shrink.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/faults.h"
#include "engine/program/parser.h"
#include "fuzz/shrink.h"
#include "fuzz/torch/torch_case.h"

namespace sf::torch_ref {
namespace {

const char* kFakeWorker = "tests/torch/fake_torch_worker.py";

const std::string kProgram = R"(# sfz 1
input x: i64[6] = [0, 1, 0, 2, 3, 0]
input y: f32[4] = randn(seed=1)
a = nonzero(x)
b = add(y, y)
c = mul(b, 2.0)
d = sum(c)
e = abs(d)
return a, e
)";

TorchCase our_side_of(const std::string& text) {
  TorchCase c;
  c.name = "test";
  c.sfz = text;
  run_our_side(c, program::parse_program(text), oracles::PipelineOptions{});
  return c;
}

class FakeTorch : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("FAKE_TORCH_MODE"); }
};

TEST_F(FakeTorch, AnAnswerIsJudgedPerBackend) {
  TorchCase c = our_side_of(kProgram);
  ASSERT_TRUE(c.ours.compiled_ok) << c.our_verdict;
  TorchProcess worker("python3", kFakeWorker);
  std::string error;
  ASSERT_EQ(run_torch_side(c, worker, {"eager", "aot_eager"}, 30, &error),
            TorchProcess::Status::kAnswer)
      << error;
  ASSERT_EQ(c.results.size(), 2u);
  EXPECT_EQ(judge_backend(c, 1).key,
            "torch-rejects-we-accept torch:data_dependent_guard/UserError");
}

TEST_F(FakeTorch, AHungWorkerIsATimeoutCrashAndTheNextRequestGetsAFreshOne) {
  setenv("FAKE_TORCH_MODE", "hang", 1);
  TorchCase c = our_side_of(kProgram);
  TorchProcess worker("python3", kFakeWorker);
  std::string error;
  EXPECT_EQ(run_torch_side(c, worker, {"aot_eager"}, 0.5, &error), TorchProcess::Status::kTimeout);
  EXPECT_EQ(judge_backend(c, 0).key, "torch-crashes torch:crash/timeout");
  unsetenv("FAKE_TORCH_MODE");
  EXPECT_EQ(run_torch_side(c, worker, {"aot_eager"}, 30, &error), TorchProcess::Status::kAnswer);
}

TEST_F(FakeTorch, ADeadWorkerIsACrash) {
  setenv("FAKE_TORCH_MODE", "die", 1);
  TorchCase c = our_side_of(kProgram);
  TorchProcess worker("python3", kFakeWorker);
  std::string error;
  EXPECT_EQ(run_torch_side(c, worker, {"eager"}, 30, &error), TorchProcess::Status::kDied);
  EXPECT_EQ(judge_backend(c, 0).cls, DiffClass::kTorchCrashes);
}

TEST_F(FakeTorch, AWorkerThatNeverStartsMeansPyTorchIsUnavailable) {
  setenv("FAKE_TORCH_MODE", "broken", 1);
  TorchCase c = our_side_of(kProgram);
  TorchProcess worker("python3", kFakeWorker);
  std::string error;
  EXPECT_EQ(run_torch_side(c, worker, {"eager"}, 30, &error), TorchProcess::Status::kNotStarted);
  EXPECT_TRUE(c.results.empty());
  TorchProcess no_python("/nonexistent/python3", kFakeWorker);
  EXPECT_EQ(run_torch_side(c, no_python, {"eager"}, 30, &error), TorchProcess::Status::kNotStarted);
}

// PyTorch keeps memory per compiled program: a worker serves kRequestsPerWorker programs, then a
// fresh one takes over (between requests, not as a crash).
TEST_F(FakeTorch, AWorkerIsReplacedAfterItsShareOfPrograms) {
  TorchProcess worker("python3", kFakeWorker);
  const std::string request = R"({"id": "p", "code": "", "backends": ["eager"]})";
  std::string answer, error, first_pid;
  for (int i = 0; i <= TorchProcess::kRequestsPerWorker; ++i) {
    ASSERT_EQ(worker.ask(request, 30, &answer, &error), TorchProcess::Status::kAnswer) << error;
    size_t at = answer.find("\"pid\": ");
    ASSERT_NE(at, std::string::npos) << answer;
    std::string pid = answer.substr(at, answer.find(',', at) - at);
    if (i == 0) first_pid = pid;
    if (i < TorchProcess::kRequestsPerWorker) {
      EXPECT_EQ(pid, first_pid) << "request " << i;
    } else {
      EXPECT_NE(pid, first_pid);
    }
  }
}

TEST_F(FakeTorch, ShrinkingKeepsTheDisagreementAndDropsTheRest) {
  TorchProcess worker("python3", kFakeWorker);
  const std::string key = "torch-rejects-we-accept torch:data_dependent_guard/UserError";
  fuzz::ShrinkLimits limits;
  limits.seconds = 120;
  DisagreementShrink shrink = shrink_disagreement(kProgram, "aot_eager", key, worker,
                                                  oracles::PipelineOptions{}, 30, limits);
  const fuzz::ShrinkResult& r = shrink.shrunk;
  EXPECT_EQ(shrink.our_crash, "");
  ASSERT_TRUE(r.reproduced);
  EXPECT_EQ(r.stopped_by, "fixpoint");
  EXPECT_NE(r.text.find("nonzero("), std::string::npos) << r.text;
  EXPECT_LE(fuzz::program_text_lines(r.text), 3) << r.text;
  EXPECT_EQ(r.text.find("randn"), std::string::npos) << r.text;
  // The shrunk program still disagrees that way, run afresh.
  TorchCase c = our_side_of(r.text);
  std::string error;
  ASSERT_EQ(run_torch_side(c, worker, {"aot_eager"}, 30, &error), TorchProcess::Status::kAnswer);
  EXPECT_EQ(judge_backend(c, 0).key, key);
}

TEST_F(FakeTorch, AProgramWithoutTheDisagreementIsNotReproduced) {
  TorchProcess worker("python3", kFakeWorker);
  DisagreementShrink shrink =
      shrink_disagreement(kProgram, "aot_eager", "torch-rejects-we-accept torch:other/RuntimeError",
                          worker, oracles::PipelineOptions{}, 30, fuzz::ShrinkLimits{});
  EXPECT_FALSE(shrink.shrunk.reproduced);
}

// A batch runs in one child that makes the backend there (never in this process: a CUDA context
// does not survive the fork); a crash in the batch reruns each program alone, so the failure
// stays with the program that caused it.
TEST_F(FakeTorch, ABatchMakesItsBackendInTheChildAndKeepsACrashWithItsProgram) {
  const std::string crashing = "# sfz 1\ninput a: f32[1] unbacked(0) = full(1.0)\nreturn 0\n";
  const std::string fine = "# sfz 1\ninput a: f32[2] = full(1.0)\nreturn a + 1.0\n";
  pid_t parent = getpid();
  int made_here = 0;
  BackendMaker make = [&] {
    if (getpid() == parent) ++made_here;
    return backend::make_cpu_backend();
  };
  std::vector<program::Program> programs{
      program::parse_program(fine), program::parse_program(crashing), program::parse_program(fine)};
  std::vector<TorchCase> cases(3);
  for (size_t i = 0; i < cases.size(); ++i) cases[i].name = "case" + std::to_string(i);
  auto run = [&] {
    run_our_side_batch({&cases[0], &cases[1], &cases[2]},
                       {&programs[0], &programs[1], &programs[2]}, oracles::PipelineOptions{}, 30,
                       make);
  };
  run();
  for (const TorchCase& c : cases) {
    EXPECT_EQ(c.ours.own_failure, "") << c.name;
    EXPECT_TRUE(c.ours.compiled_ok) << c.name;  // a backend ran: the options had none
  }
  set_fault(Fault::kLoweringSkipsUnbackedInputBind, true);
  run();
  set_fault(Fault::kLoweringSkipsUnbackedInputBind, false);
  EXPECT_EQ(cases[0].ours.own_failure, "");
  EXPECT_EQ(cases[1].ours.own_failure.rfind("crash:signal6", 0), 0u) << cases[1].ours.own_failure;
  EXPECT_EQ(cases[2].ours.own_failure, "");
  EXPECT_EQ(made_here, 0);
}

// An engine crash (here the zoo's lowering fault, an SF_CHECK abort) on one program is that
// program's own failure: our side runs in a child, and torch-diff goes on.
TEST_F(FakeTorch, AnEngineCrashIsThatProgramsOwnFailure) {
  const std::string text = "# sfz 1\ninput a: f32[1] unbacked(0) = full(1.0)\nreturn 0\n";
  std::unique_ptr<backend::Backend> cpu = backend::make_cpu_backend();
  oracles::PipelineOptions on_cpu;
  on_cpu.backend = cpu.get();
  TorchCase c;
  c.name = "crashing";
  set_fault(Fault::kLoweringSkipsUnbackedInputBind, true);
  run_our_side_isolated(c, program::parse_program(text), on_cpu, 30);
  set_fault(Fault::kLoweringSkipsUnbackedInputBind, false);
  EXPECT_EQ(c.ours.own_failure.rfind("crash:signal6", 0), 0u) << c.ours.own_failure;
  // The INV-19 closure check's abort, with its file and line.
  EXPECT_NE(c.ours.own_failure.find("closure_check.cc:"), std::string::npos) << c.ours.own_failure;
  EXPECT_EQ(judge_backend(c, 0).cls, DiffClass::kOursFailed);
  // Without the fault the same program comes back whole from the child.
  TorchCase ok;
  ok.name = "fine";
  run_our_side_isolated(ok, program::parse_program(text), on_cpu, 30);
  EXPECT_EQ(ok.ours.own_failure, "");
  EXPECT_TRUE(ok.ours.compiled_ok);
  ASSERT_TRUE(ok.ours.eager_outputs.has_value());
  ASSERT_EQ(ok.ours.eager_outputs->size(), 1u);
  EXPECT_EQ((*ok.ours.eager_outputs)[0].i, 0);
  EXPECT_NE(ok.python.find("def sf_program"), std::string::npos);
  // The trip out of the child keeps every output bit for bit.
  TorchCase here, there;
  here.name = "test";
  run_our_side(here, program::parse_program(kProgram), on_cpu);
  there.name = "test";
  run_our_side_isolated(there, program::parse_program(kProgram), on_cpu, 30);
  ASSERT_TRUE(here.ours.eager_outputs && there.ours.eager_outputs);
  ASSERT_EQ(here.ours.eager_outputs->size(), there.ours.eager_outputs->size());
  for (size_t i = 0; i < here.ours.eager_outputs->size(); ++i) {
    const program::HostTensor& a = (*here.ours.eager_outputs)[i].tensor;
    const program::HostTensor& b = (*there.ours.eager_outputs)[i].tensor;
    EXPECT_EQ(a.dtype, b.dtype);
    EXPECT_EQ(a.sizes, b.sizes);
    EXPECT_EQ(a.ints, b.ints);
    ASSERT_EQ(a.floats.size(), b.floats.size());
    EXPECT_EQ(std::memcmp(a.floats.data(), b.floats.data(), a.floats.size() * sizeof(float)), 0);
  }
  EXPECT_EQ(here.python, there.python);
  EXPECT_EQ(here.our_verdict, there.our_verdict);
}

}  // namespace
}  // namespace sf::torch_ref
