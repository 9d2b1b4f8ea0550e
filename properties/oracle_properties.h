// One RapidCheck property per oracle (binding, rename-replacement, memoization, translation
// validation, differential): a program generated from RapidCheck's bytes and seed through
// FuzzSource, so RapidCheck's shrinking shrinks the program, must not get a FAIL from that oracle.
// Used by properties/oracle_props (bazel test, fixed seed) and `shapefuzz check`.
#pragma once

#include <rapidcheck/detail/TestParams.h>

#include <cstdint>
#include <string>
#include <vector>

#include "oracles/oracle_set.h"

namespace sf::props {

// The property body: RC_ASSERTs that `oracle` alone does not fail the program that the bytes,
// then a stream seeded by `seed`, make; RC_LOGs the program text and the verdict, so a failure
// prints both.
void oracle_holds(oracles::OracleKind oracle, const std::vector<uint8_t>& bytes, uint32_t seed);

// The oracles that have a property, in order.
const std::vector<oracles::OracleKind>& oracle_property_kinds();

struct PropertyRun {
  oracles::OracleKind oracle;
  bool passed = false;
  double seconds = 0;
  std::string output;  // RapidCheck's report (the RC_PARAMS reproduce string on a failure)
};

// Runs one oracle's property (or each) with these parameters (rc::detail::configuration()
// .testParams holds RC_PARAMS's) and keeps RapidCheck's report: on a failure the shrunk case,
// the program's text and an RC_PARAMS string that replays it.
PropertyRun run_oracle_property(oracles::OracleKind oracle, const rc::detail::TestParams& params);
std::vector<PropertyRun> run_oracle_properties(const rc::detail::TestParams& params);

}  // namespace sf::props
