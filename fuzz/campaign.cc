// The campaign loop: forked workers (--jobs of them) run seeds and report each verdict over a
// pipe; the parent polls them all, records verdicts, replaces a worker that crashed, hung, ran out
// of memory or vanished, and stops at the deadline. The worker's stderr goes to a temporary file,
// so a crash is recorded with its SF_CHECK line (the file is emptied before each program). A stop
// request (CampaignOptions::stop) ends it like the deadline, but at once: workers are killed, and
// the programs they had in flight are not run.
#include "fuzz/campaign.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/base/check.h"
#include "fuzz/features.h"
#include "fuzz/isolated.h"
#include "fuzz/outcome.h"
#include "fuzz/recipe.h"
#include "fuzz/sancov.h"
#include "fuzz/worker_message.h"
#include "fuzz/worker_process.h"

namespace sf::fuzz {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

program::Program program_for_seed(uint64_t seed) { return generated_for_seed(seed).program; }

GeneratedProgram generated_for_seed(uint64_t seed) {
  Recipe r;
  r.seed = seed;
  return generated_for_recipe(r);
}

program::Program program_for(uint64_t seed, const std::string& recipe) {
  if (recipe.empty()) return program_for_seed(seed);
  std::optional<Recipe> parsed = Recipe::parse(recipe);
  SF_CHECK(parsed) << "a finding with a bad recipe: " << recipe;
  return generated_for_recipe(*parsed).program;
}

uint64_t swarm_origin_of(const CampaignOptions& opts) {
  return opts.swarm_origin ? opts.swarm_origin : opts.first_seed;
}

bool is_finding_bucket(const std::string& bucket) {
  return bucket.rfind("fail:", 0) == 0 || bucket.rfind("crash:", 0) == 0;
}

SeedPlan seed_plan(const CampaignOptions& opts) {
  SeedPlan p;
  const uint64_t shards = std::max(1, opts.shards), jobs = std::max(1, opts.jobs);
  p.first = opts.first_seed + static_cast<uint64_t>(opts.shard);
  p.spacing = shards;
  p.stride = shards * jobs;
  if (opts.seeds > 0) {
    p.end = opts.first_seed + opts.seeds;
    if (p.end < opts.first_seed) p.end = UINT64_MAX;  // past the last seed: no bound
  }
  return p;
}

namespace {

// What a slot's worker is doing. A slot runs one worker at a time:
//   kEmpty   --start a worker (time and seeds left)-->       kIdle
//   kIdle    --"start" message-->                            kRunning
//   kRunning --"done" message-->                             kIdle
//   kRunning --no line for opts.timeout (killed)-->          kHung
//   kIdle    --no line for opts.timeout (killed)-->          kStalled
//   any      --its pipe ends (exit, crash, kill)-->          kEmpty
// The pipe's end is where a crash is recorded: in kRunning the program in flight crashed the
// worker (an abort, out of memory, an exit), in kHung it hung; in kIdle or kStalled there was no
// program to blame (a clean exit is the deadline; anything else a lost worker, replaced).
enum class SlotState { kEmpty, kIdle, kRunning, kHung, kStalled };

struct Slot {
  SlotState state = SlotState::kEmpty;
  std::unique_ptr<Worker> w;
  StderrFile err;
  uint64_t next_seed = 0;        // a replacement worker goes on from here
  Recipe current;                // the program in flight (kRunning, kHung)
  uint64_t workers_started = 0;  // only the first replays the corpus,
  bool recycled = false;         // and one replacing a worker that exited cleanly (recycled)
  double last_line = 0;          // for the watchdog
  bool in_program() const { return state == SlotState::kRunning || state == SlotState::kHung; }
};

class CampaignLoop {
 public:
  explicit CampaignLoop(const CampaignOptions& opts)
      : opts_(opts),
        jobs_(std::max(1, opts.jobs)),
        plan_(seed_plan(opts)),
        start_(now_seconds()),
        deadline_(start_ + opts.seconds),
        slots_(jobs_) {
    for (uint64_t j = 0; j < jobs_; ++j) slots_[j].next_seed = plan_.first_of(j);
  }

  CampaignResult run() {
    double next_report = start_ + 1.0;
    for (;;) {
      if (stop_requested() && !r_.stopped_early) {
        interrupt();
        break;
      }
      if (!start_workers()) break;  // none running, none to start
      if (!poll_workers()) break;   // cannot watch the workers (they die with the slots)
      if (r_.stopped_early) {
        for (Slot& slot : slots_) drop(slot);
        break;
      }
      double now = now_seconds();
      if (opts_.on_coverage && now >= next_report) opts_.on_coverage(now - start_, r_.feature_set);
      if (opts_.on_progress && now >= next_report) {
        opts_.on_progress(now - start_, r_.programs, r_.buckets);
        next_report = now + 1.0;
      }
    }
    r_.seconds = now_seconds() - start_;
    for (const Slot& slot : slots_) r_.resume_seed = std::max(r_.resume_seed, slot.next_seed);
    return std::move(r_);
  }

