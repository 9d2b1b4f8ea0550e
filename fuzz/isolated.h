// Runs one job in a forked child, so that an aborting engine bug (SF_CHECK) or a hang becomes a
// result ("crash:signal6", "crash:timeout") instead of ending the caller (shrinker, zoo, repro).
#pragma once

#include <functional>
#include <string>

namespace sf::fuzz {

// The string `job` returns in the child, or "crash:signalN" / "crash:timeout" / "crash:exitN".
std::string run_isolated(const std::function<std::string()>& job, double timeout_seconds);

// Sends this process's stderr to /dev/null (a child whose SF_CHECK reports nobody reads).
void silence_stderr();

}  // namespace sf::fuzz
