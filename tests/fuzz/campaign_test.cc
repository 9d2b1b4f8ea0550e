// The campaign never loses a result: what it writes replays as-is with the signature its header
// records; workers killed at random moments are recorded against their program (or counted as
// lost between programs) and replaced; a campaign killed with SIGKILL at random moments leaves a
// complete report.json whose files all exist and parse.
#include "fuzz/campaign.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <thread>

#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "fuzz/campaign_report.h"
#include "fuzz/files.h"
#include "fuzz/line_reader.h"
#include "fuzz/outcome.h"
#include "fuzz/recipe.h"

namespace sf::fuzz {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(dir);
  return dir;
}

// A fault the default campaign finds within a fraction of a second (INV-6), so findings happen,
// and one that makes an internal invariant abort (crash:signal6 with its SF_CHECK line).
constexpr Fault kPlanted = Fault::kDceDropsBindingSite;
constexpr Fault kPlantedCrash = Fault::kExternBindsUnresolvedName;

std::vector<fs::path> files_under(const fs::path& dir, const std::string& ending) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.size() >= ending.size() && name.substr(name.size() - ending.size()) == ending) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The report is complete JSON text and every file it names exists and is complete.
void expect_consistent(const fs::path& dir) {
  std::optional<std::string> json = read_text_file(dir / "report.json");
  ASSERT_TRUE(json.has_value()) << dir;
  ASSERT_GE(json->size(), 3u);
  EXPECT_EQ(json->front(), '{');
  EXPECT_EQ(json->substr(json->size() - 2), "}\n");
  std::regex path_field("\"(original|minimized|test)\": \"([^\"]+)\"");
  for (auto it = std::sregex_iterator(json->begin(), json->end(), path_field);
       it != std::sregex_iterator(); ++it) {
    std::optional<std::string> text = read_text_file(dir / (*it)[2].str());
    ASSERT_TRUE(text.has_value()) << "report names a missing file " << (*it)[2];
    if ((*it)[1] == "test") {
      EXPECT_NE(text->find("}  // namespace\n"), std::string::npos);
    }
  }
  for (const fs::path& f : files_under(dir, ".sfz")) {
    std::optional<std::string> text = read_text_file(f);
    ASSERT_TRUE(text.has_value());
    program::Program p;
    EXPECT_NO_THROW(p = program::parse_program(*text)) << f;
    EXPECT_FALSE(p.header.reproduces.empty()) << f;
  }
}

TEST(Campaign, EverythingItWritesReplaysWithItsSignature) {
  fs::path dir = fresh_dir("replay");
  ReportOptions ropts;
  ropts.out_dir = dir;
  ropts.minimize_seconds = 2;
  ropts.quiet = true;
  ropts.pipeline.oracles = oracles::OracleSet::all();
  size_t findings = 0;
  {
    ScopedFault planted(kPlanted);  // process-wide, as SHAPEFUZZ_FAULTS would be
    ScopedFault planted_crash(kPlantedCrash);
    CampaignReport report(ropts);
    CampaignOptions opts;
    opts.seconds = 2;
    opts.pipeline = ropts.pipeline;
    opts.on_finding = [&](const Finding& f) {
      report.add(f);
      return false;
    };
    CampaignResult r = run_campaign(opts);
    report.finish(r);
    findings = report.entries().size();
    bool crashed = false;
    for (const CampaignReport::Entry& e : report.entries()) {
      if (e.bucket != "crash:signal6") continue;
      crashed = true;
      EXPECT_NE(e.signature.find("internal invariant failed"), std::string::npos) << e.signature;
    }
    EXPECT_TRUE(crashed);
  }
  ASSERT_GE(findings, 2u);
  expect_consistent(dir);
  // With the process's faults off again, each file replays from its header alone.
  std::vector<fs::path> sfz = files_under(dir, ".sfz");
  EXPECT_EQ(sfz.size(), 2 * findings);  // the original and the minimized program
  EXPECT_EQ(files_under(dir, "_test.cc").size(), findings);
  for (const fs::path& f : sfz) {
    std::string text = *read_text_file(f);
    program::Program p = program::parse_program(text);
    EXPECT_EQ(signature(run_program_isolated(text, ropts.pipeline, IsolationLimits())),
              p.header.reproduces)
        << f;
  }
}

