// The one way to judge a generated program: the pipeline with the oracles, given the eager
// result the generator already computed (eager does not run twice). The campaign, the fuzz
// targets, the properties, gen --stats, bench-pipeline and the op table test all run it.
#pragma once

#include "fuzz/fuzz_source.h"
#include "fuzz/gen/program_gen.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

// Runs g.program through the pipeline with `opts`, whose eager reference is g's own eager
// result (opts' eager_reference is ignored: it could only be another program's).
oracles::PipelineResult run_generated(const GeneratedProgram& g, oracles::PipelineOptions opts);

// A program generated from `src` and what the pipeline made of it.
struct GeneratedRun {
  GeneratedProgram generated;
  oracles::PipelineResult result;
};
GeneratedRun generate_and_run(FuzzSource& src, const oracles::PipelineOptions& opts,
                              const ProgramPolicy& policy = {});

}  // namespace sf::fuzz
