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
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/program/printer.h"
#include "fuzz/corpus.h"
#include "fuzz/features.h"
#include "fuzz/files.h"
#include "fuzz/gen/program_gen.h"
#include "fuzz/isolated.h"
#include "fuzz/line_reader.h"
#include "fuzz/outcome.h"
#include "fuzz/recipe.h"
#include "fuzz/run_generated.h"
#include "fuzz/sancov.h"
#include "fuzz/utf8.h"

namespace sf::fuzz {

namespace {

// A worker that caught an exception other than bad_alloc exits with this (crash:exit87 when a
// program was in flight).
constexpr int kWorkerExceptionExitCode = 87;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The worker's stderr: one temporary file for the whole campaign.
struct StderrFile {
  int fd = make_stderr_file();
  ~StderrFile() {
    if (fd >= 0) close(fd);
  }
};

// A forked worker and the read end of its pipe. Killed and reaped when it goes out of scope, so
// an exception in the parent (a report that cannot be written) leaves no orphan behind.
struct Worker {
  pid_t pid = -1;
  LineReader lines;
  bool reaped = false;

  // ignore_stop_signals: the worker ignores SIGINT and SIGTERM (also across exec), so that only
  // the campaign decides what a Ctrl-C sent to the whole process group means.
  template <typename Body>
  void start(Body body, bool ignore_stop_signals) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw_user_error(UserErrorKind::kUnsupported, "pipe() failed");
    pid_t parent = getpid();
    pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      throw_user_error(UserErrorKind::kUnsupported, "fork() failed");
    }
    if (pid == 0) {
      // Never outlive the campaign: a worker dies with it (kill -9, or a second Ctrl-C).
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(0);  // it died before the line above
      if (ignore_stop_signals) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
      }
      close(fds[0]);
      body(fds[1]);
      _exit(0);
    }
    close(fds[1]);
    lines.fd = fds[0];
  }
  void kill() {
    if (pid > 0 && !reaped) ::kill(pid, SIGKILL);
  }
  int reap() {
    int status = 0;
    if (pid > 0 && !reaped) {
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      reaped = true;
    }
    return status;
  }
  ~Worker() {
    kill();
    reap();
    if (lines.fd >= 0) close(lines.fd);
  }
};

// In the child of a fork: the pipe to fd 3, stderr to the slot's file, then exec. Only
// async-signal-safe calls between fork and exec (the argv is built before).
[[noreturn]] void exec_worker(char* const* argv, int out_fd, int err_fd) {
  if (err_fd >= 0) dup2(err_fd, 2);
  if (out_fd == 3) {
    fcntl(3, F_SETFD, 0);  // dup2 onto itself would keep close-on-exec
  } else {
    dup2(out_fd, 3);
  }
  execv(argv[0], argv);
  _exit(127);  // exec failed: the parent records a lost worker
}

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
[[noreturn]] void worker(int fd, int err_fd, const WorkerPlan& plan, const CampaignOptions& o) {
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
      for (char& c : why) c = (c == '\n' || c == '\t') ? ' ' : c;
      std::fprintf(out, "unavailable\t%s\n", why.c_str());
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
        seed += stride;
        fresh_seed = true;
      } else {
        recipe = mutate_recipe(corpus[rng.pick(corpus.size())], rng);
      }
      if (err_fd >= 0) {  // the file keeps only this program's reports (offset shared with fd 2)
        if (!rewind_stderr_file(err_fd)) err_fd = -1;
      }
      std::string id = recipe.str();
      std::fprintf(out, "start\t%s\t%d\n", id.c_str(), fresh_seed ? 1 : 0);
      std::fflush(out);
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
      std::fprintf(out, "done\t%s\t%s\t%s\t%s\n", id.c_str(), outcome.bucket.c_str(),
                   is_plain_bucket(outcome.bucket) ? "" : outcome.detail.c_str(),
                   hash_list_text(fresh, ',').c_str());
      std::fflush(out);
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

}  // namespace

program::Program program_for_seed(uint64_t seed) { return generated_for_seed(seed).program; }

GeneratedProgram generated_for_seed(uint64_t seed) {
  Recipe r;
  r.seed = seed;
  return generated_for_recipe(r);
}

bool is_finding_bucket(const std::string& bucket) {
  return bucket.rfind("fail:", 0) == 0 || bucket.rfind("crash:", 0) == 0;
}

