// The generator hands the pipeline the eager result it computed statement by statement
// (eager::Session); it must be exactly what running eager on the whole program gives.
#include <gtest/gtest.h>

#include "engine/eager/eager.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
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

// Bodies of the higher-order ops are drawn like programs (nested up to two deep): every program
// still prints and parses back to itself (function names unique, each defined before its use),
// and bodies hold checks and data-dependent ops often enough to matter.
TEST(GeneratorBodies, ProgramsWithDrawnBodiesRoundTrip) {
  int with_functions = 0, checks_in_bodies = 0, nested = 0;
  // (2,000 seeds: the floors below are about the generator's reach, so a sample that a new
  // statement kind shifts by a few programs must not decide them.)
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    SeedSource src(seed);
    program::Program p = generate_program(src);
    std::string text = program::print_program(p);
    program::Program back = program::parse_program(text);  // throws on a duplicate def
    ASSERT_EQ(program::print_program(back), text) << "seed " << seed;
    with_functions += !p.functions.empty();
    bool check = false, hop = false;
    for (const program::FunctionDef& f : p.functions) {
      for (const program::Stmt& st : f.body) {
        check = check || st.kind == program::Stmt::Kind::kCheck ||
                st.kind == program::Stmt::Kind::kCheckIsSize;
        hop = hop || program::is_higher_order(st.kind);
      }
    }
    checks_in_bodies += check;
    nested += hop;
  }
  EXPECT_GT(with_functions, 200);
  EXPECT_GT(checks_in_bodies, 30);
  EXPECT_GT(nested, 15);
}

}  // namespace
}  // namespace sf::fuzz
