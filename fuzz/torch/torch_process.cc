// Fork+exec of the Python worker with two pipes (requests on its stdin, answers on its stdout)
// and its stderr in an unlinked temporary file, read back when it dies. Every wait on the worker
// is a poll(2) with a deadline: writing a request (a worker that stops reading fills the pipe),
// the handshake, each answer, and its exit once it closed its stdout.
#include "fuzz/torch/torch_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "fuzz/isolated.h"

namespace sf::torch_ref {

namespace {

// How long a worker that closed its stdout gets to exit before it is killed.
constexpr double kExitGraceSeconds = 2;

double seconds_until(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(t - std::chrono::steady_clock::now()).count();
}

std::chrono::steady_clock::time_point seconds_from_now(double s) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             std::chrono::duration<double>(s));
}

// Milliseconds for poll(2) until `t`, rounded up (the caller's deadline check decides).
int poll_ms(std::chrono::steady_clock::time_point t) {
  return static_cast<int>(std::min(std::max(seconds_until(t), 0.0) * 1000.0, 3.6e6)) + 1;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g s", s);
  return buf;
}

// A line from the worker in a message: printable, and short.
std::string quoted(const std::string& s, size_t n = 80) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  return "'" + out + (s.size() > n ? "...'" : "'");
}

}  // namespace

TorchProcess::TorchProcess(std::string python, std::string worker_script, WorkerLimits limits)
    : python_(std::move(python)), script_(std::move(worker_script)), limits_(limits) {}

TorchProcess::~TorchProcess() { stop(); }

