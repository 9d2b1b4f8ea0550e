// Swarm testing (Groce et al., ISSTA 2012) for campaigns: half of a campaign's programs are drawn
// under a policy of their own (op features and statement kinds switched off or weighted up, small
// or large sizes), and those programs grow longer and nest deeper as the campaign goes on. A
// policy is a 64-bit key a recipe carries, so every program replays from its recipe.
#pragma once

#include <cstdint>

#include "fuzz/gen/program_gen.h"

namespace sf::fuzz {

// Key 0 is the default policy. Otherwise the top byte is the level (1 + the growth step, so a
// key is never 0) and the rest the variant that switches features.
inline constexpr int kMaxSwarmLevel = 7;
uint64_t swarm_key(int level, uint64_t variant);
int swarm_level(uint64_t key);  // 0 for the default policy's key

// The policy a key names: the default for 0; else the variant's switched features and weights,
// and the level's growth (level / 3 more inputs, statements 1 + level .. 12 + 4 level, bodies up
// to 4 + level / 2 statements, a third nesting level from level 4). Deterministic in the key.
ProgramPolicy swarm_policy(uint64_t key);

// The key a campaign gives its fresh seed `seed` (of the campaign whose seeds start at `origin`
// and whose slots advance by `stride`): 0 for every other seed (by a hash of the seed); for the
// rest a variant per slot and slice of 1,024 of the slot's programs, at a level that grows with
// log2 of the slot's programs so far (one step per doubling past 8,192). A function of the seed,
// not of time, so a bounded or sharded campaign runs the same programs as one of the same seeds.
uint64_t campaign_swarm_key(uint64_t seed, uint64_t origin, uint64_t stride);

}  // namespace sf::fuzz
