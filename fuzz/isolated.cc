// run_isolated: fork, run the job, send its result back over a pipe; the parent polls with a
// deadline and kills a child that takes too long.
#include "fuzz/isolated.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "engine/base/errors.h"

namespace sf::fuzz {

void silence_stderr() {
  int null = open("/dev/null", O_WRONLY);
  if (null >= 0) dup2(null, 2);
}

std::string run_isolated(const std::function<std::string()>& job, double timeout_seconds) {
  int fds[2];
  if (pipe(fds) != 0) throw_user_error(UserErrorKind::kUnsupported, "pipe() failed");
  pid_t pid = fork();
  if (pid < 0) throw_user_error(UserErrorKind::kUnsupported, "fork() failed");
  if (pid == 0) {
    close(fds[0]);
    std::string out = job();
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
  std::string result;
  bool timed_out = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  char buf[4096];
  for (;;) {
    double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    struct pollfd pfd {
      fds[0], POLLIN, 0
    };
    if (left <= 0 || poll(&pfd, 1, static_cast<int>(left * 1000) + 1) == 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n <= 0) break;
    result.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out) return "crash:timeout";
  if (WIFSIGNALED(status)) return "crash:signal" + std::to_string(WTERMSIG(status));
  if (WEXITSTATUS(status) != 0) return "crash:exit" + std::to_string(WEXITSTATUS(status));
  return result;
}

}  // namespace sf::fuzz
