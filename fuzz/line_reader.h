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
  // For callers that poll many readers at once: read what the pipe holds now (after poll says
  // it is readable; false at end of file), then take the complete lines it buffered.
  bool read_some();
  bool take_line(std::string* line);
};

}  // namespace sf::fuzz
