// Fork+exec of the Python worker with two pipes (requests on its stdin, answers on its stdout)
// and its stderr in an unlinked temporary file, read back when it dies.
#include "fuzz/torch/torch_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fuzz/isolated.h"

namespace sf::torch_ref {

namespace {
constexpr double kStartSeconds = 300;  // importing torch on a cold cache takes a while
}

TorchProcess::TorchProcess(std::string python, std::string worker_script)
    : python_(std::move(python)), script_(std::move(worker_script)) {}

TorchProcess::~TorchProcess() { stop(); }

void TorchProcess::stop() {
  if (to_worker_ >= 0) close(to_worker_);
  if (from_worker_.fd >= 0) close(from_worker_.fd);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (stderr_fd_ >= 0) close(stderr_fd_);
  to_worker_ = from_worker_.fd = stderr_fd_ = -1;
  from_worker_.buffer.clear();
  pid_ = -1;
}

bool TorchProcess::start(std::string* error) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  stderr_fd_ = fuzz::make_stderr_file();
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    if (stderr_fd_ >= 0) dup2(stderr_fd_, 2);
    execlp(python_.c_str(), python_.c_str(), script_.c_str(), static_cast<char*>(nullptr));
    dprintf(2, "cannot run %s: %s\n", python_.c_str(), std::strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  to_worker_ = in[1];
  from_worker_.fd = out[0];
  if (pid_ < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    stop();
    return false;
  }
  std::string ready;
  if (from_worker_.next(&ready, kStartSeconds) != fuzz::LineStatus::kLine ||
      ready.find("\"ready\"") == std::string::npos) {
    *error = "the worker did not start (" + python_ + " " + script_ +
             "): " + fuzz::crash_report_line(fuzz::read_stderr_file(stderr_fd_));
    stop();
    return false;
  }
  return true;
}

TorchProcess::Status TorchProcess::ask(const std::string& request, double timeout,
                                       std::string* answer, std::string* error) {
  if (pid_ >= 0 && answered_ >= kRequestsPerWorker) stop();
  if (pid_ < 0) {
    if (!start(error)) return Status::kNotStarted;
    answered_ = 0;
  }
  std::string line = request + "\n";
  signal(SIGPIPE, SIG_IGN);
  for (size_t at = 0; at < line.size();) {
    ssize_t n = write(to_worker_, line.data() + at, line.size() - at);
    if (n <= 0) {
      *error =
          "the worker went away: " + fuzz::crash_report_line(fuzz::read_stderr_file(stderr_fd_));
      stop();
      return Status::kDied;
    }
    at += static_cast<size_t>(n);
  }
  switch (from_worker_.next(answer, timeout)) {
    case fuzz::LineStatus::kLine:
      // Its stderr only matters when it dies: keep the file from growing without bound.
      if (!fuzz::rewind_stderr_file(stderr_fd_)) {
        close(stderr_fd_);
        stderr_fd_ = -1;
      }
      ++answered_;
      return Status::kAnswer;
    case fuzz::LineStatus::kTimeout:
      stop();
      return Status::kTimeout;
    case fuzz::LineStatus::kEof:
      break;
  }
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  *error = fuzz::crash_bucket(status, false) + ": " +
           fuzz::crash_report_line(fuzz::read_stderr_file(stderr_fd_));
  stop();
  return Status::kDied;
}

}  // namespace sf::torch_ref