 private:
  bool stop_requested() const { return opts_.stop && *opts_.stop != 0; }

  // Records one verdict; returns true when the caller asked to stop.
  bool record(const std::string& bucket, const Recipe& recipe, const std::string& detail) {
    uint64_t s = recipe.seed;
    ++r_.programs;
    ++r_.buckets[bucket];
    if (opts_.on_verdict) opts_.on_verdict(s, bucket);
    if (is_plain_bucket(bucket)) return false;
    Finding f;
    f.bucket = bucket;
    f.seed = s;
    if (!recipe.plain()) f.recipe = recipe.str();
    f.detail = detail;
    f.signature = signature({bucket, detail});
    f.elapsed = now_seconds() - start_;
    f.first_of_bucket = !r_.first_seed_of.count(bucket);
    f.first_of_signature = signatures_.insert(f.signature).second;
    if (f.first_of_bucket) r_.first_seed_of[bucket] = s;
    return opts_.on_finding && opts_.on_finding(f);
  }

  // kEmpty -> kIdle for every slot with time and seeds left; whether any worker runs.
  bool start_workers() {
    double now = now_seconds();
    bool running = false;
    for (Slot& slot : slots_) {
      if (slot.state == SlotState::kEmpty && now < deadline_ && slot.next_seed < plan_.end &&
          !r_.stopped_early) {
        start_worker(slot, now);
      }
      running = running || slot.state != SlotState::kEmpty;
    }
    return running;
  }

  void start_worker(Slot& slot, double now) {
    slot.w = std::make_unique<Worker>();
    WorkerPlan wp;
    wp.first = slot.next_seed;
    wp.stride = plan_.stride;
    wp.end = plan_.end;
    wp.deadline = deadline_;
    // A replacement after a crash does not replay (an entry that now crashes would cost every
    // worker); one after a recycle does, to learn the features its predecessor had seen.
    bool replay = slot.workers_started == 0 || slot.recycled;
    slot.recycled = false;
    wp.replay_share = replay ? static_cast<int64_t>(&slot - slots_.data()) : -1;
    wp.restart = slot.workers_started++;
    wp.swarm = opts_.swarm;
    wp.swarm_origin = swarm_origin_of(opts_);
    int err_fd = slot.err.fd;
    if (opts_.exec_backend.empty()) {
      slot.w->start([&](int out_fd) { run_campaign_worker(out_fd, err_fd, wp, opts_); },
                    opts_.stop != nullptr);
    } else {
      // fork+exec: a fresh process image (a CUDA context does not survive fork). The pipe goes
      // to fd 3, stderr to the slot's file; the loop's parameters go on the command line.
      WorkerArgs args;
      args.plan = wp;
      args.backend = opts_.exec_backend;
      args.pipeline = opts_.pipeline;
      args.memory_mb = opts_.memory_mb;
      if (opts_.guided) args.corpus = opts_.corpus_dir;
      args.jobs = static_cast<int>(jobs_);
      args.quiet = opts_.quiet_workers;
      std::vector<std::string> strings = args.to_argv("/proc/self/exe");
      std::vector<char*> argv;
      for (std::string& a : strings) argv.push_back(a.data());
      argv.push_back(nullptr);
      slot.w->start([&](int out_fd) { exec_worker(argv.data(), out_fd, err_fd); },
                    opts_.stop != nullptr);
    }
    slot.state = SlotState::kIdle;
    slot.last_line = now;
    if (opts_.on_worker_start) opts_.on_worker_start(slot.w->pid);
  }

  // Waits up to 200 ms for lines, takes them, ends the slots whose pipes ended and runs the
  // watchdog; false when poll itself failed.
  bool poll_workers() {
    std::vector<pollfd> fds;
    std::vector<Slot*> polled;
    for (Slot& slot : slots_) {
      if (slot.state == SlotState::kEmpty) continue;
      fds.push_back({slot.w->lines.fd, POLLIN, 0});
      polled.push_back(&slot);
    }
    int ready = poll(fds.data(), fds.size(), 200);
    if (ready < 0 && errno != EINTR) return false;
    double now = now_seconds();
    for (size_t i = 0; i < polled.size(); ++i) {
      Slot& slot = *polled[i];
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        bool open = slot.w->lines.read_some();
        std::string line;
        while (!r_.stopped_early && slot.w->lines.take_line(&line)) {
          // The clock now, not the poll's: recording a finding may have minimized it for a
          // while, and the other workers' waiting lines must not look that old.
          slot.last_line = now_seconds();
          if (!on_message(slot, line)) break;
        }
        if (!open) {
          on_pipe_end(slot);
          continue;
        }
      }
      if (r_.stopped_early) continue;
      if (now - slot.last_line > opts_.timeout && slot.state != SlotState::kHung &&
          slot.state != SlotState::kStalled) {
        // kRunning -> kHung, kIdle -> kStalled: its pipe ends next, and on_pipe_end says why.
        slot.state = slot.state == SlotState::kRunning ? SlotState::kHung : SlotState::kStalled;
        slot.w->kill();
      }
    }
    return true;
  }

