// The oracle pipeline: the engine's one pipeline (engine/compile/pipeline.h) with the structural
// oracles registered as stage observers, the eager reference beside it, the differential on the
// outcome and the Z3 oracles on the final products, ending in a verdict. Every stage's artefacts
// are kept for printing and reports.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/compile/pipeline.h"
#include "engine/eager/eager.h"
#include "oracles/invariants/graph_invariants.h"
#include "oracles/oracle_report.h"
#include "oracles/oracle_set.h"
#include "oracles/smt/solver.h"
#include "oracles/verdict.h"

namespace sf::oracles {

struct PipelineOptions {
  ShapeEnvSettings settings;
  bool repropagate = true;
  // Lower the final graph and run it on this backend, comparing with eager (null: stop before
  // lowering).
  backend::Backend* backend = nullptr;
  // More observers (a printer, a collector), called before the oracles' own at each stage. They
  // only read: their Next is ignored, so they cannot end the pipeline without a verdict.
  std::vector<std::pair<compile::Stage, compile::StageObserver>> observers;
  // Which oracles judge (the Z3 ones: binding, rename, memo, tv) and their solver budget.
  OracleSet oracles = OracleSet::structural_only();
  smt::Options smt;
  // Each oracle's wall-clock deadline on one program: past it the oracle stops judging and is
  // undecided (unknown(oracle), never a pass). Kept under the campaign's hang timeout (10 s
  // without progress) for the four solver oracles together.
  unsigned oracle_deadline_ms = 2000;
  // The program's eager result when the caller has it already (the generator's, see
  // fuzz::generate_program_with_result): the pipeline uses it instead of running eager again.
  // It must be run_eager's result for this very program; null: run eager.
  const eager::EagerResult* eager_reference = nullptr;
};

struct PipelineResult {
  Verdict verdict;
  // Eager reference: outputs, or the user error it raised.
  std::optional<eager::EagerResult> eager;
  std::optional<UserErrorInfo> eager_error;
  // Stage artefacts (absent when the pipeline ended before producing them).
  std::unique_ptr<graph::Trace> trace;      // ShapeEnv, fake mode, the graph as traced (moved
                                            // to final_graph when re-propagation is off)
  std::optional<graph::Graph> final_graph;  // re-propagated, asserts inserted, DCE'd
  graph::RuntimeAssertReport asserts;
  // Traced unbacked symbols whose binding site re-propagation made a constant, and that constant
  // (the translation-validation oracle reads them as the compiled program computes them).
  Constantified constantified;
  std::optional<lower::Plan> plan;
  std::map<std::string, program::HostValue> inputs;  // what the run ran on (none without one)
  std::optional<backend::RunResult> run;             // the compiled run, when it completed
  std::optional<UserErrorInfo> run_error;            // or the user error it raised
  std::vector<OracleReport> reports;                 // one per oracle that was asked, in order
  // The rename oracle's judgement before lowering, and the event count it judged.
  OracleReport early_rename;
  size_t renames_judged_at = 0;
};

PipelineResult run_pipeline(const program::Program& p, const PipelineOptions& opts = {});

}  // namespace sf::oracles
