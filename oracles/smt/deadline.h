// An oracle's per-program deadline: while a DeadlineScope is open on this thread, a solver query
// after the deadline is unknown at once and each query's watchdog is capped at the time left, so
// an oracle on a huge program ends in bounded time, undecided (never a pass).
#pragma once

#include <chrono>
#include <optional>

namespace sf::smt {

class DeadlineScope {
 public:
  explicit DeadlineScope(std::chrono::milliseconds budget);
  ~DeadlineScope();  // the enclosing scope's deadline again
  DeadlineScope(const DeadlineScope&) = delete;
  DeadlineScope& operator=(const DeadlineScope&) = delete;

  // Whether this scope's deadline has passed (also after it closed, for the report).
  bool passed() const;

 private:
  std::chrono::steady_clock::time_point deadline_;
  std::optional<std::chrono::steady_clock::time_point> enclosing_;
};

// Whether the innermost open scope's deadline has passed (false with none open). Oracles that
// loop over events check it to stop judging early.
bool deadline_passed();

// The time left before the innermost open deadline (none open: nullopt).
std::optional<std::chrono::milliseconds> deadline_time_left();

}  // namespace sf::smt
