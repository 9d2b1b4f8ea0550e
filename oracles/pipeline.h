// The pipeline driver: eager reference, trace, structural oracles, re-propagation with
// rebinding, runtime-assert insertion and DCE, ending in a verdict. Every stage's artefacts are
// kept for printing (`shapefuzz run`) and for later stages (lowering, backends).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/backend/backend.h"
#include "engine/eager/eager.h"
#include "engine/lower/plan.h"
#include "engine/graph/passes/runtime_asserts.h"
#include "engine/graph/tracer.h"
#include "oracles/verdict.h"

namespace sf::oracles {

struct PipelineOptions {
  ShapeEnvSettings settings;
  bool repropagate = true;
  // Lower the final graph and run it on this backend, comparing with eager (null: stop before
  // lowering).
  backend::Backend* backend = nullptr;
};

struct PipelineResult {
  Verdict verdict;
  // Eager reference: outputs, or the user error it raised.
  std::optional<eager::EagerResult> eager;
  std::string eager_error_kind, eager_error;
  // Trace artefacts (absent when tracing was rejected).
  std::unique_ptr<graph::Trace> trace;
  std::string traced_graph;                 // printed right after tracing
  std::optional<graph::Graph> final_graph;  // re-propagated, asserts inserted, DCE'd
  graph::RuntimeAssertReport asserts;
  std::optional<lower::Plan> plan;
  std::optional<backend::RunResult> run;       // the compiled run, when it completed
  std::string run_error_kind, run_error;       // or the user error it raised
};

PipelineResult run_pipeline(const program::Program& p, const PipelineOptions& opts = {});

}  // namespace sf::oracles
