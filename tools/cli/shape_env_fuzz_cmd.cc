// `shapefuzz fuzz-shape-env`: a time-boxed loop of random ShapeEnv call sequences, each checked
// against the ShapeEnv invariants and event-log replay; a violation prints a reproducer seed.
#include <chrono>
#include <cstdio>
#include <string>

#include "engine/base/errors.h"
#include "fuzz/gen/shape_env_gen.h"
#include "oracles/invariants/shape_env_invariants.h"
#include "tools/cli/commands.h"

namespace sf::cli {

int fuzz_shape_env_command(const Args& args) {
  double seconds = args.get_double("seconds", 10);
  uint64_t seed = args.get_u64("seed", 1);
  int steps = static_cast<int>(args.get_u64("steps", 200));
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  uint64_t runs = 0, calls = 0, user_errors = 0;
  double next_report = 1.0;
  for (uint64_t s = seed;; ++s) {
    if (elapsed() >= seconds) break;
    ShapeEnv env;
    fuzz::SeedSource src(s);
    fuzz::DriveStats stats = fuzz::drive_shape_env(src, env, steps);
    ++runs;
    calls += stats.calls;
    user_errors += stats.user_errors;
    std::vector<oracles::Violation> vs = oracles::check_state(env);
    std::vector<oracles::Violation> replay = oracles::check_replay(env);
    vs.insert(vs.end(), replay.begin(), replay.end());
    if (!vs.empty()) {
      std::printf("FAIL seed=%llu steps=%d\n%s", static_cast<unsigned long long>(s), steps,
                  oracles::violations_str(vs).c_str());
      std::printf("reproduce: shapefuzz fuzz-shape-env --seed %llu --seconds 0.001 --steps %d\n",
                  static_cast<unsigned long long>(s), steps);
      return 1;
    }
    if (elapsed() >= next_report) {
      std::fprintf(stderr, "[%5.1fs] sequences=%llu calls=%llu (%.0f calls/s) user_errors=%llu\n",
                   elapsed(), static_cast<unsigned long long>(runs),
                   static_cast<unsigned long long>(calls), calls / elapsed(),
                   static_cast<unsigned long long>(user_errors));
      next_report += 1.0;
    }
  }
  std::printf("ok: %llu sequences, %llu ShapeEnv calls, %llu user errors, no invariant violated\n",
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(calls),
              static_cast<unsigned long long>(user_errors));
  return 0;
}

}  // namespace sf::cli
