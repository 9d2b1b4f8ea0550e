// A fork+exec'd campaign worker's command line, in one place: the campaign formats it
// (to_argv) and the worker process parses it back (parse). It carries the loop's plan (which
// seeds, until when) and the campaign settings a worker needs (backend, oracles, memory cap,
// corpus).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "oracles/pipeline.h"

namespace sf::fuzz {

// What one worker process runs: seeds first, first + stride, ... below `end` until `deadline`
// (steady-clock seconds, as the parent passes it). The slot's first worker (replay_share >= 0)
// first replays its share of the corpus; `restart` counts the workers the slot started before
// this one (a guided worker's mutant choices depend on it, so a replacement does not choose the
// mutant that killed the worker before it again). With `swarm`, a fresh seed's program is drawn
// under campaign_swarm_key(seed, swarm_origin, stride)'s policy (fuzz/gen/swarm.h).
struct WorkerPlan {
  uint64_t first = 1, stride = 1, end = UINT64_MAX;
  double deadline = 0;
  int64_t replay_share = -1;
  uint64_t restart = 0;
  bool swarm = false;
  uint64_t swarm_origin = 0;
};

// The CLI subcommand a worker process runs.
inline constexpr const char* kWorkerSubcommand = "campaign-worker";

struct WorkerArgs {
  WorkerPlan plan;
  std::string backend = "cpu";  // "cpu" or "cuda"
  // The oracles, the solver's query timeout and cross-check, and the per-oracle deadline travel;
  // the rest of the options are the defaults.
  oracles::PipelineOptions pipeline;
  size_t memory_mb = 4096;
  std::string corpus;  // a guided worker's corpus directory; empty: not guided
  int jobs = 1;
  bool quiet = false;  // stderr to /dev/null

  // {exe, kWorkerSubcommand, "--first", ..., "--quiet"?}.
  std::vector<std::string> to_argv(const std::string& exe) const;
  // The arguments after the subcommand; nullopt with *error on an unknown, repeated-badly or
  // malformed one, or a missing --first, --stride or --deadline.
  static std::optional<WorkerArgs> parse(const std::vector<std::string>& args, std::string* error);
};

}  // namespace sf::fuzz
