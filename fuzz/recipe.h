// A program as the generator's decisions: a seed, plus overrides of single decisions (decision k
// takes value v instead of the seed's). Coverage-guided campaigns mutate programs by adding,
// changing or dropping overrides: each one changes one choice (an op, an operand, a dim mode, a
// statement kind, a size) and the generator repairs the rest, so a mutant stays valid by
// construction. A recipe may also name a swarm policy (fuzz/gen/swarm.h) the program is drawn
// under. Text form: "seed=17", "seed=17;40:912,3:5" or "seed=17,swarm=72057594037927941;40:912".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "fuzz/fuzz_source.h"
#include "fuzz/gen/program_gen.h"

namespace sf::fuzz {

struct Recipe {
  uint64_t seed = 0;
  std::map<uint32_t, uint64_t> overrides;  // decision index -> value
  uint64_t swarm = 0;                      // the policy's key; 0: the default policy
  uint32_t decisions = 0;  // how many decisions the program took (known once generated)

  // Neither overrides nor a swarm policy: the seed's own program under the default policy.
  bool plain() const { return overrides.empty() && swarm == 0; }
  std::string str() const;
  static std::optional<Recipe> parse(const std::string& text);
};

// The seed's stream with the overrides applied; counts the decisions drawn.
class RecipeSource : public FuzzSource {
 public:
  explicit RecipeSource(const Recipe& r) : recipe_(r), stream_(r.seed) {}
  uint64_t next_u64() override;
  uint32_t drawn() const { return drawn_; }

 private:
  const Recipe& recipe_;
  SeedSource stream_;
  uint32_t drawn_ = 0;
};

// The program a campaign runs for the recipe (for a recipe without overrides or swarm key, the
// same program as generated_for_seed); sets recipe.decisions.
GeneratedProgram generated_for_recipe(Recipe& recipe);

// One to three edits: a new override at a decision the program took, a changed one, or one
// dropped; and one time in six a new swarm policy (a level step up or down, or another variant),
// so mutants explore policies the seeds' slices did not draw. `rng` decides; the result is
// deterministic given it.
Recipe mutate_recipe(const Recipe& r, FuzzSource& rng);

}  // namespace sf::fuzz
