// Lines from a pipe with a deadline: the campaign's watchdog. Reads with read(2) into its own
// buffer, so a line already received is never hidden behind poll(2) (as with stdio buffering).
#pragma once

#include <string>

namespace sf::fuzz {

enum class LineStatus { kLine, kEof, kTimeout };

struct LineReader {
  int fd = -1;
  std::string buffer;
  // The next complete line (without '\n'); kTimeout when none arrives within `timeout` seconds
  // of waiting; kEof at the end (a trailing partial line is dropped: its writer died mid-write).
  LineStatus next(std::string* line, double timeout);
};

}  // namespace sf::fuzz
