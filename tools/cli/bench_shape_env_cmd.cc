// `shapefuzz bench-shape-env`: times a recorded, trace-shaped ShapeEnv operation sequence on our
// ShapeEnv and exports it for tools/bench/pytorch_shape_env.py, which replays the same sequence
// on PyTorch's ShapeEnv (the DESIGN §4 comparison). Prints operations per second.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <utility>

#include "fuzz/gen/shape_env_gen.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct BenchShapeEnvFlags {
  uint64_t seed = 42;
  int steps = 200, runs = 50;
  std::string export_file;
  std::string state_file;
  std::string clock = "wall";
  bool record_events = false;
};

// Seconds on the chosen clock: wall (steady) time, or this thread's CPU time, which leaves out
// the time other tenants of a shared machine hold the core (tools/bench/pytorch_shape_env.py
// offers the same two clocks, so a ratio compares like with like).
double now_seconds(bool cpu) {
  if (!cpu) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  return static_cast<bool>(f.flush());
}

int bench_shape_env(const BenchShapeEnvFlags& f) {
  uint64_t seed = f.seed;
  int steps = f.steps, runs = f.runs;
  std::vector<std::string> script;
  fuzz::DriveStats stats;
  std::string state;
  // PyTorch's ShapeEnv keeps no event log unless translation validation is on; ours keeps one
  // only with --record-events, so both sides do the same work by default.
  ShapeEnvSettings settings;
  settings.record_events = f.record_events;
  {
    ShapeEnv env(settings);
    fuzz::SeedSource src(seed);
    stats = fuzz::drive_shape_env(src, env, steps, &script);
    if (!f.state_file.empty()) state = env.state_str();
  }
  const std::string& out = f.export_file;
  std::string lines;
  for (const std::string& line : script) lines += line + "\n";
  for (const auto& [path, text] : {std::pair{out, lines}, std::pair{f.state_file, state}}) {
    if (!path.empty() && !write_file(path, text)) {
      std::fprintf(stderr, "bench-shape-env: cannot write %s\n", path.c_str());
      return kExitUsage;
    }
  }
  bool cpu = f.clock == "cpu";
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    double t0 = now_seconds(cpu);
    ShapeEnv env(settings);
    fuzz::SeedSource src(seed);
    fuzz::drive_shape_env(src, env, steps);
    seconds.push_back(now_seconds(cpu) - t0);
  }
  std::sort(seconds.begin(), seconds.end());
  double median = seconds[seconds.size() / 2];
  std::printf(
      "shapefuzz ShapeEnv: %zu operations, median %.3f ms per run (%s time, %d runs, %zu user "
      "errors, event log %s), %.0f ops/s\n",
      script.size(), median * 1e3, cpu ? "cpu" : "wall", runs,
      static_cast<size_t>(stats.user_errors), f.record_events ? "on" : "off",
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
  cmd->add_option("--clock", f->clock,
                  "wall: elapsed time; cpu: this thread's CPU time (steadier on a shared machine)")
      ->capture_default_str()
      ->check(CLI::IsMember({"wall", "cpu"}));
  cmd->add_flag(
      "--record-events", f->record_events,
      "keep the ShapeEnv event log, as the oracles need (PyTorch keeps its own only under "
      "translation validation, so the comparison leaves both off)");
  cmd->add_option("--export", f->export_file, "write the operation script to FILE");
  cmd->add_option("--state", f->state_file,
                  "write the ShapeEnv's state after the sequence to FILE (ranges, replacements, "
                  "asserts, axioms): a speed change must leave it byte-identical");
  cmd->callback([=] { *action = [=] { return bench_shape_env(*f); }; });
}

}  // namespace sf::cli
