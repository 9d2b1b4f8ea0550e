// The solver's watchdog thread: it interrupts Z3 when a query overstays its wall-clock budget.
#pragma once

#include <z3++.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace sf::smt {

// Interrupts Z3 when a query overstays its wall-clock budget (Z3's own timeout is not set).
// Past the deadline it interrupts again every few milliseconds until disarmed: Z3 resets the
// cancel flag when a check starts, so an interrupt that lands just before that would be lost.
// An interrupt that lands after the check returned leaves the flag set (the next push throws,
// the next assertions are dropped): disarm() says whether it fired, and the caller clears it.
class Watchdog {
 public:
  explicit Watchdog(z3::context& ctx) : ctx_(ctx), thread_([this] { loop(); }) {}
  ~Watchdog();
  // A thread already waiting for an earlier deadline needs no wake-up: it finds the new one
  // when it wakes (waking it on every query cost two context switches). A budget capped by an
  // oracle's deadline can end before the one it waits for: then it is woken.
  void arm(std::chrono::milliseconds budget);
  // Whether it interrupted Z3 since it was armed.
  bool disarm();

 private:
  void loop();
  z3::context& ctx_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false, quit_ = false, idle_ = false, fired_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::steady_clock::time_point waiting_until_ =
      std::chrono::steady_clock::time_point::max();
  std::thread thread_;
};

}  // namespace sf::smt
