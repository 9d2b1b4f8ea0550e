// Recipes (a seed plus overridden generator decisions) and coverage features.
#include "fuzz/recipe.h"

#include <gtest/gtest.h>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "fuzz/campaign.h"
#include "fuzz/features.h"
#include "fuzz/gen/swarm.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {
namespace {

TEST(Recipe, TextRoundTrips) {
  Recipe r;
  r.seed = 17;
  EXPECT_EQ(r.str(), "seed=17");
  r.overrides = {{40, 912}, {3, 5}};
  EXPECT_EQ(r.str(), "seed=17;3:5,40:912");
  std::optional<Recipe> back = Recipe::parse(r.str());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->seed, 17u);
  EXPECT_EQ(back->overrides, r.overrides);
  for (const char* bad : {"", "seed=", "17", "seed=1;", "seed=1;3", "seed=1;3:", "seed=1;3:4;5:6",
                          "seed=x", "seed=1;3:4,"}) {
    EXPECT_FALSE(Recipe::parse(bad)) << bad;
  }
}

TEST(Recipe, ASwarmKeyIsPartOfTheText) {
  Recipe r;
  r.seed = 17;
  r.swarm = swarm_key(3, 77);
  r.overrides = {{40, 912}};
  std::string text = r.str();
  EXPECT_EQ(text, "seed=17,swarm=" + std::to_string(r.swarm) + ";40:912");
  std::optional<Recipe> back = Recipe::parse(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->swarm, r.swarm);
  EXPECT_EQ(back->overrides, r.overrides);
  ASSERT_TRUE(Recipe::parse("seed=4,swarm=9"));
  EXPECT_EQ(Recipe::parse("seed=4,swarm=9")->swarm, 9u);
  for (const char* bad : {"seed=1,swarm=", "seed=1,swarm=0", "seed=1,swarm=x", "seed=1,swarmy=3",
                          "seed=1,swarm=3;", "seed=1,swarm=3,4:5"}) {
    EXPECT_FALSE(Recipe::parse(bad)) << bad;
  }
}

TEST(Recipe, ASwarmRecipeIsTheProgramOfItsPolicy) {
  int different = 0;
  for (uint64_t seed : {1, 2, 3, 4, 5, 6}) {
    Recipe plain, swarm;
    plain.seed = swarm.seed = seed;
    swarm.swarm = swarm_key(5, seed * 1000);
    std::string a = program::print_program(generated_for_recipe(plain).program);
    program::Program p = generated_for_recipe(swarm).program;
    std::string b = program::print_program(p);
    EXPECT_EQ(b, program::print_program(generated_for_recipe(swarm).program));  // replays
    EXPECT_NE(b.find("# found-by: campaign recipe=" + swarm.str()), std::string::npos) << b;
    EXPECT_NO_THROW(program::parse_program(b)) << b;
    different += a != b;
  }
  EXPECT_GE(different, 5);
}

TEST(Recipe, MutantsSometimesMoveToAnotherSwarmPolicy) {
  Recipe base;
  base.seed = 5;
  base.swarm = swarm_key(2, 1234);
  int moved = 0, level_steps = 0;
  for (uint64_t k = 0; k < 120; ++k) {
    SeedSource rng(k);
    Recipe m = mutate_recipe(base, rng);
    moved += m.swarm != base.swarm;
    level_steps += (m.swarm & ((uint64_t{1} << 56) - 1)) == 1234 && m.swarm != base.swarm;
  }
  EXPECT_GT(moved, 5);        // about one in six
  EXPECT_LT(moved, 50);       // the rest keep their policy
  EXPECT_GT(level_steps, 0);  // some keep the variant and step the level
}

TEST(Recipe, WithoutOverridesItIsTheSeedsProgram) {
  for (uint64_t seed : {1, 2, 99}) {
    Recipe r;
    r.seed = seed;
    EXPECT_EQ(program::print_program(generated_for_recipe(r).program),
              program::print_program(program_for_seed(seed)));
    EXPECT_GT(r.decisions, 10u);
  }
}