TEST(Campaign, WorkersKilledAtRandomMomentsLoseNothing) {
  std::atomic<int> worker{0};
  std::atomic<bool> stop{false};
  int kills = 0;
  std::vector<uint64_t> seeds;  // every verdict's seed, in order
  CampaignOptions opts;
  opts.seconds = 6;
  opts.first_seed = 1;
  opts.quiet_workers = true;
  opts.on_worker_start = [&](int pid) { worker = pid; };
  opts.on_verdict = [&](uint64_t seed, const std::string&) { seeds.push_back(seed); };
  std::thread killer([&] {
    std::mt19937 rng(7);
    auto start = std::chrono::steady_clock::now();
    while (kills < 20 && !stop) {
      std::this_thread::sleep_for(std::chrono::milliseconds(60 + rng() % 160));
      if (std::chrono::steady_clock::now() - start > std::chrono::seconds(5)) break;
      int pid = worker.exchange(0);  // each worker once: a dead one is not killed twice
      if (pid > 0 && kill(pid, SIGKILL) == 0) ++kills;
    }
  });
  CampaignResult r = run_campaign(opts);
  stop = true;
  killer.join();
  EXPECT_EQ(kills, 20);
  uint64_t killed_in_program = r.buckets.count("crash:signal9") ? r.buckets.at("crash:signal9") : 0;
  EXPECT_EQ(killed_in_program + r.workers_lost, static_cast<uint64_t>(kills));
  EXPECT_GE(r.seconds, opts.seconds);  // the campaign ran its whole time
  // Every seed from the first on has exactly one verdict, in order: none skipped, none twice (a
  // worker killed between programs resumes at the next seed; one killed inside a program is that
  // program's crash).
  ASSERT_EQ(seeds.size(), r.programs);
  for (size_t i = 0; i < seeds.size(); ++i) ASSERT_EQ(seeds[i], opts.first_seed + i);
  EXPECT_GT(r.buckets["pass"], 20u);
}

// --jobs 3: worker j runs seeds 1+j, 4+j, ...; each residue class has exactly one verdict per
// seed with no gap, even when programs crash their worker (a planted aborting fault).
TEST(Campaign, ParallelWorkersLoseNoSeedAndIsolateCrashes) {
  ScopedFault crash(kPlantedCrash);
  std::map<uint64_t, std::vector<uint64_t>> by_class;  // seed % jobs -> seeds in verdict order
  CampaignOptions opts;
  opts.seconds = 3;
  opts.first_seed = 1;
  opts.jobs = 3;
  opts.quiet_workers = true;
  std::set<int> pids;
  opts.on_worker_start = [&](int pid) { pids.insert(pid); };
  opts.on_verdict = [&](uint64_t seed, const std::string&) { by_class[seed % 3].push_back(seed); };
  CampaignResult r = run_campaign(opts);
  ASSERT_EQ(by_class.size(), 3u);
  uint64_t total = 0;
  for (const auto& [residue, seeds] : by_class) {
    total += seeds.size();
    uint64_t first = residue == 0 ? 3 : residue;  // seeds 1, 2, 3 start the three classes
    for (size_t i = 0; i < seeds.size(); ++i) ASSERT_EQ(seeds[i], first + 3 * i) << residue;
  }
  EXPECT_EQ(total, r.programs);
  uint64_t crashes = 0;
  for (const auto& [bucket, n] : r.buckets) crashes += bucket.rfind("crash:", 0) == 0 ? n : 0;
  EXPECT_GT(crashes, 0u) << "the planted fault should abort some programs";
  // Each crash replaced its worker, except crashes after the deadline (at most one per slot).
  EXPECT_GE(pids.size(), crashes);
  EXPECT_GT(r.buckets["pass"], 20u);
}

