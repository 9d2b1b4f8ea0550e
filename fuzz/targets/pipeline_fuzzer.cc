// libFuzzer target `pipeline`: the bytes are the generator's decisions (FuzzSource), so a mutation
// of the bytes is a mutation of the program. The program runs through the whole pipeline on the
// CPU backend with the oracles in SHAPEFUZZ_ORACLES (default: the structural ones and the
// differential; "all" adds Z3's). A FAIL verdict is a finding; a user error is a verdict, not one.
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
#include "fuzz/targets/finding.h"
#include "oracles/pipeline.h"

namespace {

sf::oracles::OracleSet g_oracles = sf::oracles::OracleSet::structural_only();

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sf::fuzz::enable_faults_or_exit();
  if (const char* names = std::getenv("SHAPEFUZZ_ORACLES"); names && *names) {
    std::string error;
    std::optional<sf::oracles::OracleSet> set = sf::oracles::OracleSet::parse(names, &error);
    if (!set) {
      std::fprintf(stderr, "SHAPEFUZZ_ORACLES: %s\n", error.c_str());
      std::exit(2);
    }
    g_oracles = *set;
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sf;
  static std::unique_ptr<backend::Backend> cpu = backend::make_cpu_backend();
  fuzz::ByteSource src(data, size);
  fuzz::GeneratedProgram g = fuzz::generate_program_with_result(src);
  oracles::PipelineOptions opts;
  opts.backend = cpu.get();
  opts.oracles = g_oracles;
  opts.eager_reference = &g.eager;
  oracles::Verdict v = oracles::run_pipeline(g.program, opts).verdict;
  if (v.kind == oracles::Verdict::Kind::kFail) {
    fuzz::report_finding("pipeline", v.str() +
                                         "\n--- program (save as .sfz; `shapefuzz run` "
                                         "replays it) ---\n" +
                                         program::print_program(g.program));
  }
  return 0;
}
