// `shapefuzz gen --seed N [--count K]`: prints the program(s) the campaign runs for seeds N..N+K-1
// under the default policy; `gen --recipe R` a recipe's (a guided mutant's or a swarm policy's, as
// findings and corpus entries name them); `gen --stats N` what the generator reaches instead.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "engine/program/printer.h"
#include "fuzz/campaign.h"
#include "fuzz/gen_stats.h"
#include "fuzz/recipe.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct GenFlags {
  uint64_t seed = 1, count = 1;
  uint64_t stats = 0;  // 0: print programs
  std::string recipe;
};

int gen(const GenFlags& f) {
  if (!f.recipe.empty()) {
    std::optional<fuzz::Recipe> r = fuzz::Recipe::parse(f.recipe);
    if (!r) {
      std::fprintf(stderr,
                   "gen: --recipe wants seed=S[,swarm=K][;D:V,...] (as a finding or corpus entry "
                   "names it), not '%s'\n",
                   f.recipe.c_str());
      return kExitUsage;
    }
    std::fputs(program::print_program(fuzz::generated_for_recipe(*r).program).c_str(), stdout);
    return kExitOk;
  }
  if (f.stats > 0) {
    std::fputs(fuzz::collect_gen_stats(f.seed, f.stats).report().c_str(), stdout);
    return kExitOk;
  }
  // Seeds count modulo 2^64: the last ones are followed by 0, 1, ... (never an empty range).
  for (uint64_t k = 0; k < f.count; ++k) {
    std::fputs(program::print_program(fuzz::program_for_seed(f.seed + k)).c_str(), stdout);
    if (k + 1 < f.count) std::fputs("\n", stdout);
  }
  return kExitOk;
}

}  // namespace

void add_gen_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<GenFlags>();
  CLI::App* cmd = app.add_subcommand(
      "gen",
      "print the generated programs the campaign runs for seeds S..S+K-1 under the default "
      "policy, or the program of one recipe");
  cmd->add_option("--seed", f->seed, "first seed")->capture_default_str()->check(seed_number());
  cmd->add_option("--count", f->count, "how many programs")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  cmd->add_option("--stats", f->stats,
                  "instead of programs, print op, feature and binding-path coverage and verdicts "
                  "over this many programs (seeds S..S+N-1), each run through the pipeline")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 24));
  cmd->add_option("--recipe", f->recipe,
                  "print the program of this recipe instead (seed=S[,swarm=K][;D:V,...]: a swarm "
                  "policy's or a guided mutant's program, as a finding's recipe or a corpus "
                  "entry's '# recipe:' line names it)")
      ->excludes("--stats");
  cmd->callback([=] { *action = [=] { return gen(*f); }; });
}

}  // namespace sf::cli
