// The edge-coverage table: hook calls (as an instrumented build makes them) become features
// with libFuzzer's hit-count buckets, a reset starts a program's count, and edge features never
// collide with engine features.
#include "fuzz/sancov.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <thread>

extern "C" void __sanitizer_cov_trace_pc();
extern "C" void __sanitizer_cov_trace_pc_guard_init(uint32_t* start, uint32_t* stop);
extern "C" void __sanitizer_cov_trace_pc_guard(uint32_t* guard);

namespace sf::fuzz {
namespace {

// Two call sites: two distinct return addresses, so (almost surely) two slots. At -O2 gcc would
// fold the twin bodies into one (noipa stops that) and make the hook a tail call, whose return
// address is then the caller's call site, one per unrolled iteration (the barrier stops that).
__attribute__((noinline, noipa)) void block_a() {
  __sanitizer_cov_trace_pc();
  asm volatile("" ::: "memory");
}
__attribute__((noinline, noipa)) void block_b() {
  __sanitizer_cov_trace_pc();
  asm volatile("" ::: "memory");
}

std::vector<uint64_t> features_now() {
  std::vector<uint64_t> f;
  append_edge_features(&f);
  return f;
}

TEST(Sancov, HooksBecomeBucketedFeatures) {
  block_a();  // the table is only read once a hook has run
  ASSERT_TRUE(edge_coverage_built());
  reset_edge_counters();
  EXPECT_TRUE(features_now().empty());
  block_a();  // not recording: the read ended it
  EXPECT_TRUE(features_now().empty());
  reset_edge_counters();
  block_a();
  block_b();
  std::vector<uint64_t> once = features_now();
  ASSERT_EQ(once.size(), 2u);
  for (uint64_t f : once) {
    EXPECT_TRUE(f & kEdgeFeatureBit);
    EXPECT_EQ(f & 7, 0u) << "one hit is bucket 0";
  }
  reset_edge_counters();
  std::thread other([] { block_a(); });  // another thread (the solver's watchdog) never counts
  other.join();
  EXPECT_TRUE(features_now().empty());
  reset_edge_counters();
  for (int i = 0; i < 5; ++i) block_a();    // 4-7 hits: bucket 3
  for (int i = 0; i < 300; ++i) block_b();  // 128+ (saturating at 255): bucket 7
  std::set<uint64_t> buckets;
  for (uint64_t f : features_now()) buckets.insert(f & 7);
  EXPECT_EQ(buckets, (std::set<uint64_t>{3, 7}));
}

TEST(Sancov, GuardsAreNumberedAndCounted) {
  uint32_t guards[3] = {0, 0, 0};
  __sanitizer_cov_trace_pc_guard_init(guards, guards + 3);
  EXPECT_NE(guards[0], 0u);
  EXPECT_NE(guards[0], guards[1]);
  reset_edge_counters();
  __sanitizer_cov_trace_pc_guard(&guards[2]);
  __sanitizer_cov_trace_pc_guard(&guards[2]);
  std::vector<uint64_t> f = features_now();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0] & 7, 1u) << "two hits are bucket 1";
}

}  // namespace
}  // namespace sf::fuzz
