// libFuzzer target `pipeline`: the bytes are the generator's decisions (FuzzSource), so a mutation
// of the bytes is a mutation of the program. The program runs through the whole pipeline on the
// CPU backend with the oracles in SHAPEFUZZ_ORACLES at run time, else those the build chose
// (-DSF_PIPELINE_ORACLES=..., which .clusterfuzzlite/build.sh sets from
// SHAPEFUZZ_PIPELINE_ORACLES), else the structural ones and the differential; "all" adds Z3's. A
// FAIL verdict is a finding; a user error is a verdict, not one.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/printer.h"
#include "fuzz/fuzz_source.h"
#include "fuzz/gen/program_gen.h"
#include "fuzz/run_generated.h"
#include "fuzz/targets/finding.h"
#include "oracles/pipeline.h"

#ifndef SF_PIPELINE_ORACLES
#define SF_PIPELINE_ORACLES ""
#endif

namespace {

sf::oracles::OracleSet g_oracles = sf::oracles::OracleSet::structural_only();

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sf::fuzz::enable_faults_or_exit();
  const char* names = std::getenv("SHAPEFUZZ_ORACLES");
  const char* from = "SHAPEFUZZ_ORACLES";
  if (!names || !*names) names = SF_PIPELINE_ORACLES, from = "the build's SF_PIPELINE_ORACLES";
  if (*names) {
    std::string error;
    std::optional<sf::oracles::OracleSet> set = sf::oracles::OracleSet::parse(names, &error);
    if (!set) {
      std::fprintf(stderr, "%s: %s\n", from, error.c_str());
      std::exit(2);
    }
    g_oracles = *set;
  }
  // One line, so a fuzzing job's log shows what judged its inputs.
  std::fprintf(stderr, "pipeline_fuzzer: oracles %s\n", g_oracles.str().c_str());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sf;
  static std::unique_ptr<backend::Backend> cpu = backend::make_cpu_backend();
  fuzz::ByteSource src(data, size);
  oracles::PipelineOptions opts;
  opts.backend = cpu.get();
  opts.oracles = g_oracles;
  fuzz::GeneratedRun r = fuzz::generate_and_run(src, opts);
  const fuzz::GeneratedProgram& g = r.generated;
  const oracles::Verdict& v = r.result.verdict;
  if (v.kind == oracles::Verdict::Kind::kFail) {
    fuzz::report_finding("pipeline", v.str() +
                                         "\n--- program (save as .sfz; `shapefuzz run` "
                                         "replays it) ---\n" +
                                         program::print_program(g.program));
  }
  return 0;
}