  // One message from a worker; false when the campaign stops early.
  bool on_message(Slot& slot, const std::string& line) {
    std::optional<WorkerMessage> m = WorkerMessage::parse(line);
    SF_CHECK(m) << "a campaign worker sent a line no worker writes: " << line;
    switch (m->kind) {
      case WorkerMessage::Kind::kUnavailable:
        r_.backend_unavailable = m->why;
        r_.stopped_early = true;
        return false;
      case WorkerMessage::Kind::kStart:
        slot.current = m->recipe;
        // A fresh seed is used once it starts: a replacement worker goes on after it, whether it
        // finishes or crashes (mutants and corpus entries do not move the slot's seeds).
        if (m->fresh_seed) slot.next_seed = m->recipe.seed + plan_.stride;
        slot.state = SlotState::kRunning;
        return true;
      case WorkerMessage::Kind::kDone:
        break;
    }
    slot.state = SlotState::kIdle;
    // The features new to that worker: the campaign's coverage is their union.
    for (uint64_t f : m->new_features) {
      if (r_.feature_set.insert(f).second && (f & kEdgeFeatureBit)) ++r_.edge_features;
    }
    r_.features = r_.feature_set.size();
    if (record(m->bucket, slot.current, m->detail)) {
      r_.stopped_early = true;
      return false;
    }
    return true;
  }

  // A worker's pipe ended (it exited, crashed, or was killed): any state -> kEmpty, recording
  // what it was doing.
  void on_pipe_end(Slot& slot) {
    int status = slot.w->reap();
    bool watchdog = slot.state == SlotState::kHung || slot.state == SlotState::kStalled;
    bool clean_exit = !watchdog && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    // The workers of a campaign that can be stopped ignore SIGINT and SIGTERM; one that died of
    // them all the same was stopped from outside, not crashed: its program is not run.
    bool stopped = stop_requested() && !watchdog && WIFSIGNALED(status) &&
                   (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM);
    if (!slot.in_program() || stopped) {
      // Between programs: a clean exit is the deadline or a recycle (the worker grew past its
      // resident limit); anything else lost the worker, which had no program to blame. Either
      // way a fresh worker goes on (if there is time left).
      if (!clean_exit && !stop_requested()) ++r_.workers_lost;
      slot.recycled = clean_exit && !slot.in_program();
      if (slot.in_program()) ++r_.not_run;
    } else if (!r_.stopped_early) {
      // The worker died inside a program: an aborting engine bug, a hang, out of memory, or an
      // exit (an exception that escaped the pipeline).
      bool hung = slot.state == SlotState::kHung;
      std::string report = hung ? "" : crash_report_line(read_stderr_file(slot.err.fd));
      r_.stopped_early = record(crash_bucket(status, hung), slot.current, printable(report));
    }
    slot.w.reset();
    slot.state = SlotState::kEmpty;
  }

  // Stopped from outside (opts.stop): every worker is killed and reaped; the verdicts it had sent
  // are recorded, the program it had in flight is not run (a worker we kill is not a crash).
  void interrupt() {
    r_.interrupted = true;
    for (Slot& slot : slots_) {
      if (slot.state == SlotState::kEmpty) continue;
      slot.w->kill();
      int status = slot.w->reap();
      // What it wrote before it died, without waiting: a process it started (a cross-check's
      // cvc5) may still hold the pipe open.
      fcntl(slot.w->lines.fd, F_SETFL, fcntl(slot.w->lines.fd, F_GETFL) | O_NONBLOCK);
      while (slot.w->lines.read_some()) {
      }
      std::string line;
      while (!r_.stopped_early && slot.w->lines.take_line(&line)) on_message(slot, line);
      if (slot.state == SlotState::kHung && !r_.stopped_early) {
        // A hang the watchdog found before the stop (its worker was being killed) is a finding.
        r_.stopped_early = record(crash_bucket(status, true), slot.current, "");
      } else {
        r_.not_run += slot.in_program() ? 1 : 0;
      }
      slot.w.reset();
      slot.state = SlotState::kEmpty;
    }
  }

  // Kills and reaps the slot's worker, recording nothing (the campaign stopped early).
  void drop(Slot& slot) {
    if (slot.state == SlotState::kEmpty) return;
    slot.w->kill();
    slot.w->reap();
    slot.w.reset();
    slot.state = SlotState::kEmpty;
  }

  const CampaignOptions& opts_;
  const uint64_t jobs_;
  const SeedPlan plan_;
  const double start_, deadline_;
  // Worker slot j runs the seeds of seed_plan (first_seed + j, + jobs, + 2 jobs, ... when not
  // sharded); a replacement worker goes on from the seed after the last one the slot finished or
  // lost.
  std::vector<Slot> slots_;
  std::set<std::string> signatures_;
  CampaignResult r_;
};

}  // namespace

CampaignResult run_campaign(const CampaignOptions& opts) { return CampaignLoop(opts).run(); }

}  // namespace sf::fuzz
