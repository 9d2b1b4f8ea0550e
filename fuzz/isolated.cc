// run_isolated: fork, run the job with a memory cap and stderr in a temporary file, send its result
// back over a pipe; the parent polls with a deadline and kills a child that takes too long.
#include "fuzz/isolated.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <new>

#include "engine/base/errors.h"

namespace sf::fuzz {

void silence_stderr() {
  int null = open("/dev/null", O_WRONLY);
  if (null >= 0) dup2(null, 2);
}

void limit_memory(size_t mb, MemoryCap cap) {
  // A sanitizer reserves terabytes of shadow address space: an address-space cap would make
  // every allocation fail, so sanitized builds run uncapped.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  mb = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
  mb = 0;
#endif
#endif
  if (mb == 0) return;
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(mb) << 20;
  setrlimit(cap == MemoryCap::kAddressSpace ? RLIMIT_AS : RLIMIT_DATA, &rl);
}

std::string crash_bucket(int wait_status, bool killed_by_watchdog) {
  if (killed_by_watchdog) return "crash:timeout";
  // (A SIGKILL we did not send is the kernel's OOM killer or an operator's kill -9: signal9. The
  // memory cap makes running out of memory an exit with kOomExitCode instead.)
  if (WIFSIGNALED(wait_status)) return "crash:signal" + std::to_string(WTERMSIG(wait_status));
  if (WEXITSTATUS(wait_status) == kOomExitCode) return "crash:oom";
  return "crash:exit" + std::to_string(WEXITSTATUS(wait_status));
}

std::string crash_report_line(const std::string& text) {
  std::string last, last_check;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    bool visible = std::any_of(line.begin(), line.end(),
                               [](char c) { return static_cast<unsigned char>(c) > 0x20; });
    if (visible) last = line;
    if (line.find("internal invariant failed") != std::string::npos) last_check = line;
    pos = nl + 1;
  }
  return last_check.empty() ? last : last_check;
}

int make_stderr_file() {
  FILE* f = tmpfile();  // already unlinked: gone with its last descriptor
  if (!f) return -1;
  int fd = fcntl(fileno(f), F_DUPFD_CLOEXEC, 3);
  std::fclose(f);
  return fd;
}

std::string read_stderr_file(int fd, size_t max_bytes) {
  if (fd < 0) return "";
  off_t size = lseek(fd, 0, SEEK_END);
  if (size <= 0) return "";
  off_t from = size > static_cast<off_t>(max_bytes) ? size - static_cast<off_t>(max_bytes) : 0;
  std::string out(static_cast<size_t>(size - from), '\0');
  ssize_t n = pread(fd, out.data(), out.size(), from);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

bool rewind_stderr_file(int fd) {
  return fd >= 0 && ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0;
}

IsolatedResult run_isolated(const std::function<std::string()>& job,
                            const IsolationLimits& limits) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw_user_error(UserErrorKind::kUnsupported, "pipe() failed");
  int err_fd = make_stderr_file();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    if (err_fd >= 0) close(err_fd);
    throw_user_error(UserErrorKind::kUnsupported, "fork() failed");
  }
  if (pid == 0) {
    // The job dies with whoever waits for it (its timeout is the parent's to keep: a stopped
    // campaign's minimizer must not leave a replay spinning), and a Ctrl-C reaches it as
    // itself, not through a handler it inherited from the campaign.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);  // the parent died before the line above
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    close(fds[0]);
    if (err_fd >= 0) dup2(err_fd, 2);
    limit_memory(limits.memory_mb, limits.cap);
    std::string out;
    try {
      out = job();
    } catch (const std::bad_alloc&) {
      _exit(kOomExitCode);
    }
    size_t done = 0;
    while (done < out.size()) {
      ssize_t w = write(fds[1], out.data() + done, out.size() - done);
      if (w <= 0) _exit(3);
      done += static_cast<size_t>(w);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  IsolatedResult r;
  bool timed_out = false;
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(limits.timeout_seconds);
  char buf[4096];
  for (;;) {
    double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    struct pollfd pfd {
      fds[0], POLLIN, 0
    };
    int ready = left <= 0 ? 0 : poll(&pfd, 1, static_cast<int>(std::min(left * 1000, 3.6e6)) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      if (left > 0) continue;  // woke early: the deadline decides
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    r.output.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r.crash = crash_bucket(status, timed_out);
    r.output.clear();
    r.report = timed_out ? "" : crash_report_line(read_stderr_file(err_fd));
  }
  if (err_fd >= 0) close(err_fd);
  return r;
}

std::string run_isolated(const std::function<std::string()>& job, double timeout_seconds) {
  IsolationLimits limits;
  limits.timeout_seconds = timeout_seconds;
  IsolatedResult r = run_isolated(job, limits);
  return r.crash.empty() ? r.output : r.crash;
}

}  // namespace sf::fuzz