// A shard of a bounded campaign runs exactly its residue class of the seed range, each of its
// workers every jobs-th of those in order, crashes and replaced workers included; then it ends
// on its own, long before its time box.
TEST(Campaign, ABoundedShardRunsExactlyItsSeeds) {
  ScopedFault crash(kPlantedCrash);
  CampaignOptions opts;
  opts.seconds = 120;
  opts.first_seed = 10;
  opts.seeds = 90;  // seeds 10..99
  opts.shard = 1;
  opts.shards = 3;  // this shard: 11, 14, 17, ..., 98
  opts.jobs = 2;    // its workers: 11, 17, 23, ... and 14, 20, 26, ...
  opts.quiet_workers = true;
  std::map<uint64_t, std::vector<uint64_t>> by_worker;
  opts.on_verdict = [&](uint64_t seed, const std::string&) {
    by_worker[(seed - 11) / 3 % 2].push_back(seed);
  };
  auto t0 = std::chrono::steady_clock::now();
  CampaignResult r = run_campaign(opts);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
  EXPECT_EQ(r.programs, 30u);
  ASSERT_EQ(by_worker.size(), 2u);
  for (const auto& [w, seeds] : by_worker) {
    ASSERT_EQ(seeds.size(), 15u) << w;
    for (size_t i = 0; i < seeds.size(); ++i) EXPECT_EQ(seeds[i], 11 + 3 * w + 6 * i) << w;
  }
  EXPECT_GT(r.buckets.size(), 1u);  // the planted crash, among others
}

TEST(Campaign, AWorkerPastItsResidentLimitIsRecycledAndNothingIsLost) {
  CampaignOptions opts;
  opts.seconds = 120;
  opts.first_seed = 1;
  opts.seeds = 8;
  opts.recycle_rss_mb = 1;  // every worker is past it after its first program
  opts.quiet_workers = true;
  std::set<int> workers;
  std::vector<uint64_t> seeds;
  opts.on_worker_start = [&](int pid) { workers.insert(pid); };
  opts.on_verdict = [&](uint64_t seed, const std::string&) { seeds.push_back(seed); };
  CampaignResult r = run_campaign(opts);
  EXPECT_EQ(r.programs, 8u);
  EXPECT_EQ(seeds, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8}));  // in order, none twice
  EXPECT_EQ(workers.size(), 8u);                                      // one program each
  EXPECT_EQ(r.workers_lost, 0u);  // a recycled worker is not lost
  EXPECT_EQ(r.buckets.count("crash:exit0"), 0u);
}

// A backend a worker finds unavailable (a CUDA driver that fails cuInit under the worker's
// limits, say) stops the campaign with the reason; no program is counted as a failure.
class UnavailableBackend : public backend::Backend {
 public:
  std::string name() const override { return "unavailable"; }
  bool available(std::string* why) const override {
    *why = "no device\there";
    return false;
  }
  backend::RunResult run(const lower::Plan&, const ShapeEnv&,
                         const std::map<std::string, program::HostValue>&) override {
    ADD_FAILURE() << "ran a plan on an unavailable backend";
    return {};
  }
};

TEST(Campaign, AWorkersUnavailableBackendStopsTheCampaignWithTheReason) {
  CampaignOptions opts;
  opts.seconds = 20;
  opts.jobs = 2;
  opts.quiet_workers = true;
  opts.make_backend = [] { return std::make_unique<UnavailableBackend>(); };
  auto t0 = std::chrono::steady_clock::now();
  CampaignResult r = run_campaign(opts);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_TRUE(r.stopped_early);
  EXPECT_EQ(r.backend_unavailable, "no device here");
  EXPECT_EQ(r.programs, 0u);
  EXPECT_TRUE(r.buckets.empty());
}

