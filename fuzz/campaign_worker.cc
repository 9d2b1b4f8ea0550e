// A campaign worker's loop, in the worker process (forked, or exec'd as `campaign-worker`): runs
// programs and reports each over its pipe as WorkerMessages (fuzz/worker_message.h).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <new>
#include <unordered_set>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/check.h"
#include "fuzz/campaign.h"
#include "fuzz/corpus.h"
#include "fuzz/features.h"
#include "fuzz/gen/swarm.h"
#include "fuzz/isolated.h"
#include "fuzz/outcome.h"
#include "fuzz/recipe.h"
#include "fuzz/run_generated.h"
#include "fuzz/sancov.h"
#include "fuzz/utf8.h"
#include "fuzz/worker_message.h"

namespace sf::fuzz {

namespace {

// A worker that caught an exception other than bad_alloc exits with this (crash:exit87 when a
// program was in flight).
constexpr int kWorkerExceptionExitCode = 87;

// The process's resident memory in MB (/proc/self/statm), 0 when it cannot be read.
size_t resident_mb() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  int read = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (read != 2) return 0;
  return static_cast<size_t>(resident * static_cast<unsigned long long>(sysconf(_SC_PAGESIZE)) >>
                             20);
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void send(FILE* out, const WorkerMessage& m) {
  std::fprintf(out, "%s\n", m.format().c_str());
  std::fflush(out);
}

}  // namespace

// Worker: runs programs until `deadline`, writing "start\tRECIPE\tFRESH" before each (FRESH: 1
// when it is the next of the worker's own seeds, whose successor a replacement goes on from) and
// "done\tRECIPE\tBUCKET\tDETAIL\tFEATURES" after it (FEATURES: the hashes of the features this
// worker had not seen, as hash_list_text writes them with commas), so the parent knows which
// program was in flight at a crash. Random mode runs seeds first, first + stride, ...; guided mode
// (o.guided) also keeps the programs that reached a new feature (in o.corpus_dir, read when a
// worker starts) and three times in four runs a mutant of one of them instead of the next seed. A
// slot's first worker (replay_share >= 0) first runs its share of the corpus (entry i when i % jobs
// is its share), to learn the features reached so far; a replacement does not, so an entry that now
// crashes costs one worker, not every one.
void run_campaign_worker(int fd, int err_fd, const WorkerPlan& plan, const CampaignOptions& o) {
  const uint64_t stride = plan.stride, end = plan.end;
  const double deadline = plan.deadline;
  const int64_t replay_share = plan.replay_share;
  if (o.quiet_workers) {
    silence_stderr();
    err_fd = -1;
  } else if (err_fd >= 0) {
    dup2(err_fd, 2);
  }
  limit_memory(o.memory_mb, o.memory_cap);
  signal(SIGPIPE, SIG_DFL);  // the parent gone: die quietly
  try {
    std::unique_ptr<backend::Backend> be =
        o.make_backend ? o.make_backend() : backend::make_cpu_backend();
    SF_CHECK(be) << "the campaign's backend factory made no backend";
    FILE* out = fdopen(fd, "w");
    std::string why;
    if (!be->available(&why)) {  // in this process (its limits, its context), not the parent's
      send(out, WorkerMessage::unavailable(why));
      std::fclose(out);
      _exit(0);
    }
    std::unordered_set<uint64_t> seen;
    std::vector<Recipe> corpus, replay;
    if (o.guided && !o.corpus_dir.empty()) corpus = read_corpus(o.corpus_dir);
    for (size_t i = 0; replay_share >= 0 && i < corpus.size(); ++i) {
      if (i % std::max(1, o.jobs) == static_cast<uint64_t>(replay_share)) {
        replay.push_back(corpus[i]);
      }
    }
    SeedSource rng((plan.first + plan.restart * 0x632be59bd9b4e019ULL) * 0x9e3779b97f4a7c15ULL + 1);
    uint64_t seed = plan.first;
    while (now_seconds() < deadline) {
      if (replay.empty() && seed >= end) break;  // a bounded campaign's seeds are done
      Recipe recipe;
      bool fresh_seed = false;
      if (!replay.empty()) {  // what earlier workers kept: run first, to learn its features
        recipe = replay.back();
        replay.pop_back();
      } else if (!o.guided || corpus.empty() || rng.chance(1, 4)) {
        recipe.seed = seed;
        if (plan.swarm) recipe.swarm = campaign_swarm_key(seed, plan.swarm_origin, stride);
        seed += stride;
        fresh_seed = true;
      } else {
        recipe = mutate_recipe(corpus[rng.pick(corpus.size())], rng);
      }
      if (err_fd >= 0) {  // the file keeps only this program's reports (offset shared with fd 2)
        if (!rewind_stderr_file(err_fd)) err_fd = -1;
      }
      send(out, WorkerMessage::start(recipe, fresh_seed));
      GeneratedProgram g = generated_for_recipe(recipe);
      oracles::PipelineOptions opts = o.pipeline;
      opts.backend = be.get();
      reset_edge_counters();
      oracles::PipelineResult result = run_generated(g, opts);
      std::vector<uint64_t> features;
      append_edge_features(&features);  // the pipeline's edges only, in an instrumented build
      Outcome outcome = outcome_of(result.verdict);
      for (uint64_t f : program_features(g.program, result, outcome.bucket)) {
        features.push_back(f & ~kEdgeFeatureBit);
      }
      std::vector<uint64_t> fresh;
      for (uint64_t f : features) {
        if (seen.insert(f).second) fresh.push_back(f);
      }
      if (o.guided && !fresh.empty() && !is_finding_bucket(outcome.bucket)) {
        corpus.push_back(recipe);
        if (!o.corpus_dir.empty()) write_corpus_entry(o.corpus_dir, recipe, g.program);
      }
      outcome.detail = printable(utf8_prefix(outcome.detail, 4000));  // one pipe line
      send(out, WorkerMessage::done(recipe, outcome.bucket,
                                    is_plain_bucket(outcome.bucket) ? "" : outcome.detail, fresh));
      // Grown too large: a clean exit between programs, and the campaign starts a fresh worker.
      if (resident_mb() > (o.recycle_rss_mb ? o.recycle_rss_mb : o.memory_mb / 2)) break;
    }
    std::fclose(out);
  } catch (const std::bad_alloc&) {
    _exit(kOomExitCode);
  } catch (...) {
    // Anything else (a corpus file that cannot be written...) ends this worker only: never
    // unwind into the forked copy of the parent's loop, whose destructors would kill siblings.
    _exit(kWorkerExceptionExitCode);
  }
  _exit(0);
}

}  // namespace sf::fuzz
