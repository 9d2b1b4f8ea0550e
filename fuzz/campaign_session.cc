// A campaign with its report: options, the run, progress and summary text.
#include "fuzz/campaign_session.h"

#include <signal.h>

#include <algorithm>
#include <cstdio>

#include "fuzz/campaign_resume.h"
#include "fuzz/files.h"
#include "fuzz/junit.h"
#include "fuzz/shards.h"
#include "fuzz/signature.h"

namespace sf::fuzz {

namespace {

uint64_t count_with_prefix(const std::map<std::string, uint64_t>& buckets, const char* prefix) {
  uint64_t n = 0;
  for (const auto& [k, c] : buckets) n += k.rfind(prefix, 0) == 0 ? c : 0;
  return n;
}

std::string format(const char* fmt, auto... args) {
  int n = std::snprintf(nullptr, 0, fmt, args...);
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), fmt, args...);
  out.pop_back();
  return out;
}

unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }

// The limits of one isolated run in a campaign's settings (minimizing, statistics, distilling).
IsolationLimits limits_of(const CampaignOptions& opts) {
  IsolationLimits limits;
  limits.timeout_seconds = opts.timeout;
  limits.memory_mb = opts.memory_mb;
  return limits;
}

}  // namespace

std::string progress_line(double elapsed, uint64_t programs, uint64_t features,
                          const std::map<std::string, uint64_t>& buckets) {
  return format(
      "[%5.1fs] programs=%llu (%.0f/s) features=%llu pass=%llu rejected=%llu fail=%llu "
      "crash=%llu triage=%llu",
      elapsed, ull(programs), programs / elapsed, ull(features),
      ull(count_with_prefix(buckets, "pass")), ull(count_with_prefix(buckets, "rejected:")),
      ull(count_with_prefix(buckets, "fail:")), ull(count_with_prefix(buckets, "crash:")),
      ull(count_with_prefix(buckets, "wrong-rejection:") + count_with_prefix(buckets, "unknown:")));
}

std::optional<GenStats> sample_generator_stats(uint64_t first_seed, uint64_t programs,
                                               IsolationLimits limits, std::string* why) {
  uint64_t sample = std::min<uint64_t>(programs, 300);
  limits.timeout_seconds = std::max(limits.timeout_seconds, 60.0);
  IsolatedResult g =
      run_isolated([&] { return collect_gen_stats(first_seed, sample).to_json(); }, limits);
  std::optional<GenStats> stats = GenStats::from_json(g.output);
  if (!stats && why) *why = g.crash.empty() ? "bad output" : g.crash;
  return stats;
}

std::string campaign_summary(const CampaignResult& r, const CampaignReport& report,
                             const std::filesystem::path& out_dir) {
  std::string edges =
      r.edge_features ? " (" + std::to_string(r.edge_features) + " of them edge features)" : "";
  // A resumed campaign's report counts the earlier nights' features too.
  uint64_t all = report.json().value("features", uint64_t{0});
  if (all > r.features) edges += " (" + std::to_string(all) + " with the earlier nights')";
  std::string out =
      format("campaign: %llu programs in %.1fs (%.0f/s), %llu features%s, report in %s\n",
             ull(r.programs), r.seconds, r.programs / r.seconds, ull(r.features), edges.c_str(),
             (out_dir / "report.json").c_str());
  for (const auto& [k, n] : r.buckets) out += format("  %-40s %llu\n", k.c_str(), ull(n));
  if (r.workers_lost) {
    out += format("  workers lost between programs (replaced): %llu\n", ull(r.workers_lost));
  }
  for (const CampaignReport::Entry& e : report.entries()) {
    out += format("%s x%llu seed=%llu: %s\n    %s%s%s\n", e.bucket.c_str(), ull(e.count),
                  ull(e.first_seed), e.signature.c_str(), (out_dir / e.original).c_str(),
                  e.minimized.empty() ? "" : "  minimized: ",
                  e.minimized.empty() ? "" : (out_dir / e.minimized).c_str());
  }
  return out;
}

ReportOptions report_options_for(const CampaignOptions& opts) {
  ReportOptions r;
  r.first_seed = opts.first_seed;
  r.seeds = opts.seeds;
  r.jobs = opts.jobs;
  r.shard = opts.shard;
  r.shards = opts.shards;
  r.swarm = opts.swarm;
  r.swarm_origin = swarm_origin_of(opts);
  r.campaign_seconds = opts.seconds;
  r.pipeline = opts.pipeline;
  r.limits = limits_of(opts);
  r.stop = opts.stop;
  return r;
}

