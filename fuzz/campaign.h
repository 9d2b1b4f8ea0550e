// The campaign loop: seeded programs through the whole pipeline in a crash-isolated worker process
// (an aborting engine bug, a hang or running out of memory is recorded as a crash of that seed,
// and a fresh worker goes on with the next seed; a worker lost between programs is replaced).
// Used by `shapefuzz campaign` and, once per fault, by `shapefuzz zoo`.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/program/ast.h"
#include "fuzz/gen/program_gen.h"
#include "fuzz/isolated.h"
#include "fuzz/worker_args.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

// The program a campaign runs for `seed` (the generator's default policy), tagged with its seed.
program::Program program_for_seed(uint64_t seed);
// The same program with its eager result (for PipelineOptions::eager_reference).
GeneratedProgram generated_for_seed(uint64_t seed);

// The program a finding ran: regenerated from its recipe text (a mutant's or a swarm policy's
// program) when it has one, else from its seed.
program::Program program_for(uint64_t seed, const std::string& recipe);

// A bucket that is a finding: a failed oracle or a crash (not a rejection or a triage bucket).
bool is_finding_bucket(const std::string& bucket);

struct Finding {
  std::string bucket;  // "fail:<oracle>", "crash:signal6", "wrong-rejection:<kind>", ...
  uint64_t seed = 0;
  std::string recipe;     // a guided campaign's mutant: its recipe (fuzz/recipe.h); "" for a seed
  std::string detail;     // the verdict's text, or a crash's SF_CHECK line, on one line
  std::string signature;  // bucket + normalized message (fuzz/outcome.h): what findings dedup on
  double elapsed = 0;     // seconds since the campaign started
  bool first_of_bucket = false;     // the first finding in this bucket
  bool first_of_signature = false;  // the first finding with this signature
};

struct CampaignOptions {
  double seconds = 60;
  uint64_t first_seed = 1;
  // Worker processes at once; worker j runs seeds first_seed + j, + jobs, + 2 jobs, ...
  int jobs = 1;
  // One shard of a campaign split over machines (`--shard I/N`): this process runs the seeds
  // s with (s - first_seed) % shards == shard, its worker j those of them with
  // (s - first_seed) / shards % jobs == j. N shards of J jobs run exactly the seeds, and give the
  // verdicts, of one campaign of N*J jobs.
  int shard = 0, shards = 1;
  // How many seeds from first_seed the campaign (all its shards together) runs; 0: no bound.
  // With a bound a campaign ends when its seeds are done or its time box is up, whichever first.
  uint64_t seeds = 0;
  // Coverage-guided: a worker keeps the programs that reach a feature it had not seen
  // (fuzz/features.h) and runs mutants of them (fuzz/recipe.h) three times in four. corpus_dir:
  // where kept programs are written as .sfz files with a "# recipe:" line, and read back when a
  // worker starts (so a replaced worker, or a later campaign, resumes and grows the corpus).
  bool guided = false;
  std::string corpus_dir;
  // Swarm testing (fuzz/gen/swarm.h): half of the fresh seeds are drawn under a policy of their
  // slot and slice, longer and deeper as the slot's programs grow; the seeds' recipes name it.
  // swarm_origin: the seed the growth counts from (first_seed when 0; a resumed campaign passes
  // its first night's, so programs go on growing night after night).
  bool swarm = false;
  uint64_t swarm_origin = 0;
  // The backend each worker runs the programs on (made in the worker; null: the CPU backend).
  std::function<std::unique_ptr<backend::Backend>()> make_backend;
  // When set, workers are fork+exec'd as `/proc/self/exe campaign-worker` with their WorkerArgs
  // (fuzz/worker_args.h: this backend, the oracles, memory cap, corpus and their plan), the pipe
  // on fd 3 and stderr on the slot's file; the subcommand must end in run_campaign_worker. A
  // CUDA backend needs this (a CUDA context does not survive fork). Empty: workers are forked and
  // run in the parent's image.
  std::string exec_backend;
  double timeout = 10;      // a program making no progress for this long is a hang
  size_t memory_mb = 4096;  // the worker's memory cap; past it a program is crash:oom
  // A worker whose resident memory has grown past this many MB (0: half of memory_mb) exits
  // cleanly between programs and a fresh one goes on, as libFuzzer's -rss_limit_mb recycles:
  // after hundreds of thousands of programs a worker's caches and memo tables are large, and one
  // stalled past the watchdog twice in an hour on programs that run in 0.1 s alone.
  size_t recycle_rss_mb = 0;
  MemoryCap memory_cap = MemoryCap::kAddressSpace;  // kDataSegment for a CUDA worker
  oracles::PipelineOptions pipeline;
  bool quiet_workers = false;  // workers' stderr (SF_CHECK reports) goes to /dev/null
  // Called for every program that is not a pass or a rejection; return true to stop early.
  std::function<bool(const Finding&)> on_finding;
  // Called about once a second with the running counts.
  std::function<void(double elapsed, uint64_t programs, const std::map<std::string, uint64_t>&)>
      on_progress;
  // Called about once a second with the distinct features reached so far.
  std::function<void(double elapsed, const std::unordered_set<uint64_t>& features)> on_coverage;
  // Called for every program's verdict, findings included (tests check that no seed is lost).
  std::function<void(uint64_t seed, const std::string& bucket)> on_verdict;
  // Called with each new worker's pid (tests kill workers at random moments).
  std::function<void(int pid)> on_worker_start;
  // When set, the campaign ends early once *stop is non-zero (a SIGINT/SIGTERM handler sets it;
  // the loop checks it as it checks its time box): no program starts, the workers are killed and
  // reaped, the verdicts they had sent are recorded, and the programs in flight are not run
  // (neither counted nor blamed: a worker we stop is not a crash). Its workers then ignore SIGINT
  // and SIGTERM, so a terminal's Ctrl-C, which reaches the whole process group, stops the
  // campaign through this flag only.
  const volatile std::sig_atomic_t* stop = nullptr;
};

