// `shapefuzz campaign`: a time-boxed fuzz campaign on the CPU backend. fuzz/campaign.h runs it,
// crash-isolated; fuzz/campaign_report.h keeps OUT current (reproducers, minimized reproducers,
// GoogleTest files, report.json) as findings happen. This file wires flags, progress lines and
// SIGINT/SIGTERM (an early end with the final report and summary).
#include <signal.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "fuzz/campaign.h"
#include "fuzz/campaign_report.h"
#include "fuzz/files.h"
#include "fuzz/gen_stats.h"
#include "fuzz/isolated.h"
#include "fuzz/junit.h"
#include "fuzz/shards.h"
#include "tools/cli/backends.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct CampaignFlags {
  double seconds = 60;
  uint64_t seed = 1;
  int jobs = 1;
  std::string shard;  // "I/N"
  uint64_t seeds = 0;
  std::string junit;
  bool guided = false;
  std::string corpus;
  std::string backend = "cpu";
  bool exec_workers = false;
  std::string out = "report";
  bool out_default = true;   // --out not given
  IsolationFlags isolation;  // the worker's, and each minimizing run's
  double minimize_seconds = 30;
  OracleFlags oracles;
};

// The first SIGINT or SIGTERM asks the campaign to stop (CampaignOptions::stop, checked by its
// loop like the time box); it ends with its final report and summary, then dies of that signal,
// as a caller expects of an interrupted command (a shell's loop stops; $? is 130 or 143). A
// second signal ends it at once (its workers and minimizer die with it; report.json stays valid).
volatile std::sig_atomic_t g_stop_signal = 0;

void on_stop_signal(int sig) {
  if (g_stop_signal == 0) {
    g_stop_signal = sig;
    return;
  }
  signal(sig, SIG_DFL);  // both async-signal-safe
  raise(sig);
}

// Not for a signal the process started with ignored (nohup, a script's background job): that
// stays ignored.
void catch_stop_signals() {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // the waits that must wake (poll, nanosleep) are never restarted
    sigaction(sig, &sa, nullptr);
  }
}

uint64_t count_with_prefix(const std::map<std::string, uint64_t>& buckets, const char* prefix) {
  uint64_t n = 0;
  for (const auto& [k, c] : buckets) n += k.rfind(prefix, 0) == 0 ? c : 0;
  return n;
}

