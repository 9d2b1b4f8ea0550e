// What running a program gives, as the harness files it: a bucket ("fail:tv", "crash:signal6",
// "rejected:shape", ...) and a detail (the verdict's text or the crash's SF_CHECK line). A
// finding's signature (bucket + normalized message) is what campaigns dedup on and what reproducers
// record in their "# reproduces:" header, so `repro` can tell "reproduced" from "different
// failure".
#pragma once

#include <string>

#include "fuzz/isolated.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

struct Outcome {
  std::string bucket;
  std::string detail;  // one line; empty for a pass
};

// The outcome of an in-process pipeline run.
Outcome outcome_of(const oracles::Verdict& v);

// A message with what varies between instances of one bug abstracted away: numbers, and the
// numbered names of symbols and variables (u0, s12, v8 -> u#, s#, v#), suffixes that make node
// names unique (%nonzero_2 -> %nonzero), one-letter names (#v),
// dtype names (DT), runs of spaces; at most 160 characters.
std::string normalize_message(const std::string& message);

// "BUCKET: normalized detail" for findings and triage buckets (only the first violated invariant
// of a structural failure), the bare bucket otherwise.
std::string signature(const Outcome& o);

// The bucket part of a signature ("fail:tv: guard ..." -> "fail:tv").
std::string signature_bucket(const std::string& signature);

// Parses and runs a program text through the whole pipeline (CPU backend) in a child process,
// with only the faults its header names. A text that does not parse is bucket "invalid".
Outcome run_program_isolated(const std::string& text, const oracles::PipelineOptions& base,
                             const IsolationLimits& limits);

}  // namespace sf::fuzz
