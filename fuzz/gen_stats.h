// What the program generator reaches over a range of seeds: ops, statement kinds, input modes,
// binding-path kinds, verdicts and how many programs get as far as running compiled code
// (`shapefuzz gen --stats N`). The coverage targets in tests/fuzz/gen_stats_test read it too.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace sf::fuzz {

struct GenStats {
  int64_t programs = 0;
  int64_t statements = 0;
  int64_t reached_execution = 0;  // the compiled program ran on the CPU backend (or raised there)
  int64_t data_dependent = 0;     // with an op that allocates unbacked symbols
  std::map<std::string, int64_t> op_calls;        // every call, nested ones included
  std::map<std::string, int64_t> op_programs;     // programs with at least one call of the op
  std::map<std::string, int64_t> features;        // programs with the feature
  std::map<std::string, int64_t> keypath_kinds;   // bindings whose path has an entry of the kind
  std::map<std::string, int64_t> keypath_shapes;  // bindings by path, numbers abstracted
  // The same kinds over the ShapeEnv driver's sequences (fuzz/gen/shape_env_gen.h), one per
  // seed: it exposes fresh symbols in layouts the language's ops never produce.
  std::map<std::string, int64_t> driver_keypath_kinds;
  std::map<std::string, int64_t> verdicts;  // programs by verdict bucket

  // A table for people: percentages, ops never drawn, features never reached.
  std::string report() const;

  // As JSON text and back (a campaign gathers them in a child process); nullopt on bad text.
  std::string to_json() const;
  static std::optional<GenStats> from_json(const std::string& text);
};

// The campaign's programs for seeds first..first+count-1, each through the pipeline on the CPU
// backend with the structural oracles.
GenStats collect_gen_stats(uint64_t first_seed, uint64_t count);

}  // namespace sf::fuzz
