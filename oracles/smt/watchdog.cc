// The watchdog's thread: it sleeps until the armed deadline, then interrupts Z3 every few
// milliseconds until disarmed.
#include "oracles/smt/watchdog.h"

namespace sf::smt {

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> l(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Watchdog::arm(std::chrono::milliseconds budget) {
  std::lock_guard<std::mutex> l(mu_);
  deadline_ = std::chrono::steady_clock::now() + budget;
  armed_ = true;
  if (idle_ || deadline_ < waiting_until_) cv_.notify_all();
}

bool Watchdog::disarm() {
  std::lock_guard<std::mutex> l(mu_);
  armed_ = false;
  bool fired = fired_;
  fired_ = false;
  return fired;
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> l(mu_);
  while (!quit_) {
    if (!armed_) {
      idle_ = true;
      cv_.wait(l);
      idle_ = false;
    } else if (std::chrono::steady_clock::now() < deadline_) {
      waiting_until_ = deadline_;
      cv_.wait_until(l, waiting_until_);
      waiting_until_ = std::chrono::steady_clock::time_point::max();
    } else {
      ctx_.interrupt();
      fired_ = true;
      cv_.wait_for(l, std::chrono::milliseconds(5));
    }
  }
}

}  // namespace sf::smt
