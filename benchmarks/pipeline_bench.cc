// End-to-end CPU pipeline throughput: generate -> trace -> re-propagate -> runtime asserts ->
// lower -> run on the CPU backend -> structural oracles and the differential against eager (and
// the Z3 oracles in the *AllOracles* cases). Reports programs/s, and the cost curve over program
// length and tensor size.
#include <benchmark/benchmark.h>

#include "engine/backend/cpu/cpu_backend.h"
#include "fuzz/gen/program_gen.h"
#include "oracles/pipeline.h"

namespace sf {
namespace {

void run_programs(benchmark::State& state, fuzz::ProgramPolicy policy,
                  oracles::OracleSet set = oracles::PipelineOptions{}.oracles) {
  auto cpu = backend::make_cpu_backend();
  uint64_t seed = 1;
  int64_t programs = 0, statements = 0, passes = 0;
  for (auto _ : state) {
    fuzz::SeedSource src(seed++);
    program::Program p = fuzz::generate_program(src, policy);
    oracles::PipelineOptions opts;
    opts.backend = cpu.get();
    opts.oracles = set;
    oracles::PipelineResult r = oracles::run_pipeline(p, opts);
    benchmark::DoNotOptimize(r.verdict.kind);
    ++programs;
    statements += static_cast<int64_t>(p.body.size());
    passes += r.verdict.kind == oracles::Verdict::Kind::kPass;
  }
  state.SetItemsProcessed(programs);
  state.counters["stmts/program"] = static_cast<double>(statements) / programs;
  state.counters["pass%"] = 100.0 * passes / programs;
}

// The default policy (<= 12 statements, dims <= 8, rank <= 3).
void BM_PipelineDefault(benchmark::State& state) { run_programs(state, fuzz::ProgramPolicy{}); }
BENCHMARK(BM_PipelineDefault)->Unit(benchmark::kMicrosecond);

// Cost over program length: max statements 4, 8, 16, 32.
void BM_PipelineByLength(benchmark::State& state) {
  fuzz::ProgramPolicy policy;
  policy.max_statements = static_cast<int>(state.range(0));
  run_programs(state, policy);
}
BENCHMARK(BM_PipelineByLength)->Arg(4)->Arg(8)->Arg(16)->Arg(32)->Arg(64)->Unit(
    benchmark::kMicrosecond);

// The same curve with every oracle, the Z3 ones included: their cost per statement.
void BM_AllOraclesByLength(benchmark::State& state) {
  fuzz::ProgramPolicy policy;
  policy.max_statements = static_cast<int>(state.range(0));
  run_programs(state, policy, oracles::OracleSet::all());
}
BENCHMARK(BM_AllOraclesByLength)->Arg(4)->Arg(8)->Arg(16)->Arg(32)->Arg(64)->Unit(
    benchmark::kMicrosecond);

// Cost over tensor size: max dim 4, 16, 64 at rank <= 2 (up to 4096 elements per tensor).
void BM_PipelineByTensorSize(benchmark::State& state) {
  fuzz::ProgramPolicy policy;
  policy.max_rank = 2;
  policy.max_dim = static_cast<int>(state.range(0));
  run_programs(state, policy);
}
BENCHMARK(BM_PipelineByTensorSize)->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sf

BENCHMARK_MAIN();
