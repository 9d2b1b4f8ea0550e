// The generator hands the pipeline the eager result it computed statement by statement
// (eager::Session); it must be exactly what running eager on the whole program gives.
#include <gtest/gtest.h>

#include "engine/eager/eager.h"
#include "fuzz/fuzz_source.h"
#include "fuzz/gen/program_gen.h"
#include "oracles/differential.h"

namespace sf::fuzz {
namespace {

void expect_reference_is_run_eager(const ProgramPolicy& policy, uint64_t seeds) {
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    SeedSource src(seed);
    GeneratedProgram g = generate_program_with_result(src, policy);
    eager::EagerResult whole = eager::run_eager(g.program);  // every statement was accepted
    // Exact equality: same values, dtypes, shapes, bit for bit (NaN equals NaN).
    ASSERT_EQ(g.eager.outputs.size(), whole.outputs.size()) << "seed " << seed;
    oracles::Tolerance exact;
    exact.atol = exact.rtol = 0;
    std::optional<std::string> diff =
        oracles::compare_values(whole.outputs, g.eager.outputs, exact);
    ASSERT_FALSE(diff) << "seed " << seed << ": " << *diff;
  }
}

TEST(GeneratorResult, IsRunEagerOfTheWholeProgram) { expect_reference_is_run_eager({}, 1500); }

TEST(GeneratorResult, IsRunEagerForLongPrograms) {
  ProgramPolicy policy;
  policy.min_statements = policy.max_statements = 48;
  expect_reference_is_run_eager(policy, 150);
}

}  // namespace
}  // namespace sf::fuzz