struct CampaignResult {
  double seconds = 0;
  uint64_t programs = 0;
  std::map<std::string, uint64_t> buckets;
  std::map<std::string, uint64_t> first_seed_of;  // per non-pass, non-rejection bucket
  uint64_t workers_lost = 0;   // workers that died between programs (replaced, nothing lost)
  uint64_t features = 0;       // distinct features reached: engine-level (fuzz/features.h) + edges
  uint64_t edge_features = 0;  // of which edge features, in an instrumented build (fuzz/sancov.h)
  std::unordered_set<uint64_t> feature_set;  // the features' hashes (merged across shards)
  bool stopped_early = false;
  bool interrupted = false;  // ended by CampaignOptions::stop before its time box
  uint64_t not_run = 0;      // programs in flight when it was interrupted (not in `programs`)
  // The first seed after every seed a slot started: where a resumed campaign goes on (seeds a
  // slower slot had not reached below it are left out).
  uint64_t resume_seed = 0;
  // Non-empty when a worker's backend was unavailable (the campaign stopped: no program could
  // run, and counting each as a failure would bury the reason).
  std::string backend_unavailable;
};

CampaignResult run_campaign(const CampaignOptions& opts);

// The seed a campaign's swarm growth counts from: opts.swarm_origin, else its first seed.
uint64_t swarm_origin_of(const CampaignOptions& opts);

// A worker's loop (for an exec'd worker process, see exec_backend), lines on `fd`; never
// returns.
[[noreturn]] void run_campaign_worker(int fd, int err_fd, const WorkerPlan& plan,
                                      const CampaignOptions& o);

// The seeds a campaign's options give: slot j's first seed, the stride of every slot, and the end
// (exclusive; UINT64_MAX when unbounded).
struct SeedPlan {
  uint64_t first = 1;    // slot 0's first seed
  uint64_t spacing = 1;  // between one slot's first seed and the next slot's
  uint64_t stride = 1;   // between a slot's consecutive seeds
  uint64_t end = UINT64_MAX;
  uint64_t first_of(uint64_t slot) const { return first + slot * spacing; }
};
SeedPlan seed_plan(const CampaignOptions& opts);

}  // namespace sf::fuzz
