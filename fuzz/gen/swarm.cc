// Swarm policies: what a key switches, and which key a campaign's seed gets (see swarm.h).
#include "fuzz/gen/swarm.h"

#include <algorithm>

#include "engine/program/schema.h"
#include "fuzz/fuzz_source.h"

namespace sf::fuzz {

namespace {

constexpr uint64_t kVariantMask = (uint64_t{1} << 56) - 1;
constexpr uint64_t kSliceLength = 1024;  // a slot's programs per variant
constexpr uint64_t kGrowthStep = 8192;   // a slot's programs before the first growth step

uint64_t mix(uint64_t x) {  // splitmix64's finalizer: neighbouring inputs, unrelated outputs
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

template <typename T, size_t N>
T pick_of(FuzzSource& r, const T (&choices)[N]) {
  return choices[r.pick(N)];
}

}  // namespace

uint64_t swarm_key(int level, uint64_t variant) {
  int byte = 1 + std::clamp(level, 0, kMaxSwarmLevel);
  return (static_cast<uint64_t>(byte) << 56) | (variant & kVariantMask);
}

int swarm_level(uint64_t key) {
  int byte = static_cast<int>(key >> 56);
  return byte == 0 ? 0 : std::min(byte - 1, kMaxSwarmLevel);
}

ProgramPolicy swarm_policy(uint64_t key) {
  ProgramPolicy p;
  if (key == 0) return p;
  const int level = swarm_level(key);
  SeedSource r(mix(key & kVariantMask));
  // Swarm testing proper: each op feature off one time in three, each statement kind's weight
  // scaled by 0, 1, 2 or 4. Data-dependent ops stay drawn: they are what every program is for.
  for (program::OpFeature f : program::all_op_features()) {
    if (r.chance(1, 3)) p.disabled_features.insert(f);
  }
  for (size_t i = 0; i < p.family_weights.size(); ++i) {
    p.family_weights[i] *= pick_of(r, {0u, 1u, 1u, 2u, 4u});
  }
  p.family_weights[5] = std::max(p.family_weights[5], 1u);  // program::OpFamily data-dependent
  // Shapes: the boundary sizes (a max_dim of 2 or 3 makes 1s and 2s common) or larger ones.
  p.max_inputs = pick_of(r, {2, 3, 3, 4}) + level / 3;
  p.max_rank = pick_of(r, {2, 3, 3, 4});
  p.max_dim = pick_of(r, {2, 3, 8, 8, 16});
  if (p.max_rank == 4) p.max_dim = std::min(p.max_dim, 8);  // at most 4,096 elements an input
  // Growth: more inputs, longer programs, longer and deeper bodies.
  p.min_statements = 1 + level;
  p.max_statements = 12 + 4 * level;
  p.max_body_statements = 4 + level / 2;
  p.max_nesting = level >= 4 ? 3 : 2;
  return p;
}

uint64_t campaign_swarm_key(uint64_t seed, uint64_t origin, uint64_t stride) {
  if (seed < origin || mix(seed) % 2 == 0) return 0;
  stride = std::max<uint64_t>(stride, 1);
  const uint64_t slot = (seed - origin) % stride, k = (seed - origin) / stride;
  int level = 0;
  for (uint64_t n = k / kGrowthStep; n > 0 && level < kMaxSwarmLevel; n /= 2) ++level;
  uint64_t variant = mix(mix(slot) ^ (k / kSliceLength) ^ origin * 0x632be59bd9b4e019ULL);
  return swarm_key(level, variant);
}

}  // namespace sf::fuzz
