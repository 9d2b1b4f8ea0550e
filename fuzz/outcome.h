// Running a program as the harness files it: the Outcome (fuzz/signature.h) of an in-process
// verdict, or of a whole pipeline run in a child process (a crash, hang or running out of memory
// is an outcome too).
#pragma once

#include <string>

#include "fuzz/isolated.h"
#include "fuzz/signature.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

// The outcome of an in-process pipeline run.
Outcome outcome_of(const oracles::Verdict& v);

// Parses and runs a program text through the whole pipeline (CPU backend) in a child process,
// with only the faults its header names. A text that does not parse is bucket "invalid".
Outcome run_program_isolated(const std::string& text, const oracles::PipelineOptions& base,
                             const IsolationLimits& limits);

}  // namespace sf::fuzz
