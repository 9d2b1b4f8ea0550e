// libFuzzer target `shape_env`: the bytes drive a trace-shaped ShapeEnv call sequence (input
// symbols, unbacked bindings, checks, guards, renames); then every ShapeEnv invariant, every
// binding path found (INV-4, by an independent walk) and the event-log replay are checked. User
// errors along the way are expected and counted, not findings.
#include <cstddef>
#include <cstdint>

#include "engine/shape_env/shape_env.h"
#include "fuzz/fuzz_source.h"
#include "fuzz/gen/shape_env_gen.h"
#include "fuzz/targets/finding.h"
#include "oracles/invariants/binding_paths.h"
#include "oracles/invariants/shape_env_invariants.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sf::fuzz::enable_faults_or_exit();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sf;
  fuzz::ByteSource src(data, size);
  // The first byte picks the length (8..135 operations), so short inputs stay cheap.
  int steps = 8 + static_cast<int>(src.range(0, 127));
  ShapeEnv env;
  fuzz::DriveStats stats = fuzz::drive_shape_env(src, env, steps);
  std::vector<oracles::Violation> violations = oracles::check_state(env);
  for (const auto& [value, bindings] : stats.exposed) {
    std::vector<oracles::Violation> paths = oracles::check_binding_paths(value, bindings);
    violations.insert(violations.end(), paths.begin(), paths.end());
  }
  std::vector<oracles::Violation> replay = oracles::check_replay(env);
  violations.insert(violations.end(), replay.begin(), replay.end());
  if (!violations.empty()) {
    fuzz::report_finding("shape_env", "after " + std::to_string(steps) + " operations:\n" +
                                          oracles::violations_str(violations));
  }
  return 0;
}