CampaignResult run_reported_campaign(CampaignOptions opts, CampaignReport& report,
                                     const std::function<void(const std::string&)>& progress) {
  uint64_t features = 0;
  opts.on_coverage = [&](double, const std::unordered_set<uint64_t>& reached) {
    features = reached.size();
    report.coverage(reached);
  };
  // Failures and crashes, and for triage wrong rejections and undecided oracles.
  opts.on_finding = [&](const Finding& f) {
    report.add(f);
    return false;
  };
  opts.on_progress = [&](double el, uint64_t programs,
                         const std::map<std::string, uint64_t>& buckets) {
    report.progress(el, programs, buckets);
    if (progress) progress(progress_line(el, programs, features, buckets));
  };
  CampaignResult r = run_campaign(opts);
  bool stopped = opts.stop && *opts.stop != 0;
  // Not after a stop: the final report must not wait for them.
  if (r.programs > 0 && !stopped) {
    std::string why;
    if (std::optional<GenStats> stats =
            sample_generator_stats(opts.first_seed, r.programs, limits_of(opts), &why)) {
      report.set_generator_stats(*stats, opts.first_seed);
    } else {
      std::fprintf(stderr, "campaign: the generator statistics were not gathered (%s)\n",
                   why.c_str());
    }
  }
  r.interrupted = r.interrupted || (opts.stop && *opts.stop != 0);
  report.finish(r);
  return r;
}

bool has_findings(const CampaignReport& report) {
  for (const CampaignReport::Entry& e : report.entries()) {
    if (is_finding_bucket(e.bucket)) return true;
  }
  return false;
}

CampaignExit run_campaign_session(CampaignSettings s) {
  CampaignOptions& opts = s.campaign;
  if (!s.junit.empty()) {
    if (std::optional<std::string> why = check_writable_file(s.junit)) {
      std::fprintf(stderr, "campaign: cannot write %s: %s\n", s.junit.c_str(), why->c_str());
      return CampaignExit::kUsage;
    }
  }
  std::optional<ResumeState> resumed;
  if (s.resume) {
    std::string why;
    if (opts.shards > 1) {
      std::fprintf(stderr, "campaign: --resume continues one unsharded campaign, not a shard\n");
      return CampaignExit::kUsage;
    }
    resumed = read_resume_state(s.out_dir, &why);
    if (!resumed) {
      std::fprintf(stderr, "campaign: cannot resume: %s\n", why.c_str());
      return CampaignExit::kUsage;
    }
    opts.first_seed = resumed->first_seed;
    opts.swarm_origin = resumed->swarm_origin;
    opts.guided = true;
    if (opts.corpus_dir.empty()) opts.corpus_dir = (s.out_dir / "corpus").string();
  }
  ReportOptions ropts = report_options_for(opts);
  ropts.out_dir = s.out_dir;
  if (opts.shards > 1 && !s.out_dir_given) {
    ropts.out_dir /= "shard-" + std::to_string(opts.shard) + "-of-" + std::to_string(opts.shards);
  }
  ropts.minimize_seconds = s.minimize_seconds;
  if (resumed) {
    if (std::optional<std::string> why = check_writable_dir(opts.corpus_dir)) {
      std::fprintf(stderr, "campaign: cannot write the corpus %s: %s\n", opts.corpus_dir.c_str(),
                   why->c_str());
      return CampaignExit::kUsage;
    }
    DistillResult d = distill_corpus_in_place(opts.corpus_dir, opts.pipeline, limits_of(opts),
                                              std::max(1, opts.jobs));
    ropts.known_features = resumed->known_features;
    ropts.nights = resumed->nights;
    ropts.corpus = d.json();
    std::fprintf(stderr,
                 "campaign: resuming %s (night %zu) at seed %llu; %zu features known; corpus "
                 "distilled from %zu to %zu entries (%zu crashed)\n",
                 s.out_dir.c_str(), resumed->nights.size() + 1, ull(opts.first_seed),
                 resumed->known_features.size(), d.read, d.kept, d.crashed);
  }
  CampaignReport report(ropts);  // refuses an unwritable output directory before any work
  if (opts.guided && opts.corpus_dir.empty()) opts.corpus_dir = (ropts.out_dir / "corpus").string();
  if (opts.guided) {
    if (std::optional<std::string> why = check_writable_dir(opts.corpus_dir)) {
      std::fprintf(stderr, "campaign: cannot write the corpus %s: %s\n", opts.corpus_dir.c_str(),
                   why->c_str());
      return CampaignExit::kUsage;
    }
  }
  CampaignResult r = run_reported_campaign(
      opts, report, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });
  if (!r.backend_unavailable.empty()) {
    std::fprintf(stderr, "campaign: the %s backend is unavailable in a worker: %s\n",
                 s.backend.c_str(), r.backend_unavailable.c_str());
    return CampaignExit::kUnavailable;
  }
  if (int sig = opts.stop ? *opts.stop : 0) {
    std::fprintf(stderr,
                 "campaign: interrupted by %s after %.1fs (programs in flight, not run: %llu); "
                 "the report is final\n",
                 sig == SIGINT ? "SIGINT" : "SIGTERM", r.seconds, ull(r.not_run));
  }
  if (!s.junit.empty()) {
    write_atomically(s.junit,
                     junit_xml("shapefuzz campaign", report_junit(report.json(), std::nullopt)));
  }
  std::printf("%s%s\n", campaign_summary(r, report, ropts.out_dir).c_str(),
              report_summary_line(report.json()).c_str());
  return has_findings(report) ? CampaignExit::kFindings : CampaignExit::kClean;
}

}  // namespace sf::fuzz
