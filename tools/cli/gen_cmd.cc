// `shapefuzz gen --seed N [--count K]`: prints the program(s) the campaign runs for seeds N..N+K-1.
#include <cstdio>

#include "engine/program/printer.h"
#include "fuzz/campaign.h"
#include "tools/cli/commands.h"

namespace sf::cli {

int gen_command(const Args& args) {
  uint64_t seed = args.get_u64("seed", 1), count = args.get_u64("count", 1);
  for (uint64_t s = seed; s < seed + count; ++s) {
    std::fputs(program::print_program(fuzz::program_for_seed(s)).c_str(), stdout);
    if (s + 1 < seed + count) std::fputs("\n", stdout);
  }
  return 0;
}

}  // namespace sf::cli
