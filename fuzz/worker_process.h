// The campaign's worker processes as the parent holds them: a forked child with the read end of
// its pipe (killed and reaped when dropped), its stderr file, and the exec of a fresh image.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "engine/base/errors.h"
#include "fuzz/isolated.h"
#include "fuzz/line_reader.h"

namespace sf::fuzz {

// The worker's stderr: one temporary file for the whole campaign.
struct StderrFile {
  int fd = make_stderr_file();
  ~StderrFile() {
    if (fd >= 0) close(fd);
  }
};

// A forked worker and the read end of its pipe. Killed and reaped when it goes out of scope, so
// an exception in the parent (a report that cannot be written) leaves no orphan behind.
struct Worker {
  pid_t pid = -1;
  LineReader lines;
  bool reaped = false;

  // ignore_stop_signals: the worker ignores SIGINT and SIGTERM (also across exec), so that only
  // the campaign decides what a Ctrl-C sent to the whole process group means.
  template <typename Body>
  void start(Body body, bool ignore_stop_signals) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw_user_error(UserErrorKind::kUnsupported, "pipe() failed");
    pid_t parent = getpid();
    pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      throw_user_error(UserErrorKind::kUnsupported, "fork() failed");
    }
    if (pid == 0) {
      // Never outlive the campaign: a worker dies with it (kill -9, or a second Ctrl-C).
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(0);  // it died before the line above
      if (ignore_stop_signals) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
      }
      close(fds[0]);
      body(fds[1]);
      _exit(0);
    }
    close(fds[1]);
    lines.fd = fds[0];
  }
  void kill() {
    if (pid > 0 && !reaped) ::kill(pid, SIGKILL);
  }
  int reap() {
    int status = 0;
    if (pid > 0 && !reaped) {
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      reaped = true;
    }
    return status;
  }
  ~Worker() {
    kill();
    reap();
    if (lines.fd >= 0) close(lines.fd);
  }
};

// In the child of a fork: the pipe to fd 3, stderr to the slot's file, then exec. Only
// async-signal-safe calls between fork and exec (the argv is built before).
[[noreturn]] inline void exec_worker(char* const* argv, int out_fd, int err_fd) {
  if (err_fd >= 0) dup2(err_fd, 2);
  if (out_fd == 3) {
    fcntl(3, F_SETFD, 0);  // dup2 onto itself would keep close-on-exec
  } else {
    dup2(out_fd, 3);
  }
  execv(argv[0], argv);
  _exit(127);  // exec failed: the parent records a lost worker
}

}  // namespace sf::fuzz
