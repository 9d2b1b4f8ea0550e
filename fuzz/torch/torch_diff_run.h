// torch-diff as a library: our pipeline and PyTorch's on the same programs (a directory of .sfz
// and/or generated seeds), judged per backend, counted by class and key, split into known
// divergences and new ones, examples kept and the new keys minimized. The CLI is its adapter.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fuzz/torch/known_divergences.h"
#include "fuzz/torch/torch_case.h"
#include "oracles/pipeline.h"

namespace sf::torch_ref {

struct TorchDiffOptions {
  std::string dir;  // every .sfz under it (empty: none)
  uint64_t seeds = 0, seed = 1;
  int jobs = 1;  // PyTorch workers
  std::vector<std::string> backends = {"eager", "aot_eager"};
  std::string python = "python3";
  std::string device;  // PyTorch's device (empty: cpu)
  BackendMaker ours;   // our compiled programs' backend, made in each child (empty: the pipeline's)
  std::string ours_name = "cpu";
  oracles::PipelineOptions pipeline;
  double timeout = 60;  // per program
  double seconds = 0;   // the PyTorch side's time box (0: none)
  double start_timeout = 300;
  size_t max_reply_mb = 1;
  std::string out;  // report.json, examples and minimized programs (empty: print only)
  int examples = 5;
  int minimize = 1;  // programs shrunk per backend and new key
  double shrink_seconds = 60;
  KnownDivergences known;  // disagreements already triaged
  std::string known_file;  // where they came from, for the report
};

enum class TorchDiffStatus {
  kAllAgree,
  kOnlyKnown,         // every disagreement matched a known divergence
  kNew,               // a disagreement no rule knows
  kOursUnavailable,   // our backend cannot run here
  kTorchUnavailable,  // no PyTorch worker could start
  kSetupFailed,       // the worker script could not be written
};

struct TorchDiffResult {
  TorchDiffStatus status = TorchDiffStatus::kAllAgree;
  std::string error;  // why, for the unavailable and failed statuses
  nlohmann::json report;
};

// Runs the comparison: a line per disagreement and the summary on `log`, progress on stderr;
// report.json (written atomically, before minimizing and again after) and the example files
// under options.out.
TorchDiffResult run_torch_diff(const TorchDiffOptions& options, std::FILE* log);

// At most this many generated programs in one run: every program is kept until the report.
constexpr uint64_t kMaxTorchDiffSeeds = uint64_t{1} << 20;

}  // namespace sf::torch_ref
