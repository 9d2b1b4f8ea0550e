// The stop flag and its async-signal-safe handler.
#include "tools/cli/stop_signals.h"

#include <signal.h>

#include <cstdio>
#include <initializer_list>

namespace sf::cli {

namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

void on_stop_signal(int sig) {
  if (g_stop_signal == 0) {
    g_stop_signal = sig;
    return;
  }
  signal(sig, SIG_DFL);  // both async-signal-safe
  raise(sig);
}

}  // namespace

const volatile std::sig_atomic_t* stop_signal() { return &g_stop_signal; }

void catch_stop_signals() {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // the waits that must wake (poll, nanosleep) are never restarted
    sigaction(sig, &sa, nullptr);
  }
}

void die_of_stop_signal() {
  if (int sig = g_stop_signal) {
    std::fflush(nullptr);
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

}  // namespace sf::cli
