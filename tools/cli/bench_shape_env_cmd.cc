// `shapefuzz bench-shape-env`: times a recorded, trace-shaped ShapeEnv operation sequence on our
// ShapeEnv and exports it for tools/bench/pytorch_shape_env.py, which replays the same sequence
// on PyTorch's ShapeEnv (the DESIGN §4 comparison). Prints operations per second.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "fuzz/gen/shape_env_gen.h"
#include "tools/cli/commands.h"

namespace sf::cli {

int bench_shape_env_command(const Args& args) {
  uint64_t seed = args.get_u64("seed", 42);
  int steps = static_cast<int>(args.get_u64("steps", 200));
  int runs = static_cast<int>(args.get_u64("runs", 50));
  if (runs < 1 || steps < 1) {
    std::fprintf(stderr, "bench-shape-env: --runs and --steps must be at least 1\n");
    return 2;
  }
  std::vector<std::string> script;
  fuzz::DriveStats stats;
  {
    ShapeEnv env;
    fuzz::SeedSource src(seed);
    stats = fuzz::drive_shape_env(src, env, steps, &script);
  }
  std::string out = args.get("export", "");
  if (!out.empty()) {
    std::ofstream f(out);
    for (const std::string& line : script) f << line << "\n";
    if (!f.flush()) {
      std::fprintf(stderr, "bench-shape-env: cannot write %s\n", out.c_str());
      return 2;
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
  return 0;
}

}  // namespace sf::cli