// Guided: the programs kept for new coverage are written to the corpus directory as .sfz files
// whose "# recipe:" line regenerates exactly that program, and a later campaign starts by
// running them (it resumes and grows the corpus).
TEST(Campaign, GuidedCampaignKeepsACorpusThatReplays) {
  fs::path dir = fresh_dir("guided_corpus");
  CampaignOptions opts;
  opts.seconds = 2;
  opts.guided = true;
  opts.corpus_dir = dir.string();
  opts.quiet_workers = true;
  opts.pipeline.oracles = oracles::OracleSet::structural_only();
  CampaignResult r = run_campaign(opts);
  EXPECT_GT(r.features, 50u);
  std::vector<fs::path> files = files_under(dir, ".sfz");
  ASSERT_GT(files.size(), 5u);
  std::set<uint64_t> corpus_seeds;
  for (const fs::path& f : files) {
    std::string text = *read_text_file(f);
    size_t at = text.find("# recipe: ");
    ASSERT_NE(at, std::string::npos) << f;
    std::optional<Recipe> recipe =
        Recipe::parse(text.substr(at + 10, text.find('\n', at) - at - 10));
    ASSERT_TRUE(recipe) << f;
    corpus_seeds.insert(recipe->seed);
    EXPECT_EQ(program::print_program(program::parse_program(text)),
              program::print_program(generated_for_recipe(*recipe).program))
        << f;
  }
  // The next campaign runs the corpus first: its first verdicts are the corpus's programs.
  std::vector<uint64_t> first;
  opts.seconds = 1;
  opts.on_verdict = [&](uint64_t seed, const std::string&) {
    if (first.size() < 5) first.push_back(seed);
  };
  run_campaign(opts);
  ASSERT_EQ(first.size(), 5u);
  for (uint64_t s : first) EXPECT_TRUE(corpus_seeds.count(s)) << s;
  EXPECT_GE(files_under(dir, ".sfz").size(), files.size());  // grown, never lost
}

