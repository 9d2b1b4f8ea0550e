// Running a program as the harness files it: the Outcome (fuzz/signature.h) of an in-process
// verdict, or of a whole pipeline run in a child process (a crash, hang or running out of memory
// is an outcome too). The one isolated replay behind check, repro, shrinking and the zoo.
#pragma once

#include <string>

#include "fuzz/isolated.h"
#include "fuzz/signature.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

// The outcome of an in-process pipeline run.
Outcome outcome_of(const oracles::Verdict& v);

// What replaying a program text in a child process gave.
struct Replay {
  // The bucket and one-line detail; "invalid" when the text does not parse, a crash bucket
  // ("crash:signal6", "crash:timeout", ...) with the child's report when it crashed.
  Outcome outcome;
  std::string report;    // the child's report as it wrote it, when it crashed
  bool parsed = false;   // the text parsed (and the pipeline ran) in the child
  std::string expect;    // the header's `# expect:` (when parsed)
  bool matches = false;  // the verdict satisfies it (oracles::matches_expectation)
  std::string verdict;   // the verdict's whole text (when parsed), or the parse error
  // The child crashed, hung, ran out of memory or exited without a result.
  bool crashed() const { return outcome.bucket.rfind("crash:", 0) == 0; }
};

// Parses and runs a program text through the whole pipeline (CPU backend) in a child process,
// with only the faults its header names.
Replay replay_isolated(const std::string& text, const oracles::PipelineOptions& base,
                       const IsolationLimits& limits);

// replay_isolated's outcome.
Outcome run_program_isolated(const std::string& text, const oracles::PipelineOptions& base,
                             const IsolationLimits& limits);

}  // namespace sf::fuzz