void run_campaign_worker(int fd, int err_fd, const WorkerPlan& plan, const CampaignOptions& o) {
  worker(fd, err_fd, plan, o);
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

CampaignResult run_campaign(const CampaignOptions& opts) {
  CampaignResult r;
  double start = now_seconds(), deadline = start + opts.seconds;
  double next_report = start + 1.0;
  const uint64_t jobs = std::max(1, opts.jobs);
  std::set<std::string> signatures;
  // Records one verdict; returns true when the caller asked to stop.
  auto record = [&](const std::string& bucket, const Recipe& recipe, const std::string& detail) {
    uint64_t s = recipe.seed;
    ++r.programs;
    ++r.buckets[bucket];
    if (opts.on_verdict) opts.on_verdict(s, bucket);
    if (is_plain_bucket(bucket)) return false;
    Finding f;
    f.bucket = bucket;
    f.seed = s;
    if (!recipe.overrides.empty()) f.recipe = recipe.str();
    f.detail = detail;
    f.signature = signature({bucket, detail});
    f.elapsed = now_seconds() - start;
    f.first_of_bucket = !r.first_seed_of.count(bucket);
    f.first_of_signature = signatures.insert(f.signature).second;
    if (f.first_of_bucket) r.first_seed_of[bucket] = s;
    return opts.on_finding && opts.on_finding(f);
  };

  // Worker slot j runs the seeds of seed_plan (first_seed + j, + jobs, + 2 jobs, ... when not
  // sharded); a replacement worker goes on from the seed after the last one the slot finished or
  // lost.
  const SeedPlan plan = seed_plan(opts);
  struct Slot {
    std::unique_ptr<Worker> w;
    StderrFile err;
    uint64_t next_seed = 0;
    Recipe current;  // the program in flight
    bool in_flight = false, timed_out = false;
    uint64_t workers_started = 0;  // only the first replays the corpus
    double last_line = 0;          // for the watchdog: a program making no progress is a hang
  };
  std::vector<Slot> slots(jobs);
  for (uint64_t j = 0; j < jobs; ++j) slots[j].next_seed = plan.first_of(j);

  auto stop_requested = [&] { return opts.stop && *opts.stop != 0; };
  // A worker's pipe ended (it exited, crashed, or was killed): record what it was doing.
  auto finish_worker = [&](Slot& slot) {
    int status = slot.w->reap();
    bool clean_exit = !slot.timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    // The workers of a campaign that can be stopped ignore SIGINT and SIGTERM; one that died of
    // them all the same was stopped from outside, not crashed: its program is not run.
    bool stopped = stop_requested() && !slot.timed_out && WIFSIGNALED(status) &&
                   (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM);
    if (!slot.in_flight || stopped) {
      // Between programs: a clean exit is the deadline; anything else lost the worker, which
      // had no program to blame. Either way a fresh worker goes on (if there is time left).
      if (!clean_exit && !stop_requested()) ++r.workers_lost;
      if (slot.in_flight) ++r.not_run;
    } else if (!r.stopped_early) {
      // The worker died inside a program: an aborting engine bug, a hang, out of memory, or an
      // exit (an exception that escaped the pipeline).
      std::string report = slot.timed_out ? "" : crash_report_line(read_stderr_file(slot.err.fd));
      r.stopped_early =
          record(crash_bucket(status, slot.timed_out), slot.current, printable(report));
    }
    slot.w.reset();
    slot.in_flight = slot.timed_out = false;
  };
  // One line from a worker; false when the campaign stops early.
  auto handle_line = [&](Slot& slot, const std::string& s) {
    size_t t1 = s.find('\t');
    if (s.substr(0, t1) == "unavailable") {
      r.backend_unavailable = t1 == std::string::npos ? "?" : s.substr(t1 + 1);
      r.stopped_early = true;
      return false;
    }
    if (s.substr(0, t1) == "start") {
      size_t t2 = s.find('\t', t1 + 1);
      std::optional<Recipe> recipe = Recipe::parse(s.substr(t1 + 1, t2 - t1 - 1));
      SF_CHECK(recipe && t2 != std::string::npos) << "worker sent a bad start line: " << s;
      slot.current = *recipe;
      // A fresh seed is used once it starts: a replacement worker goes on after it, whether it
      // finishes or crashes (mutants and corpus entries do not move the slot's seeds).
      if (s.substr(t2 + 1) == "1") slot.next_seed = recipe->seed + plan.stride;
      slot.in_flight = true;
      return true;
    }
    size_t t2 = s.find('\t', t1 + 1), t3 = s.find('\t', t2 + 1), t4 = s.find('\t', t3 + 1);
    slot.in_flight = false;
    // The features new to that worker, in hex: the campaign's coverage is their union.
    std::optional<std::vector<uint64_t>> fresh =
        parse_hash_list(t4 == std::string::npos ? "" : s.substr(t4 + 1), ',');
    SF_CHECK(fresh) << "worker sent a bad feature list: " << s;
    for (uint64_t f : *fresh) {
      if (r.feature_set.insert(f).second && (f & kEdgeFeatureBit)) ++r.edge_features;
    }
    r.features = r.feature_set.size();
    if (record(s.substr(t2 + 1, t3 - t2 - 1), slot.current, s.substr(t3 + 1, t4 - t3 - 1))) {
      r.stopped_early = true;
      return false;
    }
    return true;
  };

  // Stopped from outside (opts.stop): every worker is killed and reaped; the verdicts it had sent
  // are recorded, the program it had in flight is not run (a worker we kill is not a crash).
  auto interrupt = [&] {
    r.interrupted = true;
    for (Slot& slot : slots) {
      if (!slot.w) continue;
      slot.w->kill();
      int status = slot.w->reap();
      // What it wrote before it died, without waiting: a process it started (a cross-check's
      // cvc5) may still hold the pipe open.
      fcntl(slot.w->lines.fd, F_SETFL, fcntl(slot.w->lines.fd, F_GETFL) | O_NONBLOCK);
      while (slot.w->lines.read_some()) {
      }
      std::string line;
      while (!r.stopped_early && slot.w->lines.take_line(&line)) handle_line(slot, line);
      if (slot.in_flight && slot.timed_out && !r.stopped_early) {
        // A hang the watchdog found before the stop (its worker was being killed) is a finding.
        r.stopped_early = record(crash_bucket(status, true), slot.current, "");
      } else {
        r.not_run += slot.in_flight ? 1 : 0;
      }
      slot.w.reset();
      slot.in_flight = slot.timed_out = false;
    }
  };

  for (;;) {
    if (stop_requested() && !r.stopped_early) {
      interrupt();
      break;
    }
    double now = now_seconds();
    bool running = false;
    for (Slot& slot : slots) {
      if (!slot.w && now < deadline && slot.next_seed < plan.end && !r.stopped_early) {
        slot.w = std::make_unique<Worker>();
        WorkerPlan wp;
        wp.first = slot.next_seed;
        wp.stride = plan.stride;
        wp.end = plan.end;
        wp.deadline = deadline;
        wp.replay_share = slot.workers_started ? -1 : static_cast<int64_t>(&slot - slots.data());
        wp.restart = slot.workers_started++;
        int err_fd = slot.err.fd;
        if (opts.exec_backend.empty()) {
          slot.w->start([&](int out_fd) { worker(out_fd, err_fd, wp, opts); },
                        opts.stop != nullptr);
        } else {
          // fork+exec: a fresh process image (a CUDA context does not survive fork). The pipe
          // goes to fd 3, stderr to the slot's file; the loop's parameters go on the command line.
          WorkerArgs args;
          args.plan = wp;
          args.backend = opts.exec_backend;
          args.pipeline = opts.pipeline;
          args.memory_mb = opts.memory_mb;
          if (opts.guided) args.corpus = opts.corpus_dir;
          args.jobs = jobs;
          args.quiet = opts.quiet_workers;
          std::vector<std::string> strings = args.to_argv("/proc/self/exe");
          std::vector<char*> argv;
          for (std::string& a : strings) argv.push_back(a.data());
          argv.push_back(nullptr);
          slot.w->start([&](int out_fd) { exec_worker(argv.data(), out_fd, err_fd); },
                        opts.stop != nullptr);
        }
        slot.last_line = now;
        if (opts.on_worker_start) opts.on_worker_start(slot.w->pid);
      }
      running = running || slot.w;
    }
    if (!running) break;

    std::vector<pollfd> fds;
    std::vector<Slot*> polled;
    for (Slot& slot : slots) {
      if (!slot.w) continue;
      fds.push_back({slot.w->lines.fd, POLLIN, 0});
      polled.push_back(&slot);
    }
    int ready = poll(fds.data(), fds.size(), 200);
    if (ready < 0 && errno != EINTR) break;
    now = now_seconds();
    for (size_t i = 0; i < polled.size(); ++i) {
      Slot& slot = *polled[i];
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        bool open = slot.w->lines.read_some();
        std::string line;
        while (!r.stopped_early && slot.w->lines.take_line(&line)) {
          // The clock now, not the poll's: recording a finding may have minimized it for a
          // while, and the other workers' waiting lines must not look that old.
          slot.last_line = now_seconds();
          if (!handle_line(slot, line)) break;
        }
        if (!open) {
          finish_worker(slot);
          continue;
        }
      }
      if (r.stopped_early) continue;
      if (now - slot.last_line > opts.timeout) {
        slot.timed_out = true;
        slot.w->kill();  // its pipe ends next; finish_worker records the hang
      }
    }
    if (r.stopped_early) {
      for (Slot& slot : slots) {
        if (slot.w) {
          slot.w->kill();
          slot.w->reap();
          slot.w.reset();
        }
      }
      break;
    }
    if (opts.on_coverage && now >= next_report) opts.on_coverage(now - start, r.feature_set);
    if (opts.on_progress && now >= next_report) {
      opts.on_progress(now - start, r.programs, r.buckets);
      next_report = now + 1.0;
    }
  }
  r.seconds = now_seconds() - start;
  return r;
}

}  // namespace sf::fuzz