// A stop request (what the CLI's SIGINT/SIGTERM handler sets) ends the campaign at once: every
// verdict the workers sent is counted, the programs in flight are neither counted nor blamed,
// even when the workers got the SIGINT too (a terminal's Ctrl-C reaches the whole process group),
// and the final report says "interrupted" and names every reproducer written (a minimizer still
// running is killed), each of which replays.
TEST(Campaign, AStopRequestEndsItWithAFinalReportAndNoInventedCrash) {
  fs::path dir = fresh_dir("interrupted");
  static volatile std::sig_atomic_t stop;
  stop = 0;
  ReportOptions ropts;
  ropts.out_dir = dir;
  ropts.minimize_seconds = 30;
  ropts.quiet = true;
  ropts.pipeline.oracles = oracles::OracleSet::structural_only();
  ropts.stop = &stop;
  CampaignResult r;
  std::set<int> workers;
  uint64_t verdicts = 0;
  auto t0 = std::chrono::steady_clock::now();
  {
    ScopedFault planted(kPlanted);
    CampaignReport report(ropts);
    CampaignOptions opts;
    opts.seconds = 120;
    opts.jobs = 2;
    opts.quiet_workers = true;
    opts.pipeline = ropts.pipeline;
    opts.stop = &stop;
    opts.on_worker_start = [&](int pid) { workers.insert(pid); };
    opts.on_verdict = [&](uint64_t, const std::string&) { ++verdicts; };
    opts.on_finding = [&](const Finding& f) {
      report.add(f);
      return false;
    };
    opts.on_progress = [&](double el, uint64_t n, const std::map<std::string, uint64_t>& b) {
      report.progress(el, n, b);
      if (el >= 1 && !stop) {
        for (int pid : workers) kill(pid, SIGINT);
        stop = SIGINT;
      }
    };
    r = run_campaign(opts);
    report.finish(r);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_TRUE(r.interrupted);
  EXPECT_GT(r.programs, 0u);
  EXPECT_EQ(verdicts, r.programs);
  // The planted fault's finds may include engine aborts (crash:signal6, an SF_CHECK in lowering):
  // each replaces its worker. The stop itself must add no crash and lose no worker.
  uint64_t aborts = r.buckets.count("crash:signal6") ? r.buckets.at("crash:signal6") : 0;
  EXPECT_EQ(workers.size(), 2u + aborts);  // none was lost or replaced but for those
  EXPECT_EQ(r.workers_lost, 0u);
  EXPECT_LE(r.not_run, 2u);
  for (const auto& [bucket, n] : r.buckets) {
    if (bucket != "crash:signal6") {
      EXPECT_NE(bucket.rfind("crash:", 0), 0u) << bucket;
    }
  }
  EXPECT_GT(r.buckets["fail:INV-6"], 0u);
  expect_consistent(dir);
  std::string json = *read_text_file(dir / "report.json");
  EXPECT_NE(json.find("\"status\": \"interrupted\""), std::string::npos);
  EXPECT_NE(json.find("\"programs\": " + std::to_string(r.programs) + ","), std::string::npos);
  std::vector<fs::path> sfz = files_under(dir, ".sfz");
  EXPECT_FALSE(sfz.empty());
  for (const fs::path& f : sfz) {
    std::string name = fs::relative(f, dir).string();
    EXPECT_NE(json.find("\"" + name + "\""), std::string::npos) << "not in the report: " << name;
    std::string text = *read_text_file(f);
    std::string recorded = program::parse_program(text).header.reproduces;
    std::string now = signature(run_program_isolated(text, ropts.pipeline, IsolationLimits()));
    // Quiet workers send their SF_CHECK lines nowhere: an abort is recorded by its bucket alone.
    if (recorded == "crash:signal6") now = now.substr(0, recorded.size());
    EXPECT_EQ(now, recorded) << f;
  }
}

TEST(Campaign, CampaignKilledAtRandomMomentsLeavesAValidReport) {
  std::mt19937 rng(11);
  for (int round = 0; round < 20; ++round) {
    fs::path dir = fresh_dir("killed" + std::to_string(round));
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      setpgid(0, 0);  // the campaign, its worker and minimizing children: one group to kill
      set_fault(kPlanted, true);
      ReportOptions ropts;
      ropts.out_dir = dir;
      ropts.minimize_seconds = 1;
      ropts.quiet = true;
      CampaignReport report(ropts);
      CampaignOptions opts;
      opts.seconds = 3;
      opts.first_seed = 1 + 1000 * round;
      opts.quiet_workers = true;
      opts.on_finding = [&](const Finding& f) {
        report.add(f);
        return false;
      };
      opts.on_progress = [&](double el, uint64_t n, const std::map<std::string, uint64_t>& b) {
        report.progress(el, n, b);
      };
      report.finish(run_campaign(opts));
      _exit(0);
    }
    setpgid(pid, pid);  // (also here: whichever runs first)
    // The campaign writes report.json before any work; kill it at a random moment after that.
    for (int i = 0; i < 500 && !fs::exists(dir / "report.json"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 1500));
    kill(-pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    SCOPED_TRACE("round " + std::to_string(round));
    expect_consistent(dir);
  }
}

}  // namespace
}  // namespace sf::fuzz

namespace sf::fuzz {
namespace {

// The watchdog's reader: lines that arrive together are all delivered before it waits, so a
// program that hangs right after "start" is seen as in flight (stdio buffering hid such lines
// from poll(2)).
TEST(LineReader, DeliversBufferedLinesBeforeWaiting) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const char text[] = "done\t1\tpass\t\nstart\t2\n";
  ASSERT_EQ(write(fds[1], text, sizeof(text) - 1), static_cast<ssize_t>(sizeof(text) - 1));
  LineReader r;
  r.fd = fds[0];
  std::string line;
  EXPECT_EQ(r.next(&line, 1.0), LineStatus::kLine);
  EXPECT_EQ(line, "done\t1\tpass\t");
  EXPECT_EQ(r.next(&line, 1.0), LineStatus::kLine);
  EXPECT_EQ(line, "start\t2");
  EXPECT_EQ(r.next(&line, 0.05), LineStatus::kTimeout);
  ASSERT_EQ(write(fds[1], "partial", 7), 7);
  close(fds[1]);
  EXPECT_EQ(r.next(&line, 1.0), LineStatus::kEof);  // a line cut short is dropped
  close(fds[0]);
}

}  // namespace
}  // namespace sf::fuzz
