// The sanitizer-coverage hooks (weak: libFuzzer's own win where it is linked) and the hashed
// 8-bit counter table they fill. The hooks are kept out of the instrumentation themselves.
#include "fuzz/sancov.h"

#include <link.h>

#include <cstring>

#if defined(__clang__)
#define SF_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define SF_NO_COVERAGE __attribute__((no_sanitize_coverage))
#endif

namespace sf::fuzz {

namespace {

constexpr int kSlotBits = 16;
constexpr size_t kSlots = size_t{1} << kSlotBits;
// Saturating hit counters per hashed PC (or guard index): 64 KiB, scanned once per program. A
// plain array: the hooks may call nothing that is itself instrumented (std::array's operator[]
// is a function at -O1, and calling it from the hook recursed).
uint8_t counters[kSlots];
bool hooks_ran = false;
// Only the thread that reset the table counts, and only until it reads it: the solver's
// watchdog thread wakes on its own schedule, and the reading code would count itself.
thread_local bool recording = false;

// The main program's load bias, read once: PCs are keyed relative to it, so a block has the same
// slot in every worker process whatever address randomization chose (an -c opt binary links the
// engine statically; code in shared libraries keeps absolute keys).
SF_NO_COVERAGE int take_first_bias(struct dl_phdr_info* info, size_t, void* out) {
  *static_cast<uintptr_t*>(out) = info->dlpi_addr;
  return 1;  // the first object is the main program
}

// No lambda or guarded static here: an instrumented initializer would call the hook again
// while it runs.
SF_NO_COVERAGE uintptr_t load_bias() {
  static uintptr_t bias = 0;
  static bool known = false;
  if (!known) {
    known = true;
    dl_iterate_phdr(take_first_bias, &bias);
  }
  return bias;
}

// Counts `key` (a guard index, or a PC relative to the program when `is_pc`).
SF_NO_COVERAGE inline void hit(uint64_t key, bool is_pc) {
  __atomic_store_n(&hooks_ran, true, __ATOMIC_RELAXED);  // a builtin: no instrumented call
  if (!recording) return;
  if (is_pc) key -= load_bias();
  size_t slot = static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits));
  uint8_t& c = counters[slot];
  if (c != 255) ++c;
}

// libFuzzer's buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+.
int bucket(uint8_t n) {
  return n >= 128 ? 7 : n >= 32 ? 6 : n >= 16 ? 5 : n >= 8 ? 4 : n >= 4 ? 3 : n - 1;
}

}  // namespace

bool edge_coverage_built() { return __atomic_load_n(&hooks_ran, __ATOMIC_RELAXED); }

void reset_edge_counters() {
  if (!hooks_ran) return;
  std::memset(counters, 0, sizeof counters);
  recording = true;
}

void append_edge_features(std::vector<uint64_t>* out) {
  recording = false;
  if (!hooks_ran) return;
  for (size_t slot = 0; slot < kSlots; ++slot) {
    if (counters[slot] != 0) {
      out->push_back(kEdgeFeatureBit | (uint64_t{slot} << 3) |
                     static_cast<uint64_t>(bucket(counters[slot])));
    }
  }
}

}  // namespace sf::fuzz

// gcc's -fsanitize-coverage=trace-pc: one call per basic block; the caller's PC names the block.
extern "C" SF_NO_COVERAGE __attribute__((weak)) void __sanitizer_cov_trace_pc() {
  sf::fuzz::hit(reinterpret_cast<uintptr_t>(__builtin_return_address(0)), true);
}

// clang's -fsanitize-coverage=trace-pc-guard: each edge has a guard, numbered here from 1.
extern "C" SF_NO_COVERAGE __attribute__((weak)) void __sanitizer_cov_trace_pc_guard_init(
    uint32_t* start, uint32_t* stop) {
  static uint32_t next = 0;
  if (start == stop || *start != 0) return;
  for (uint32_t* g = start; g < stop; ++g) *g = ++next;
}

extern "C" SF_NO_COVERAGE __attribute__((weak)) void __sanitizer_cov_trace_pc_guard(
    uint32_t* guard) {
  if (*guard != 0) sf::fuzz::hit(*guard, false);
}
