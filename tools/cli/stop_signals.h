// SIGINT/SIGTERM as a request to stop (commands that end with a final report): the first signal
// sets stop_signal(), which the work checks like a time box; a second ends the process at once.
#pragma once

#include <csignal>

namespace sf::cli {

// The stop request: 0, or the signal that asked.
const volatile std::sig_atomic_t* stop_signal();
// Installs the handlers, except for a signal the process started with ignored (nohup, a script's
// background job): that stays ignored.
void catch_stop_signals();
// After the work ended on a stop request: dies of that signal, as a caller expects of an
// interrupted command (a shell's loop stops; $? is 130 or 143). Returns when there was none.
void die_of_stop_signal();

}  // namespace sf::cli
