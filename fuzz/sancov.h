// Edge coverage from compiler instrumentation, as features of a guided campaign. In a build that
// instruments the code (`--config=sancov`: gcc's -fsanitize-coverage=trace-pc), every basic block
// calls a hook that counts its PC in a hashed table; a program's counters become features (slot,
// hit-count bucket), as libFuzzer's are. In other builds the hooks never run and nothing is added.
#pragma once

#include <cstdint>
#include <vector>

namespace sf::fuzz {

// Set in every edge feature and clear in every engine feature, so the two never collide and a
// report can count them apart.
constexpr uint64_t kEdgeFeatureBit = uint64_t{1} << 63;

// Whether an instrumentation hook has run in this process (the binary is instrumented).
bool edge_coverage_built();
// Starts a program's count.
void reset_edge_counters();
// Appends one feature per slot hit since the reset (kEdgeFeatureBit | slot << 3 | bucket).
void append_edge_features(std::vector<uint64_t>* out);

}  // namespace sf::fuzz
