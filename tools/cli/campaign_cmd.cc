// `shapefuzz campaign`: a time-boxed fuzz campaign (fuzz/campaign_session.h runs it with its
// report, progress lines and summary; fuzz/campaign.h crash-isolates the programs). This file wires
// the flags and SIGINT/SIGTERM (an early end with the final report and summary, then death by that
// signal).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "fuzz/campaign_session.h"
#include "fuzz/shards.h"
#include "tools/cli/commands.h"
#include "tools/cli/stop_signals.h"

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
  bool no_swarm = false;
  std::string resume;  // DIR
  std::string corpus;
  std::string backend = "cpu";
  bool exec_workers = false;
  std::string out = "report";
  bool out_default = true;   // --out not given
  IsolationFlags isolation;  // the worker's, and each minimizing run's
  double minimize_seconds = 30;
  OracleFlags oracles;
};

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
  fuzz::CampaignSettings s;
  fuzz::CampaignOptions& opts = s.campaign;
  opts.seconds = flags.seconds;
  opts.first_seed = flags.seed;
  opts.jobs = flags.jobs;
  opts.shard = shard.index;
  opts.shards = shard.count;
  opts.seeds = flags.seeds;
  opts.stop = stop_signal();
  opts.timeout = flags.isolation.limits.timeout_seconds;
  opts.memory_mb = flags.isolation.limits.memory_mb;
  opts.pipeline = flags.oracles.options();
  opts.guided = flags.guided || !flags.corpus.empty();
  opts.corpus_dir = flags.corpus;
  opts.swarm = !flags.no_swarm;
  // An unavailable backend is found by the first worker, in its own process (this one must not
  // create a CUDA context: the children it forks, e.g. for the generator statistics, would inherit
  // the driver's address-space reservation and fail their memory cap).
  if (flags.backend != "cpu" || flags.exec_workers) {
    opts.exec_backend = flags.backend;  // a CUDA context does not survive fork: fork+exec
  }
  s.out_dir = flags.resume.empty() ? flags.out : flags.resume;
  s.out_dir_given = !flags.out_default || !flags.resume.empty();
  s.resume = !flags.resume.empty();
  s.minimize_seconds = flags.minimize_seconds;
  s.junit = flags.junit;
  s.backend = flags.backend;
  catch_stop_signals();
  fuzz::CampaignExit exit = fuzz::run_campaign_session(s);
  die_of_stop_signal();
  switch (exit) {
    case fuzz::CampaignExit::kClean:
      return kExitOk;
    case fuzz::CampaignExit::kFindings:
      return kExitFindings;
    case fuzz::CampaignExit::kUsage:
      return kExitUsage;
    case fuzz::CampaignExit::kUnavailable:
      return kExitUnavailable;
  }
  return kExitFindings;
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
  cmd->add_flag("--no-swarm", f->no_swarm,
                "draw every seed's program under the default generator policy (by default half "
                "are drawn under swarm policies: op features and statement kinds switched per "
                "worker and slice of 1,024 programs, programs longer and deeper as the campaign "
                "goes on; their recipes are in the findings)");
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
  cmd->add_option("--resume", f->resume,
                  "go on with the campaign in DIR (its --out), as a nightly run does: past the "
                  "seeds it started, its swarm growth kept, guided from its corpus distilled to "
                  "the entries that reach the same features; DIR's report counts the features of "
                  "every night and keeps a record per night")
      ->excludes("--out")
      ->excludes("--seed")
      ->excludes("--shard");
  f->isolation.add_to(cmd);
  cmd->add_option("--minimize-seconds", f->minimize_seconds,
                  "time box for minimizing each new finding (0: do not minimize)")
      ->capture_default_str()
      ->check(non_negative_number());
  f->oracles.add_to(cmd);
  cmd->callback([=] { *action = [=] { return campaign(*f); }; });
}

}  // namespace sf::cli