int campaign(const CampaignFlags& flags) {
  fuzz::ShardSpec shard;
  if (!flags.shard.empty()) {
    std::optional<fuzz::ShardSpec> parsed = fuzz::parse_shard(flags.shard);
    if (!parsed) {
      std::fprintf(stderr, "campaign: --shard wants I/N with 0 <= I < N (e.g. 0/4), not '%s'\n",
                   flags.shard.c_str());
      return kExitUsage;
    }
    shard = *parsed;
  }
  if (!flags.junit.empty()) {
    if (std::optional<std::string> why = fuzz::check_writable_file(flags.junit)) {
      std::fprintf(stderr, "campaign: cannot write %s: %s\n", flags.junit.c_str(), why->c_str());
      return kExitUsage;
    }
  }
  fuzz::ReportOptions ropts;
  ropts.out_dir = flags.out;
  // A shard writes under its own name unless told where.
  if (shard.count > 1 && flags.out_default) {
    ropts.out_dir = ropts.out_dir /
                    ("shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count));
  }
  ropts.first_seed = flags.seed;
  ropts.seeds = flags.seeds;
  ropts.jobs = flags.jobs;
  ropts.shard = shard.index;
  ropts.shards = shard.count;
  ropts.minimize_seconds = flags.minimize_seconds;
  ropts.campaign_seconds = flags.seconds;
  ropts.pipeline = flags.oracles.options();
  ropts.limits = flags.isolation.limits;
  ropts.stop = &g_stop_signal;
  fuzz::CampaignReport report(ropts);  // refuses an unwritable --out before any work
  catch_stop_signals();

  fuzz::CampaignOptions opts;
  opts.seconds = flags.seconds;
  opts.first_seed = flags.seed;
  opts.jobs = flags.jobs;
  opts.shard = shard.index;
  opts.shards = shard.count;
  opts.seeds = flags.seeds;
  opts.stop = &g_stop_signal;
  opts.guided = flags.guided || !flags.corpus.empty();
  opts.corpus_dir = flags.corpus;
  std::optional<std::filesystem::path> scratch;  // a guided campaign's corpus when none is named
  if (opts.guided && opts.corpus_dir.empty()) {
    scratch = ropts.out_dir / "corpus";
    opts.corpus_dir = scratch->string();
  }
  if (opts.guided) {
    if (std::optional<std::string> why = fuzz::check_writable_dir(opts.corpus_dir)) {
      std::fprintf(stderr, "campaign: cannot write the corpus %s: %s\n", opts.corpus_dir.c_str(),
                   why->c_str());
      return kExitUsage;
    }
  }
  // An unavailable backend is found by the first worker, in its own process (this one must not
  // create a CUDA context: the children it forks, e.g. for the generator statistics, would inherit
  // the driver's address-space reservation and fail their memory cap).
  if (flags.backend != "cpu" || flags.exec_workers) {
    // Workers are fork+exec'd (`campaign-worker`): a CUDA context does not survive fork.
    opts.worker_command = {"/proc/self/exe",
                           "campaign-worker",
                           "--backend",
                           flags.backend,
                           "--oracles",
                           flags.oracles.oracles,
                           "--oracle-timeout-ms",
                           std::to_string(flags.oracles.timeout_ms),
                           "--oracle-deadline-ms",
                           std::to_string(flags.oracles.deadline_ms),
                           "--memory-mb",
                           std::to_string(flags.isolation.limits.memory_mb)};
    if (flags.oracles.cross_check) opts.worker_command.push_back("--cross-check");
    if (opts.guided) {
      opts.worker_command.push_back("--corpus");
      opts.worker_command.push_back(opts.corpus_dir);
    }
  }
  uint64_t features = 0;
  opts.on_coverage = [&](double, const std::unordered_set<uint64_t>& reached) {
    features = reached.size();
    report.coverage(reached);
  };
  opts.timeout = flags.isolation.limits.timeout_seconds;
  opts.memory_mb = flags.isolation.limits.memory_mb;
  opts.pipeline = ropts.pipeline;
  // Failures and crashes, and for triage wrong rejections and undecided oracles.
  opts.on_finding = [&](const fuzz::Finding& f) {
    report.add(f);
    return false;
  };
  opts.on_progress = [&](double el, uint64_t programs,
                         const std::map<std::string, uint64_t>& buckets) {
    report.progress(el, programs, buckets);
    std::fprintf(stderr,
                 "[%5.1fs] programs=%llu (%.0f/s) features=%llu pass=%llu rejected=%llu fail=%llu "
                 "crash=%llu triage=%llu\n",
                 el, static_cast<unsigned long long>(programs), programs / el,
                 static_cast<unsigned long long>(features),
                 static_cast<unsigned long long>(count_with_prefix(buckets, "pass")),
                 static_cast<unsigned long long>(count_with_prefix(buckets, "rejected:")),
                 static_cast<unsigned long long>(count_with_prefix(buckets, "fail:")),
                 static_cast<unsigned long long>(count_with_prefix(buckets, "crash:")),
                 static_cast<unsigned long long>(count_with_prefix(buckets, "wrong-rejection:") +
                                                 count_with_prefix(buckets, "unknown:")));
  };
  fuzz::CampaignResult r = fuzz::run_campaign(opts);
  // What the programs contained, for the report's histograms: the first few hundred programs
  // again, in a child (with faults on, a program may abort the engine).
  uint64_t sample = std::min<uint64_t>(r.programs, 300);
  // (Not after a stop: the final report must not wait for them.)
  if (sample > 0 && !g_stop_signal) {
    fuzz::IsolationLimits limits = flags.isolation.limits;
    limits.timeout_seconds = std::max(limits.timeout_seconds, 60.0);
    fuzz::IsolatedResult g = fuzz::run_isolated(
        [&] { return fuzz::collect_gen_stats(flags.seed, sample).to_json(); }, limits);
    if (std::optional<fuzz::GenStats> stats = fuzz::GenStats::from_json(g.output)) {
      report.set_generator_stats(*stats, flags.seed);
    } else {
      std::fprintf(stderr, "campaign: the generator statistics were not gathered (%s)\n",
                   g.crash.empty() ? "bad output" : g.crash.c_str());
    }
  }
  r.interrupted = r.interrupted || g_stop_signal != 0;
  report.finish(r);
  if (!r.backend_unavailable.empty()) {
    std::fprintf(stderr, "campaign: the %s backend is unavailable in a worker: %s\n",
                 flags.backend.c_str(), r.backend_unavailable.c_str());
    return kExitUnavailable;
  }
  if (int sig = g_stop_signal) {
    std::fprintf(stderr,
                 "campaign: interrupted by %s after %.1fs (programs in flight, not run: %llu); "
                 "the report is final\n",
                 sig == SIGINT ? "SIGINT" : "SIGTERM", r.seconds,
                 static_cast<unsigned long long>(r.not_run));
  }
  std::string edges =
      r.edge_features ? " (" + std::to_string(r.edge_features) + " of them edge features)" : "";
  std::printf("campaign: %llu programs in %.1fs (%.0f/s), %llu features%s, report in %s\n",
              static_cast<unsigned long long>(r.programs), r.seconds, r.programs / r.seconds,
              static_cast<unsigned long long>(r.features), edges.c_str(),
              (ropts.out_dir / "report.json").c_str());
  for (const auto& [k, n] : r.buckets) {
    std::printf("  %-40s %llu\n", k.c_str(), static_cast<unsigned long long>(n));
  }
  if (r.workers_lost) {
    std::printf("  workers lost between programs (replaced): %llu\n",
                static_cast<unsigned long long>(r.workers_lost));
  }
  bool failed = false;
  if (!flags.junit.empty()) {
    fuzz::write_atomically(
        flags.junit,
        fuzz::junit_xml("shapefuzz campaign", fuzz::report_junit(report.json(), std::nullopt)));
  }
  for (const fuzz::CampaignReport::Entry& e : report.entries()) {
    std::printf("%s x%llu seed=%llu: %s\n    %s%s%s\n", e.bucket.c_str(),
                static_cast<unsigned long long>(e.count),
                static_cast<unsigned long long>(e.first_seed), e.signature.c_str(),
                (ropts.out_dir / e.original).c_str(), e.minimized.empty() ? "" : "  minimized: ",
                e.minimized.empty() ? "" : (ropts.out_dir / e.minimized).c_str());
    failed = failed || fuzz::is_finding_bucket(e.bucket);
  }
  std::printf("%s\n", fuzz::report_summary_line(report.json()).c_str());
  if (int sig = g_stop_signal) {
    std::fflush(nullptr);
    signal(sig, SIG_DFL);
    raise(sig);
  }
  return failed ? kExitFindings : kExitOk;
}

}  // namespace

