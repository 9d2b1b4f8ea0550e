// `shapefuzz fuzz-shape-env`: a time-boxed loop of random ShapeEnv call sequences, each checked
// against the ShapeEnv invariants and event-log replay; a violation prints a reproducer seed.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "engine/base/errors.h"
#include "fuzz/gen/shape_env_gen.h"
#include "oracles/invariants/shape_env_invariants.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct FuzzShapeEnvFlags {
  double seconds = 10;
  uint64_t seed = 1;
  int steps = 200;
};

int fuzz_shape_env(const FuzzShapeEnvFlags& f) {
  double seconds = f.seconds;
  uint64_t seed = f.seed;
  int steps = f.steps;
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
      return kExitFindings;
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
  return kExitOk;
}

}  // namespace

void add_fuzz_shape_env_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<FuzzShapeEnvFlags>();
  CLI::App* cmd = app.add_subcommand(
      "fuzz-shape-env",
      "random ShapeEnv call sequences checked against the ShapeEnv invariants (spec section 8) "
      "and event-log replay; prints a reproducer seed on the first violation");
  cmd->add_option("--seconds", f->seconds, "time box")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--seed", f->seed, "first seed")->capture_default_str()->check(seed_number());
  cmd->add_option("--steps", f->steps, "calls per sequence")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->callback([=] { *action = [=] { return fuzz_shape_env(*f); }; });
}

}  // namespace sf::cli
