// Minimizing a torch-diff disagreement: the program shrinker (fuzz/shrink_program.h) with "our
// pipeline and this PyTorch backend still disagree the same way" as its predicate, so each class
// keeps small examples to triage.
#pragma once

#include <string>

#include "fuzz/shrink_program.h"
#include "fuzz/torch/torch_case.h"
#include "fuzz/torch/torch_process.h"
#include "oracles/pipeline.h"

namespace sf::torch_ref {

struct DisagreementShrink {
  fuzz::ShrinkResult shrunk;
  // The first candidate our pipeline crashed or hung on (a finding of ours the shrinker met on
  // the way; empty when none) and its bucket with the SF_CHECK report.
  std::string our_crash_program, our_crash;
};

// Shrinks `sfz` while its judgement on `backend` keeps `key` (Judgement::key). Every candidate
// runs through our pipeline with `opts` here and through `worker` (that backend, and eager too for
// a torch-self key; `timeout` seconds); our pipeline runs in a child. ShrinkResult::reproduced is
// false when `sfz` itself no longer gives `key` (a flaky disagreement: PyTorch's answer changed
// between runs).
DisagreementShrink shrink_disagreement(const std::string& sfz, const std::string& backend,
                                       const std::string& key, TorchProcess& worker,
                                       const oracles::PipelineOptions& opts, double timeout,
                                       const fuzz::ShrinkLimits& limits,
                                       const BackendMaker& make_backend = {});

}  // namespace sf::torch_ref
