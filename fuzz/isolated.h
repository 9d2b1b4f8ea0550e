// Runs one job in a forked child, so that an aborting engine bug (SF_CHECK), a hang or running out
// of memory becomes a result ("crash:signal6", "crash:timeout", "crash:oom") with the child's
// SF_CHECK report, instead of ending the caller (campaign, shrinker, zoo, repro).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace sf::fuzz {

// What limit_memory caps: the address space (every mapping), or the data segment (private
// writable mappings only), for a process whose driver reserves address space it never touches
// (the CUDA driver maps the whole unified address space at cuInit: an address-space cap fails it).
enum class MemoryCap { kAddressSpace, kDataSegment };

struct IsolationLimits {
  double timeout_seconds = 10;  // wall clock; past it the child is killed (crash:timeout)
  size_t memory_mb = 4096;      // memory limit of the child (0: none)
  MemoryCap cap = MemoryCap::kAddressSpace;  // what memory_mb caps
};

struct IsolatedResult {
  std::string output;  // what the job returned (when crash is empty)
  std::string crash;   // "", or "crash:signalN" / "crash:timeout" / "crash:oom" / "crash:exitN"
  std::string report;  // on a crash: the child's SF_CHECK line ("file:line: internal invariant...")
};

IsolatedResult run_isolated(const std::function<std::string()>& job, const IsolationLimits& limits);

// The old form: the job's output, or the crash bucket.
std::string run_isolated(const std::function<std::string()>& job, double timeout_seconds);

// Sends this process's stderr to /dev/null (a child whose SF_CHECK reports nobody reads).
void silence_stderr();

// For a child process: caps its memory at `mb` MiB (0: no cap), so a runaway allocation throws
// std::bad_alloc instead of taking the machine down.
void limit_memory(size_t mb, MemoryCap cap = MemoryCap::kAddressSpace);

// A child that ran out of memory exits with this code (its std::bad_alloc was caught).
inline constexpr int kOomExitCode = 86;

// The bucket of a child that died: wait(2)'s status, whether our watchdog killed it.
std::string crash_bucket(int wait_status, bool killed_by_watchdog);

// The last SF_CHECK report ("file:line: internal invariant failed: ...") in a child's stderr text,
// or the last non-empty line when there is none.
std::string crash_report_line(const std::string& stderr_text);

// A temporary file for a child's stderr (unlinked; read back with read_stderr_file).
int make_stderr_file();
std::string read_stderr_file(int fd, size_t max_bytes = 1 << 14);
// Empties it, so it keeps only what comes next (its offset is shared with the child holding it);
// false when it cannot, and then it should no longer be used.
bool rewind_stderr_file(int fd);

}  // namespace sf::fuzz