std::string TorchProcess::bytes_text(size_t bytes) {
  if (bytes > 0 && bytes % (size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes > 0 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

void TorchProcess::stop() {
  if (to_worker_ >= 0) close(to_worker_);
  if (from_worker_ >= 0) close(from_worker_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  if (stderr_fd_ >= 0) close(stderr_fd_);
  to_worker_ = from_worker_ = stderr_fd_ = -1;
  pending_.clear();
  pending_.shrink_to_fit();
  scanned_ = 0;
  pid_ = -1;
}

std::string TorchProcess::stderr_line() const {
  return fuzz::crash_report_line(fuzz::read_stderr_file(stderr_fd_));
}

int TorchProcess::reap(double grace, bool* killed) {
  *killed = false;
  int status = 0;
  auto until = seconds_from_now(grace);
  for (;;) {
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (seconds_until(until) <= 0) {
      ::kill(pid_, SIGKILL);
      *killed = true;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    usleep(10000);
  }
  pid_ = -1;
  return status;
}

TorchProcess::Read TorchProcess::read_line(Deadline deadline, std::string* line) {
  const size_t cap = limits_.max_line_bytes + 1;  // the line and its '\n'
  for (;;) {
    size_t nl = pending_.find('\n', scanned_);
    if (nl != std::string::npos) {
      line->assign(pending_, 0, nl);
      pending_.erase(0, nl + 1);
      scanned_ = 0;
      return Read::kLine;
    }
    scanned_ = pending_.size();
    if (pending_.size() >= cap) return Read::kTooLong;
    if (seconds_until(deadline) <= 0) return Read::kTimeout;
    struct pollfd pfd {
      from_worker_, POLLIN, 0
    };
    int ready = poll(&pfd, 1, poll_ms(deadline));
    if (ready < 0 && errno != EINTR) return Read::kEof;
    if (ready <= 0) continue;  // the deadline check above decides
    // Read straight into the buffer, never past the cap.
    size_t old = pending_.size();
    size_t chunk = std::min(cap - old, size_t{1} << 16);
    pending_.resize(old + chunk);
    ssize_t n = read(from_worker_, pending_.data() + old, chunk);
    pending_.resize(old + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return Read::kEof;
  }
}

bool TorchProcess::write_all(const std::string& line, Deadline deadline, bool* timed_out) {
  *timed_out = false;
  for (size_t at = 0; at < line.size();) {
    ssize_t n = write(to_worker_, line.data() + at, line.size() - at);
    if (n > 0) {
      at += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || errno != EAGAIN) return false;  // EPIPE: the worker closed its stdin
    // The pipe is full: the worker is not reading (yet).
    if (seconds_until(deadline) <= 0) {
      *timed_out = true;
      return false;
    }
    struct pollfd pfd {
      to_worker_, POLLOUT, 0
    };
    if (poll(&pfd, 1, poll_ms(deadline)) < 0 && errno != EINTR) return false;
  }
  return true;
}

bool TorchProcess::start(std::string* error) {
  if (pid_ > 0) return true;
  signal(SIGPIPE, SIG_IGN);  // a worker that went away is an EPIPE from write(2)
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  if (pipe2(out, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    close(in[0]);
    close(in[1]);
    return false;
  }
  stderr_fd_ = fuzz::make_stderr_file();
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    if (stderr_fd_ >= 0) dup2(stderr_fd_, 2);
    signal(SIGPIPE, SIG_DFL);  // ignored signals survive exec
    execlp(python_.c_str(), python_.c_str(), script_.c_str(), static_cast<char*>(nullptr));
    dprintf(2, "cannot run %s: %s\n", python_.c_str(), std::strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  to_worker_ = in[1];
  from_worker_ = out[0];
  if (pid_ < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    stop();
    return false;
  }
  // Requests are written with a deadline: a worker that does not read must not block us.
  fcntl(to_worker_, F_SETFL, fcntl(to_worker_, F_GETFL) | O_NONBLOCK);
  answered_ = 0;

  Deadline started = std::chrono::steady_clock::now();
  double hello_seconds = std::min(limits_.hello_seconds, limits_.start_seconds);
  std::string why, line;
  Read r = read_line(seconds_from_now(hello_seconds), &line);
  bool hello = r == Read::kLine && line.find("\"hello\"") != std::string::npos;
  if (hello) {
    r = read_line(started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(limits_.start_seconds)),
                  &line);
    if (r == Read::kLine && line.find("\"ready\"") != std::string::npos) return true;
  }
  switch (r) {
    case Read::kLine:
      why = std::string(hello ? "its second line is not {\"ready\": true}: "
                              : "its first line is not the worker's handshake: ") +
            quoted(line);
      break;
    case Read::kTimeout:
      why = hello ? "it did not get ready (import torch) within " +
                        seconds_text(limits_.start_seconds) + " of its start"
                  : "no handshake within " + seconds_text(hello_seconds);
      break;
    case Read::kTooLong:
      why = "a line of its start passed the " + bytes_text(limits_.max_line_bytes) + " cap";
      break;
    case Read::kEof: {
      bool killed = false;
      int status = reap(kExitGraceSeconds, &killed);
      std::string said = stderr_line();
      why = !said.empty() ? said
            : killed      ? "it closed its output"
                          : "it ended (" + fuzz::crash_bucket(status, false) + ")";
      break;
    }
  }
  *error = "the worker did not start (" + python_ + " " + script_ + "): " + why;
  stop();
  return false;
}

TorchProcess::Status TorchProcess::ask(const std::string& request, double timeout,
                                       std::string* answer, std::string* error) {
  if (pid_ > 0 && answered_ >= kRequestsPerWorker) stop();
  if (pid_ < 0 && !start(error)) return Status::kNotStarted;
  Deadline deadline = seconds_from_now(timeout);
  bool timed_out = false;
  Read r = Read::kEof;
  if (write_all(request + "\n", deadline, &timed_out)) {
    r = read_line(deadline, answer);
  } else if (timed_out) {
    r = Read::kTimeout;
  }
  switch (r) {
    case Read::kLine:
      // Its stderr only matters when it dies: keep the file from growing without bound.
      if (!fuzz::rewind_stderr_file(stderr_fd_)) {
        close(stderr_fd_);
        stderr_fd_ = -1;
      }
      ++answered_;
      // A worker whose CUDA context broke says so and exits after answering (torch_worker.py):
      // replaced now, so its end is not charged to the next program. The key is unambiguous in
      // the line: a quote inside a JSON string value is escaped.
      if (answer->find("\"retire\":") != std::string::npos) stop();
      return Status::kAnswer;
    case Read::kTimeout:
      *error = "no answer within " + seconds_text(timeout) + " (the worker was killed)";
      stop();
      return Status::kTimeout;
    case Read::kTooLong:
      answer->clear();
      *error = "its answer passed the " + bytes_text(limits_.max_line_bytes) +
               " cap on a line (the worker was killed)";
      stop();
      return Status::kTooLong;
    case Read::kEof:
      break;
  }
  bool killed = false;
  int status = reap(kExitGraceSeconds, &killed);
  *error =
      (killed ? std::string("it closed its output (killed)") : fuzz::crash_bucket(status, false)) +
      ": " + stderr_line();
  stop();
  return Status::kDied;
}

}  // namespace sf::torch_ref
