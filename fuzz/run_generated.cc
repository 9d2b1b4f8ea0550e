// Generate, hand over eager's result, run the pipeline.
#include "fuzz/run_generated.h"

#include <utility>

namespace sf::fuzz {

oracles::PipelineResult run_generated(const GeneratedProgram& g, oracles::PipelineOptions opts) {
  opts.eager_reference = &g.eager;
  return oracles::run_pipeline(g.program, opts);
}

GeneratedRun generate_and_run(FuzzSource& src, const oracles::PipelineOptions& opts,
                              const ProgramPolicy& policy) {
  GeneratedRun out{generate_program_with_result(src, policy), {}};
  out.result = run_generated(out.generated, opts);
  return out;
}

}  // namespace sf::fuzz
