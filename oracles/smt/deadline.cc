// The oracles' per-program deadline (see deadline.h): one per thread, innermost scope wins.
#include "oracles/smt/deadline.h"

#include <algorithm>

namespace sf::smt {

namespace {

using Clock = std::chrono::steady_clock;

thread_local std::optional<Clock::time_point> current_deadline;

}  // namespace

DeadlineScope::DeadlineScope(std::chrono::milliseconds budget)
    : deadline_(Clock::now() + budget), enclosing_(current_deadline) {
  // A scope inside another never extends it.
  current_deadline = enclosing_ ? std::min(*enclosing_, deadline_) : deadline_;
}

DeadlineScope::~DeadlineScope() { current_deadline = enclosing_; }

bool DeadlineScope::passed() const { return Clock::now() >= deadline_; }

bool deadline_passed() { return current_deadline && Clock::now() >= *current_deadline; }

std::optional<std::chrono::milliseconds> deadline_time_left() {
  if (!current_deadline) return std::nullopt;
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(*current_deadline - Clock::now());
  return std::max(left, std::chrono::milliseconds(0));
}

}  // namespace sf::smt