void add_campaign_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<CampaignFlags>();
  CLI::App* cmd = app.add_subcommand(
      "campaign",
      "a time-boxed fuzz campaign on the CPU backend: generated programs through the whole "
      "pipeline and every oracle, crash-isolated in a worker process; per new finding (bucket + "
      "normalized message) writes the program, a minimized program and a GoogleTest file under "
      "OUT/{failures,crashes,triage}, and keeps OUT/report.json current; exit 1 when anything "
      "failed or crashed. SIGINT or SIGTERM ends it early: the programs in flight are not run, "
      "report.json is final with status \"interrupted\", the summary is printed, and it exits "
      "by that signal (130 or 143 in a shell); a second signal ends it at once");
  cmd->add_option("--seconds", f->seconds, "time box")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--seed", f->seed, "first seed")->capture_default_str()->check(seed_number());
  cmd->add_option("--jobs", f->jobs,
                  "worker processes at once (worker j runs seeds S+j, S+j+N, ...); like "
                  "libFuzzer's -jobs")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--shard", f->shard,
                  "I/N: run shard I of N of the campaign (the seeds S+I, S+I+N, ...; each of J "
                  "jobs every J-th of those), for one machine of many; N shards of J jobs give the "
                  "verdicts of one campaign of N*J jobs; OUT defaults to report/shard-I-of-N; "
                  "`shapefuzz merge` makes one report of the shards");
  cmd->add_option("--seeds", f->seeds,
                  "run only the seeds S..S+N-1 (all shards together); the campaign ends when they "
                  "are done or at the time box, whichever first (0: no bound)")
      ->capture_default_str();
  cmd->add_option("--junit", f->junit,
                  "write JUnit XML at the end: a case per finding signature (failures and crashes "
                  "fail, triage is skipped) and one for the campaign");
  cmd->add_flag("--guided", f->guided,
                "coverage-guided: keep the programs that reach a new engine-level feature (ops "
                "and op pairs, binding paths, replacement kinds, runtime-assert and guard shapes, "
                "verdicts; with --config=sancov, code edges too) and run mutants of them (one to "
                "three generator decisions changed)");
  cmd->add_option("--corpus", f->corpus,
                  "the guided campaign's corpus directory, read at start and grown (implies "
                  "--guided; default OUT/corpus)");
  cmd->add_option("--backend", f->backend,
                  "where compiled programs run: cpu, or cuda (workers are then fork+exec'd; exit "
                  "4 with the reason when CUDA is unavailable)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_flag("--exec-workers", f->exec_workers,
                "fork+exec workers (as --backend cuda does) on the CPU backend too");
  cmd->add_option("--out", f->out, "output directory")
      ->capture_default_str()
      ->each([f](const std::string&) { f->out_default = false; });
  f->isolation.add_to(cmd);
  cmd->add_option("--minimize-seconds", f->minimize_seconds,
                  "time box for minimizing each new finding (0: do not minimize)")
      ->capture_default_str()
      ->check(non_negative_number());
  f->oracles.add_to(cmd);
  cmd->callback([=] { *action = [=] { return campaign(*f); }; });
}

