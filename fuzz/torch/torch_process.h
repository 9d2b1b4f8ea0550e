// One persistent PyTorch worker process (fuzz/torch/torch_worker.py under a given Python): a
// request line in, an answer line out, with a deadline. A worker that dies or misses the deadline
// is killed; the next request starts a fresh one (the hang or crash is the caller's finding).
#pragma once

#include <sys/types.h>

#include <string>

#include "fuzz/line_reader.h"

namespace sf::torch_ref {

class TorchProcess {
 public:
  // A worker is replaced after this many answers: PyTorch keeps memory per compiled program even
  // across torch._dynamo.reset() (about 0.35 MB each on torch 2.15), and a fresh start (~3 s) is
  // cheap beside 500 programs.
  static constexpr int kRequestsPerWorker = 500;

  // `python`: the interpreter (a venv's python3 with torch); `worker_script`: torch_worker.py.
  TorchProcess(std::string python, std::string worker_script);
  ~TorchProcess();
  TorchProcess(const TorchProcess&) = delete;
  TorchProcess& operator=(const TorchProcess&) = delete;

  // kNotStarted: no worker could be started (no such python, no torch): PyTorch is unavailable.
  enum class Status { kAnswer, kTimeout, kDied, kNotStarted };
  // Sends one JSON request line and waits up to `timeout` seconds for the answer line. The
  // worker's start (importing torch) has its own, longer deadline. `*error` says why on kDied and
  // kNotStarted.
  Status ask(const std::string& request, double timeout, std::string* answer, std::string* error);

 private:
  bool start(std::string* error);
  void stop();

  std::string python_, script_;
  pid_t pid_ = -1;
  int to_worker_ = -1;
  fuzz::LineReader from_worker_;
  int stderr_fd_ = -1;
  int answered_ = 0;  // by the current worker
};

}  // namespace sf::torch_ref
