// A campaign run as a command runs it: with its report (every finding, progress and coverage go
// to it; the generator statistics of its first programs after), a progress line per update, and
// the closing summary.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "fuzz/campaign.h"
#include "fuzz/campaign_report.h"
#include "fuzz/gen_stats.h"
#include "fuzz/isolated.h"

namespace sf::fuzz {

// "[  5.0s] programs=1200 (240/s) features=1700 pass=1100 rejected=90 fail=0 crash=0 triage=10"
// (triage: wrong rejections and undecided oracles).
std::string progress_line(double elapsed, uint64_t programs, uint64_t features,
                          const std::map<std::string, uint64_t>& buckets);

// The generator statistics of the programs of seeds first_seed.. (at most 300 of `programs`),
// gathered again in a child process (with faults on, a program may abort the engine); nullopt,
// with *why, when the child gave none.
std::optional<GenStats> sample_generator_stats(uint64_t first_seed, uint64_t programs,
                                               IsolationLimits limits, std::string* why);

// The closing summary: programs, rate, features, where the report is, the count per bucket,
// workers lost, then each finding signature with its files (one per line, newline-terminated).
std::string campaign_summary(const CampaignResult& r, const CampaignReport& report,
                             const std::filesystem::path& out_dir);

// The report's options for a campaign's (the seeds, jobs, shard, time box, oracles and limits
// it records); the output directory and minimizing budget are the caller's.
ReportOptions report_options_for(const CampaignOptions& opts);

// Runs the campaign with `report` kept current; `progress` gets each progress line. After the
// campaign, unless opts.stop was set: the generator statistics of seeds opts.first_seed.. (a
// failure to gather them is logged). Then the final report. `opts`' on_finding, on_progress and
// on_coverage are replaced.
CampaignResult run_reported_campaign(CampaignOptions opts, CampaignReport& report,
                                     const std::function<void(const std::string&)>& progress);

// Whether any entry of the report is a failure or a crash (not only triage).
bool has_findings(const CampaignReport& report);

// Everything `shapefuzz campaign` is asked to do.
struct CampaignSettings {
  CampaignOptions campaign;  // seeds, jobs, shard, time box, oracles, limits, exec_backend, stop
  std::filesystem::path out_dir = "report";
  bool out_dir_given = false;  // else a shard writes under OUT/shard-I-of-N
  double minimize_seconds = 30;
  std::string junit;            // JUnit XML written at the end when set
  std::string backend = "cpu";  // for messages
  // `--resume`: out_dir holds an earlier campaign, which this one continues
  // (fuzz/campaign_resume.h: its seeds, swarm growth, distilled corpus, features and nights);
  // guided.
  bool resume = false;
};

enum class CampaignExit { kClean, kFindings, kUsage, kUnavailable };

// The whole command: checks the output paths (a usage error, with its reason on stderr, before
// any work), runs the reported campaign with progress lines on stderr, writes the JUnit file,
// prints the summary on stdout. A guided campaign without a corpus directory keeps one under
// OUT/corpus. An interrupted campaign says so on stderr. A resumed one (s.resume) first reads
// what the last night left and distills its corpus (a usage error when OUT holds no campaign).
CampaignExit run_campaign_session(CampaignSettings s);

}  // namespace sf::fuzz
