// LineReader: poll only when no complete line is buffered; EINTR retries with the time left.
#include "fuzz/line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace sf::fuzz {

LineStatus LineReader::next(std::string* line, double timeout) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(timeout));
  for (;;) {
    size_t nl = buffer.find('\n');
    if (nl != std::string::npos) {
      *line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      return LineStatus::kLine;
    }
    double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return LineStatus::kTimeout;
    struct pollfd pfd {
      fd, POLLIN, 0
    };
    int ms = static_cast<int>(std::min(left * 1000.0, 3.6e6)) + 1;
    int ready = poll(&pfd, 1, ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // the deadline check above decides
    char buf[1 << 14];
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return LineStatus::kEof;
    buffer.append(buf, static_cast<size_t>(n));
  }
}

bool LineReader::read_some() {
  char buf[1 << 14];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer.append(buf, static_cast<size_t>(n));
    return true;
  }
}

bool LineReader::take_line(std::string* line) {
  size_t nl = buffer.find('\n');
  if (nl == std::string::npos) return false;
  *line = buffer.substr(0, nl);
  buffer.erase(0, nl + 1);
  return true;
}

}  // namespace sf::fuzz
