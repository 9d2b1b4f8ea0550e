// One program on both sides: our pipeline here (eager reference and compiled verdict), its export
// sent to a PyTorch worker, and the judgement per backend. torch-diff runs many of these; its
// shrinker runs one per candidate.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/program/ast.h"
#include "fuzz/torch/torch_diff.h"
#include "fuzz/torch/torch_process.h"
#include "oracles/pipeline.h"

namespace sf::torch_ref {

struct TorchCase {
  std::string name;  // a file name or "seed-N"; the exported module's id
  std::string sfz;
  std::string python;  // the export (empty when it failed: ours.own_failure says why)
  OurOutcome ours;
  std::string our_verdict;           // our pipeline's verdict, for the report
  std::vector<std::string> results;  // one verdict JSON per backend, in the order asked
  bool not_run = false;  // torch-diff's time box ended before PyTorch answered: not judged
};

// Our side: the pipeline with `opts` (its backend included), then the export.
void run_our_side(TorchCase& c, const program::Program& p, const oracles::PipelineOptions& opts);

// Makes the backend our side runs on, in the child that runs it (a CUDA context made in the
// parent does not survive the fork); its backend replaces the options' one. Empty: the options'.
using BackendMaker = std::function<std::unique_ptr<backend::Backend>()>;

// Whether the maker's backend is available, asked in a forked child as our side is run (it is
// never made in this process): empty when it is, else why not.
std::string our_backend_unavailable(const BackendMaker& make_backend);

// The same in a forked child (fuzz/isolated.h): an engine crash or hang on one program becomes
// that program's own failure ("crash:signal6: file:line: ...", class ours-failed) instead of
// ending the whole run. The outcome comes back as JSON, float data bit for bit.
void run_our_side_isolated(TorchCase& c, const program::Program& p,
                           const oracles::PipelineOptions& opts, double timeout_seconds,
                           const BackendMaker& make_backend = {});

// The same for many programs in one child (one process start, and one CUDA context for the CUDA
// backend, per batch); a batch whose child crashes or times out runs again one program per child.
void run_our_side_batch(const std::vector<TorchCase*>& cases,
                        const std::vector<const program::Program*>& programs,
                        const oracles::PipelineOptions& opts, double timeout_seconds,
                        const BackendMaker& make_backend = {});

// PyTorch's side: asks `worker` for `backends` and fills `c.results`, one per backend. A worker
// that hangs, dies or writes an answer past its cap gives a crash verdict for every backend (type
// "timeout", "worker died" or "answer too long": a finding of PyTorch's). Returns
// kNotStarted, with `*error`, when no worker could start (PyTorch is unavailable).
TorchProcess::Status run_torch_side(TorchCase& c, TorchProcess& worker,
                                    const std::vector<std::string>& backends, double timeout,
                                    std::string* error);

// The judgement of backend number `b` (an index into the backends run_torch_side was given).
Judgement judge_backend(const TorchCase& c, size_t b);

// Every backend's judgement, in the order of `backends` (those run_torch_side was given). When
// "eager" is among them and agrees with ours, a compiling backend that rejects where we accept, or
// gives other outputs, is torch-self instead (PyTorch compiled disagrees with PyTorch eager while
// ours agrees with eager); its key is "torch-self " + the plain key.
// A capture backend's judgement also gets the torch-invariant "eager-raised <kind>" when PyTorch's
// eager failed a check (check_failed, runtime_assert_failed) as ours did, and the captured graph
// ran to the end.
std::vector<Judgement> judge_case(const TorchCase& c, const std::vector<std::string>& backends);

// Whether a key's judgement needs PyTorch's eager beside its backend (torch-self, eager-raised):
// the shrinker asks for both.
bool judged_against_eager(const std::string& key);

}  // namespace sf::torch_ref