TEST(Recipe, AMutantIsDeterministicAndUsuallyAnotherProgram) {
  Recipe base;
  base.seed = 5;
  std::string original = program::print_program(generated_for_recipe(base).program);
  int different = 0;
  for (uint64_t k = 0; k < 20; ++k) {
    SeedSource rng(k);
    Recipe m = mutate_recipe(base, rng);
    SeedSource rng_again(k);
    EXPECT_EQ(mutate_recipe(base, rng_again).str(), m.str());
    Recipe m2 = m;
    std::string a = program::print_program(generated_for_recipe(m).program);
    std::string b = program::print_program(generated_for_recipe(m2).program);
    EXPECT_EQ(a, b);                                  // the recipe fixes the program
    EXPECT_NO_THROW(program::parse_program(a)) << a;  // and it is valid text
    different += a != original;
  }
  EXPECT_GE(different, 10);
}

TEST(Features, NameOpsPairsBindingsAndTheVerdict) {
  program::Program p = program::parse_program(
      "# sfz 1\n# expect: ok\ninput t: i64[4] = [1, 0, 2, 0]\na = nonzero(t)\n"
      "n = item(count_nonzero(t))\ncheck(n >= 1, \"some\")\nreturn a, n\n");
  auto cpu = backend::make_cpu_backend();
  oracles::PipelineOptions opts;
  opts.backend = cpu.get();
  oracles::PipelineResult r = oracles::run_pipeline(p, opts);
  std::vector<std::string> f = program_feature_texts(p, r, "pass");
  auto has = [&](const std::string& x) { return std::find(f.begin(), f.end(), x) != f.end(); };
  EXPECT_TRUE(has("op:nonzero"));
  EXPECT_TRUE(has("pair:start>nonzero"));
  EXPECT_TRUE(has("pair:item>check"));
  EXPECT_TRUE(has("bind:nonzero:size(N)"));
  EXPECT_TRUE(has("bind:item:()"));
  EXPECT_TRUE(has("verdict:pass"));
  EXPECT_TRUE(has("opv:nonzero:pass"));  // each op and binding path with the verdict
  EXPECT_TRUE(has("bindv:nonzero:size(N):pass"));
  std::vector<std::string> failed = program_feature_texts(p, r, "fail:tv");
  EXPECT_NE(std::find(failed.begin(), failed.end(), "opv:nonzero:fail:tv"), failed.end());
  bool an_assert = false;
  for (const std::string& x : f) an_assert = an_assert || x.rfind("assert:", 0) == 0;
  EXPECT_TRUE(an_assert) << "the check is a deferred runtime assert";
  EXPECT_EQ(program_features(p, r, "pass").size(), f.size());
}

// The feature texts of a program's run on the CPU backend, judged `pass`.
std::vector<std::string> pass_features_of(const std::string& text) {
  program::Program p = program::parse_program(text);
  auto cpu = backend::make_cpu_backend();
  oracles::PipelineOptions opts;
  opts.backend = cpu.get();
  return program_feature_texts(p, oracles::run_pipeline(p, opts), "pass");
}

TEST(Features, NameWhatRunsInsideHigherOrderBodiesByTheOpsAroundIt) {
  std::vector<std::string> f = pass_features_of(
      "# sfz 1\n# expect: ok\ninput x: i64[4] = [1, 0, 2, 0]\n"
      "def inner(a):\n  check(size(a, 0) >= 0, \"any\")\n  return nonzero(a) + 0\n"
      "def outer(a):\n  g = invoke_subgraph(inner, [a])\n  return g\n"
      "def plain(a):\n  return a + 0\n"
      "c = cond(sum(x, [0]) > 0, outer, plain, [x])\nreturn c\n");
  auto has = [&](const std::string& x) { return std::find(f.begin(), f.end(), x) != f.end(); };
  EXPECT_TRUE(has("in:cond/invoke_subgraph:nonzero"));
  EXPECT_TRUE(has("in:cond/invoke_subgraph:check"));
  EXPECT_TRUE(has("in:cond/invoke_subgraph:add"));  // in a return
  EXPECT_TRUE(has("in:cond:add"));                  // the else branch's
  EXPECT_FALSE(has("in:cond:nonzero"));             // the nonzero is one level deeper
}

}  // namespace
}  // namespace sf::fuzz
