// Replays a recorded ShapeEnv operation sequence (from the trace-shaped generator) into fresh
// ShapeEnvs and reports operations per second.
#include <benchmark/benchmark.h>

#include "engine/shape_env/shape_env.h"
#include "fuzz/gen/shape_env_gen.h"

namespace sf {
namespace {

EventLog record(uint64_t seed, int steps) {
  ShapeEnv env;
  fuzz::SeedSource src(seed);
  fuzz::drive_shape_env(src, env, steps);
  return env.events();
}

void BM_ReplayRecordedSequence(benchmark::State& state) {
  EventLog log = record(42, static_cast<int>(state.range(0)));
  int64_t events = 0;
  for (auto _ : state) {
    ShapeEnv env;
    ReplayResult r = replay_events(log, env);
    benchmark::DoNotOptimize(r.same_outcomes);
    events += static_cast<int64_t>(log.size());
  }
  state.SetItemsProcessed(events);
  state.counters["events"] = static_cast<double>(log.size());
}
BENCHMARK(BM_ReplayRecordedSequence)->Arg(50)->Arg(200)->Arg(800);

void BM_DriveFresh(benchmark::State& state) {
  int64_t calls = 0;
  uint64_t seed = 1;
  for (auto _ : state) {
    ShapeEnv env;
    fuzz::SeedSource src(seed++);
    calls += fuzz::drive_shape_env(src, env, static_cast<int>(state.range(0))).calls;
  }
  state.SetItemsProcessed(calls);
}
BENCHMARK(BM_DriveFresh)->Arg(50)->Arg(200);

}  // namespace
}  // namespace sf

BENCHMARK_MAIN();
