// How a fuzz target reports a finding: the details on stderr, then abort, so libFuzzer, the seeded
// driver and OSS-Fuzz all record the input as a crash (a crash-<hash> file that replays it).
#pragma once

#include <string>

namespace sf::fuzz {

// Prints "==shapefuzz== FINDING in <target>: <what>" and aborts.
[[noreturn]] void report_finding(const char* target, const std::string& what);

// Turns on the bug-zoo faults named in SHAPEFUZZ_FAULTS (a target's LLVMFuzzerInitialize);
// an unknown name is a usage error: it says so and exits 2.
void enable_faults_or_exit();

}  // namespace sf::fuzz
