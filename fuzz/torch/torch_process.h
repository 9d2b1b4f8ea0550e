// One persistent PyTorch worker process (fuzz/torch/torch_worker.py under a given Python): a
// request line in, an answer line out, with a deadline. A worker that dies, misses the deadline or
// writes a line past the cap is killed (SIGKILL, then reaped); the next request starts a fresh one
// (the hang or crash is the caller's finding). Nothing the worker does can block us past a
// deadline or grow our memory past the cap.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>

namespace sf::torch_ref {

// The deadlines and the cap of a TorchProcess.
struct WorkerLimits {
  // The worker's handshake, {"hello": ...}, comes before it imports torch: a Python that does
  // not run the worker, or hangs before it does, is unavailable after this long (at most
  // start_seconds).
  double hello_seconds = 10;
  // The whole start, importing torch included, up to {"ready": true} (a cold cache takes a
  // while).
  double start_seconds = 300;
  // The longest line read from the worker (handshake or answer, without its '\n'); a longer one
  // is a crash of the worker's (kTooLong) and never buffered past this.
  size_t max_line_bytes = size_t{1} << 20;
};

class TorchProcess {
 public:
  // A worker is replaced after this many answers: PyTorch keeps memory per compiled program even
  // across torch._dynamo.reset() (about 0.35 MB each on torch 2.15), and a fresh start (~3 s) is
  // cheap beside 500 programs.
  static constexpr int kRequestsPerWorker = 500;

  // `python`: the interpreter (a venv's python3 with torch); `worker_script`: torch_worker.py.
  TorchProcess(std::string python, std::string worker_script, WorkerLimits limits = WorkerLimits());
  ~TorchProcess();
  TorchProcess(const TorchProcess&) = delete;
  TorchProcess& operator=(const TorchProcess&) = delete;

  // kTooLong: the answer passed WorkerLimits::max_line_bytes. kNotStarted: no worker could be
  // started (no such python, no torch, no handshake in time): PyTorch is unavailable.
  enum class Status { kAnswer, kTimeout, kTooLong, kDied, kNotStarted };
  // Sends one JSON request line and waits up to `timeout` seconds (sending included) for the
  // answer line. The worker's start has its own deadlines (WorkerLimits). `*error` says why on
  // every status but kAnswer.
  Status ask(const std::string& request, double timeout, std::string* answer, std::string* error);

  // Starts a worker now unless one runs (ask() starts one when needed): a caller checks that
  // PyTorch is there before any other work. False, with `*error`, when none could start.
  bool start(std::string* error);

  // "1 MiB", or a byte count: how messages name the cap.
  static std::string bytes_text(size_t bytes);

 private:
  using Deadline = std::chrono::steady_clock::time_point;
  enum class Read { kLine, kEof, kTimeout, kTooLong };
  // The next line from the worker's stdout, buffering at most max_line_bytes + 1 bytes.
  Read read_line(Deadline deadline, std::string* line);
  // The whole of `line`, or false when the deadline passed (*timed_out) or the worker went away.
  bool write_all(const std::string& line, Deadline deadline, bool* timed_out);
  // After the worker closed its stdout: its wait status, given `grace` seconds to exit before it
  // is killed (*killed).
  int reap(double grace, bool* killed);
  std::string stderr_line() const;
  void stop();

  std::string python_, script_;
  WorkerLimits limits_;
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  std::string pending_;  // read past the last line taken (at most max_line_bytes + 1 bytes)
  size_t scanned_ = 0;   // bytes of pending_ known to hold no '\n'
  int stderr_fd_ = -1;
  int answered_ = 0;  // by the current worker
};

}  // namespace sf::torch_ref