namespace {

struct WorkerFlags {
  fuzz::WorkerPlan plan;
  int jobs = 1;
  std::string backend = "cpu";
  std::string corpus;
  size_t memory_mb = 4096;
  bool quiet = false;
  OracleFlags oracles;
};

}  // namespace

// The process a fork+exec'd campaign worker runs (campaign --backend cuda / --exec-workers):
// the campaign's worker loop on fd 3. Hidden from --help: only the campaign starts it.
void add_campaign_worker_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<WorkerFlags>();
  CLI::App* cmd = app.add_subcommand("campaign-worker", "a campaign's fork+exec'd worker");
  cmd->group("");
  cmd->add_option("--first", f->plan.first)->required();
  cmd->add_option("--stride", f->plan.stride)->required();
  cmd->add_option("--end", f->plan.end);
  cmd->add_option("--jobs", f->jobs);
  cmd->add_option("--deadline", f->plan.deadline)->required();
  cmd->add_option("--replay-share", f->plan.replay_share);
  cmd->add_option("--restart", f->plan.restart);
  cmd->add_option("--backend", f->backend)->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_option("--corpus", f->corpus);
  cmd->add_option("--memory-mb", f->memory_mb);
  cmd->add_flag("--quiet", f->quiet);
  f->oracles.add_to(cmd);
  cmd->callback([=] {
    *action = [=]() -> int {
      fuzz::CampaignOptions o;
      o.pipeline = f->oracles.options();
      o.jobs = f->jobs;
      o.memory_mb = f->memory_mb;
      if (f->backend == "cuda") o.memory_cap = fuzz::MemoryCap::kDataSegment;
      o.quiet_workers = f->quiet;
      o.guided = !f->corpus.empty();
      o.corpus_dir = f->corpus;
      std::string name = f->backend;
      o.make_backend = [name] { return make_backend(name); };
      fuzz::run_campaign_worker(3, f->quiet ? -1 : 2, f->plan, o);
    };
  });
}

}  // namespace sf::cli
