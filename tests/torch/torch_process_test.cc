// The PyTorch worker cannot hold torch-diff hostage: against a fake worker (fake_torch_worker.py)
// that is silent, exits, never ends a line, stops reading or closes its output, every wait ends at
// its deadline or cap, the worker is killed and reaped (no process of ours is left), and the next
// request gets a fresh one.
#include "fuzz/torch/torch_process.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include "fuzz/torch/torch_case.h"

namespace sf::torch_ref {
namespace {

const char* kFakeWorker = "tests/torch/fake_torch_worker.py";
const std::string kRequest = R"({"id": "p", "code": "", "backends": ["eager"]})";

// Our child processes, zombies included (from /proc: field 4 of stat is the parent).
int children() {
  int n = 0;
  DIR* proc = opendir("/proc");
  for (dirent* e; proc && (e = readdir(proc));) {
    std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
    std::string pid, comm, state;
    long ppid = 0;
    // comm may hold spaces: skip to its closing parenthesis.
    if (!std::getline(stat, pid, '(') || !std::getline(stat, comm, ')')) continue;
    if (stat >> state >> ppid && ppid == getpid()) ++n;
  }
  if (proc) closedir(proc);
  return n;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

class WorkerLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(children(), 0); }
  void TearDown() override {
    unsetenv("FAKE_TORCH_MODE");
    unsetenv("FAKE_TORCH_PAD");
  }
  std::string answer_, error_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

TEST_F(WorkerLimitsTest, ASilentWorkerIsUnavailableAtTheHandshakeDeadline) {
  setenv("FAKE_TORCH_MODE", "silent", 1);
  WorkerLimits limits;
  limits.hello_seconds = 1;
  TorchProcess worker("python3", kFakeWorker, limits);
  EXPECT_FALSE(worker.start(&error_));
  EXPECT_NE(error_.find("no handshake within 1 s"), std::string::npos) << error_;
  EXPECT_LT(seconds_since(t0_), 5);
  EXPECT_EQ(children(), 0);
  // The start deadline bounds the handshake's too.
  limits.hello_seconds = 100;
  limits.start_seconds = 0.5;
  TorchProcess impatient("python3", kFakeWorker, limits);
  EXPECT_EQ(impatient.ask(kRequest, 30, &answer_, &error_), TorchProcess::Status::kNotStarted);
  EXPECT_NE(error_.find("no handshake within 0.5 s"), std::string::npos) << error_;
  EXPECT_LT(seconds_since(t0_), 7);
}

TEST_F(WorkerLimitsTest, AWorkerThatExitsAtOnceIsUnavailableAtOnce) {
  setenv("FAKE_TORCH_MODE", "exit", 1);
  TorchProcess worker("python3", kFakeWorker);
  EXPECT_EQ(worker.ask(kRequest, 30, &answer_, &error_), TorchProcess::Status::kNotStarted);
  EXPECT_NE(error_.find("it ended (crash:exit0)"), std::string::npos) << error_;
  EXPECT_LT(seconds_since(t0_), 5);
  EXPECT_EQ(children(), 0);
}

TEST_F(WorkerLimitsTest, AnEndlessAnswerIsCutAtTheCapAndTheWorkerReplaced) {
  setenv("FAKE_TORCH_MODE", "endless", 1);
  TorchProcess worker("python3", kFakeWorker);
  EXPECT_EQ(worker.ask(kRequest, 60, &answer_, &error_), TorchProcess::Status::kTooLong);
  EXPECT_LT(seconds_since(t0_), 10);
  EXPECT_NE(error_.find("1 MiB cap"), std::string::npos) << error_;
  EXPECT_EQ(children(), 0);
  // As a verdict: a crash of PyTorch's, its own key.
  TorchCase c;
  c.name = "endless";
  EXPECT_EQ(run_torch_side(c, worker, {"eager", "aot_eager"}, 60, &error_),
            TorchProcess::Status::kTooLong);
  ASSERT_EQ(c.results.size(), 2u);
  EXPECT_EQ(judge_backend(c, 1).key, "torch-crashes torch:crash/answer too long");
  EXPECT_NE(judge_backend(c, 1).detail.find("1 MiB cap"), std::string::npos);
  unsetenv("FAKE_TORCH_MODE");
  EXPECT_EQ(worker.ask(kRequest, 30, &answer_, &error_), TorchProcess::Status::kAnswer) << error_;
}

TEST_F(WorkerLimitsTest, TheCapIsOnTheLineWithoutItsNewline) {
  setenv("FAKE_TORCH_MODE", "pad", 1);
  WorkerLimits limits;
  limits.max_line_bytes = 1000;
  TorchProcess worker("python3", kFakeWorker, limits);
  setenv("FAKE_TORCH_PAD", "1000", 1);
  ASSERT_EQ(worker.ask(kRequest, 30, &answer_, &error_), TorchProcess::Status::kAnswer) << error_;
  EXPECT_EQ(answer_.size(), 1000u);
  setenv("FAKE_TORCH_PAD", "1001", 1);  // read at the restart below
  TorchProcess longer("python3", kFakeWorker, limits);
  EXPECT_EQ(longer.ask(kRequest, 30, &answer_, &error_), TorchProcess::Status::kTooLong);
  EXPECT_NE(error_.find("1000 bytes cap"), std::string::npos) << error_;
}

// A worker that stops reading fills the pipe: the request itself has the deadline.
TEST_F(WorkerLimitsTest, AWorkerThatDoesNotReadTimesOutWhileWeWrite) {
  setenv("FAKE_TORCH_MODE", "deaf", 1);
  TorchProcess worker("python3", kFakeWorker);
  std::string big =
      R"({"id": "p", "code": ")" + std::string(4 << 20, '#') + R"(", "backends": []})";
  EXPECT_EQ(worker.ask(big, 1, &answer_, &error_), TorchProcess::Status::kTimeout);
  EXPECT_NE(error_.find("no answer within 1 s"), std::string::npos) << error_;
  EXPECT_LT(seconds_since(t0_), 6);
  EXPECT_EQ(children(), 0);
}

TEST_F(WorkerLimitsTest, AHungWorkerIsKilledAndReaped) {
  setenv("FAKE_TORCH_MODE", "hang", 1);
  TorchProcess worker("python3", kFakeWorker);
  EXPECT_EQ(worker.ask(kRequest, 0.5, &answer_, &error_), TorchProcess::Status::kTimeout);
  EXPECT_EQ(children(), 0);
}

// A worker whose answer says "retire" (its CUDA context broke, torch_worker.py) exits after it:
// it is replaced at once, so the next program gets an answer from a fresh worker instead of a
// dead one charged to it.
TEST_F(WorkerLimitsTest, AWorkerThatRetiresIsReplacedBeforeTheNextRequest) {
  setenv("FAKE_TORCH_MODE", "retire", 1);
  TorchProcess worker("python3", kFakeWorker);
  auto pid_of = [](const std::string& answer) {
    size_t at = answer.find("\"pid\": ");
    return at == std::string::npos ? std::string()
                                   : answer.substr(at + 7, answer.find(',', at) - at - 7);
  };
  ASSERT_EQ(worker.ask(kRequest, 30, &answer_, &error_), TorchProcess::Status::kAnswer) << error_;
  const std::string first = pid_of(answer_);
  EXPECT_FALSE(first.empty()) << answer_;
  EXPECT_EQ(children(), 0);  // retired with its answer
  ASSERT_EQ(worker.ask(kRequest, 30, &answer_, &error_), TorchProcess::Status::kAnswer) << error_;
  EXPECT_NE(pid_of(answer_), first);
  EXPECT_LT(seconds_since(t0_), 20);
}

// A worker that closes its stdout and lives on is given a moment to exit, then killed.
TEST_F(WorkerLimitsTest, AWorkerThatClosesItsOutputIsADeadOne) {
  setenv("FAKE_TORCH_MODE", "close", 1);
  TorchProcess worker("python3", kFakeWorker);
  EXPECT_EQ(worker.ask(kRequest, 60, &answer_, &error_), TorchProcess::Status::kDied);
  EXPECT_NE(error_.find("closed its output"), std::string::npos) << error_;
  EXPECT_LT(seconds_since(t0_), 10);
  EXPECT_EQ(children(), 0);
}

TEST(WorkerLimitsText, CapsAreNamedInTheirUnit) {
  EXPECT_EQ(TorchProcess::bytes_text(size_t{1} << 20), "1 MiB");
  EXPECT_EQ(TorchProcess::bytes_text(size_t{64} << 20), "64 MiB");
  EXPECT_EQ(TorchProcess::bytes_text(4096), "4 KiB");
  EXPECT_EQ(TorchProcess::bytes_text(1000), "1000 bytes");
}

}  // namespace
}  // namespace sf::torch_ref
