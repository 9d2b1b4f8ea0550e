// A fixed workload for the pipeline: every corpus/program file through trace, re-propagation,
// runtime asserts, DCE, lowering, the CPU run, the structural oracles and the differential.
// Unlike pipeline_bench, it does not change when the generator's distribution does, so it is the
// one to compare across pipeline changes. Reads $SF_CORPUS (default corpus/program).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/parser.h"
#include "oracles/pipeline.h"

namespace sf {
namespace {

std::vector<program::Program> corpus() {
  const char* dir = std::getenv("SF_CORPUS");
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir ? dir : "corpus/program")) {
    if (e.path().extension() == ".sfz") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<program::Program> out;
  for (const std::string& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back(program::parse_program(ss.str()));
  }
  return out;
}

void BM_PipelineCorpus(benchmark::State& state) {
  static const std::vector<program::Program> programs = corpus();
  auto cpu = backend::make_cpu_backend();
  size_t i = 0;
  for (auto _ : state) {
    oracles::PipelineOptions opts;
    opts.backend = cpu.get();
    oracles::PipelineResult r = oracles::run_pipeline(programs[i++ % programs.size()], opts);
    benchmark::DoNotOptimize(r.verdict.kind);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["programs"] = static_cast<double>(programs.size());
}
BENCHMARK(BM_PipelineCorpus)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sf

BENCHMARK_MAIN();
