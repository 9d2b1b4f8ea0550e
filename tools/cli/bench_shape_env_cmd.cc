// `shapefuzz bench-shape-env`: times a recorded, trace-shaped ShapeEnv operation sequence on our
// ShapeEnv and exports it for tools/bench/pytorch_shape_env.py, which replays the same sequence
// on PyTorch's ShapeEnv (the DESIGN §4 comparison). Prints operations per second.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "fuzz/gen/shape_env_gen.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct BenchShapeEnvFlags {
  uint64_t seed = 42;
  int steps = 200, runs = 50;
  std::string export_file;
};

int bench_shape_env(const BenchShapeEnvFlags& f) {
  uint64_t seed = f.seed;
  int steps = f.steps, runs = f.runs;
  std::vector<std::string> script;
  fuzz::DriveStats stats;
  {
    ShapeEnv env;
    fuzz::SeedSource src(seed);
    stats = fuzz::drive_shape_env(src, env, steps, &script);
  }
  const std::string& out = f.export_file;
  if (!out.empty()) {
    std::ofstream f(out);
    for (const std::string& line : script) f << line << "\n";
    if (!f.flush()) {
      std::fprintf(stderr, "bench-shape-env: cannot write %s\n", out.c_str());
      return kExitUsage;
    }
  }
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    ShapeEnv env;
    fuzz::SeedSource src(seed);
    fuzz::drive_shape_env(src, env, steps);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(seconds.begin(), seconds.end());
  double median = seconds[seconds.size() / 2];
  std::printf(
      "shapefuzz ShapeEnv: %zu operations, median %.3f ms per run (%d runs, %zu user errors), "
      "%.0f ops/s\n",
      script.size(), median * 1e3, runs, static_cast<size_t>(stats.user_errors),
      script.size() / median);
  if (!out.empty()) std::printf("script written to %s\n", out.c_str());
  return kExitOk;
}

}  // namespace

void add_bench_shape_env_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<BenchShapeEnvFlags>();
  CLI::App* cmd = app.add_subcommand(
      "bench-shape-env",
      "time a seeded trace-shaped ShapeEnv operation sequence (median of R runs, ops/s) and "
      "export it for tools/bench/pytorch_shape_env.py");
  cmd->add_option("--seed", f->seed, "sequence seed")->capture_default_str()->check(seed_number());
  cmd->add_option("--steps", f->steps, "operations per sequence")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--runs", f->runs, "timed runs")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--export", f->export_file, "write the operation script to FILE");
  cmd->callback([=] { *action = [=] { return bench_shape_env(*f); }; });
}

}  // namespace sf::cli
