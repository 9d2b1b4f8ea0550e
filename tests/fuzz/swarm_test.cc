// Swarm policies (fuzz/gen/swarm.h): key 0 is the default, a key's policy switches features and
// grows with its level, and a campaign's seeds get keys by slot, slice and growth.
#include "fuzz/gen/swarm.h"

#include <gtest/gtest.h>

#include <set>

#include "engine/program/schema.h"
#include "fuzz/fuzz_source.h"

namespace sf::fuzz {
namespace {

TEST(Swarm, KeyZeroIsTheDefaultPolicy) {
  ProgramPolicy d, p = swarm_policy(0);
  EXPECT_EQ(p.family_weights, d.family_weights);
  EXPECT_EQ(p.max_statements, d.max_statements);
  EXPECT_EQ(p.max_nesting, d.max_nesting);
  EXPECT_EQ(p.max_body_statements, d.max_body_statements);
  EXPECT_TRUE(p.disabled_features.empty());
  EXPECT_EQ(swarm_level(0), 0);
}

TEST(Swarm, AKeyNamesItsLevelAndIsNeverZero) {
  for (int level = 0; level <= kMaxSwarmLevel; ++level) {
    uint64_t key = swarm_key(level, 0);
    EXPECT_NE(key, 0u);
    EXPECT_EQ(swarm_level(key), level);
  }
  EXPECT_EQ(swarm_level(swarm_key(kMaxSwarmLevel + 5, 1)), kMaxSwarmLevel);  // clamped
  EXPECT_EQ(swarm_level(swarm_key(-1, 1)), 0);
}

TEST(Swarm, PoliciesSwitchFeaturesAndKeepDataDependentOps) {
  std::set<std::set<program::OpFeature>> switched;
  int some_family_off = 0;
  for (uint64_t v = 1; v <= 60; ++v) {
    ProgramPolicy p = swarm_policy(swarm_key(0, v));
    EXPECT_EQ(p.disabled_features, swarm_policy(swarm_key(0, v)).disabled_features);  // pure
    switched.insert(p.disabled_features);
    EXPECT_GE(p.family_weights[5], 1u);  // data-dependent ops are always drawn
    for (uint32_t w : p.family_weights) some_family_off += w == 0;
    if (p.max_rank == 4) {
      EXPECT_LE(p.max_dim, 8);  // at most 4,096 elements an input
    }
  }
  EXPECT_GT(switched.size(), 20u);  // variants differ
  EXPECT_GT(some_family_off, 0);
}

TEST(Swarm, HigherLevelsDrawLongerAndDeeperPrograms) {
  ProgramPolicy low = swarm_policy(swarm_key(0, 9)), high = swarm_policy(swarm_key(7, 9));
  EXPECT_EQ(low.disabled_features, high.disabled_features);  // the variant decides those
  EXPECT_LT(low.max_statements, high.max_statements);
  EXPECT_LT(low.min_statements, high.min_statements);
  EXPECT_LT(low.max_body_statements, high.max_body_statements);
  EXPECT_LT(low.max_nesting, high.max_nesting);
  size_t short_total = 0, long_total = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SeedSource a(seed), b(seed);
    short_total += generate_program(a, low).body.size();
    long_total += generate_program(b, high).body.size();
  }
  EXPECT_GT(long_total, short_total * 3 / 2);
}

TEST(Swarm, ADisabledFeatureIsNoStatementsOp) {
  ProgramPolicy p = swarm_policy(swarm_key(2, 31));
  ASSERT_FALSE(p.disabled_features.empty());
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    SeedSource src(seed);
    program::Program prog = generate_program(src, p);
    for (const program::Stmt& st : prog.body) {
      if (!st.value || st.value->kind != program::Expr::Kind::kCall) continue;
      for (program::OpFeature f : p.disabled_features) {
        EXPECT_FALSE(program::schema(st.value->op).has(f))
            << program::schema(st.value->op).name << " carries " << program::op_feature_name(f);
      }
    }
  }
}

TEST(Swarm, CampaignKeysByHalfSlotSliceAndGrowth) {
  const uint64_t origin = 1, stride = 2;
  int swarm = 0;
  for (uint64_t s = origin; s < origin + 2000; ++s) {
    uint64_t key = campaign_swarm_key(s, origin, stride);
    EXPECT_EQ(key, campaign_swarm_key(s, origin, stride));  // a function of the seed
    swarm += key != 0;
    if (key) {
      EXPECT_EQ(swarm_level(key), 0);  // the first 8,192 programs of a slot
    }
  }
  EXPECT_GT(swarm, 800);  // about half
  EXPECT_LT(swarm, 1200);
  EXPECT_EQ(campaign_swarm_key(0, 5, 1), 0u);  // before the origin: the default policy
  // One slot's programs deep into the campaign draw at a higher level.
  int grown = 0;
  for (uint64_t k = 0; k < 50; ++k) {
    uint64_t key = campaign_swarm_key(origin + (100000 + k) * stride, origin, stride);
    if (key) grown += swarm_level(key) >= 3;
  }
  EXPECT_GT(grown, 10);
  // The variant is shared within a slice of a slot, and differs between slots and slices.
  auto variant = [&](uint64_t k, uint64_t slot) {
    for (uint64_t d = 0; d < 64; ++d) {  // the first program of the pair that drew a key
      uint64_t key = campaign_swarm_key(origin + (k + d) * stride + slot, origin, stride);
      if (key) return key & ((uint64_t{1} << 56) - 1);
    }
    return uint64_t{0};
  };
  EXPECT_EQ(variant(0, 0), variant(200, 0));
  EXPECT_NE(variant(0, 0), variant(0, 1));
  EXPECT_NE(variant(0, 0), variant(5000, 0));
}

}  // namespace
}  // namespace sf::fuzz
