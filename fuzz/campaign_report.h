// What a campaign leaves on disk, kept current as it runs: per new finding signature the original
// reproducer, a minimized one and a GoogleTest file, and report.json (counts, findings, files, a
// timeline; schema in docs/report-schema.md) with report.html (the same, for people), all written
// atomically, so kill -9 of the campaign at any moment leaves a valid, current report. An
// interrupted campaign (SIGINT/SIGTERM: CampaignResult::interrupted) gets a final report too.
//
//   OUT/report.json, OUT/report.html
//   OUT/features.txt    the distinct features' hashes, one per line (what `merge` unions)
//   OUT/{failures,crashes,triage}/<bucket>-<hash>.sfz        the program that found it
//   OUT/{failures,crashes,triage}/<bucket>-<hash>.min.sfz    minimized, same signature
//   OUT/{failures,crashes,triage}/<bucket>-<hash>_test.cc    a drop-in GoogleTest file
#pragma once

#include <csignal>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "fuzz/campaign.h"
#include "fuzz/gen_stats.h"
#include "fuzz/isolated.h"

namespace sf::fuzz {

struct ReportOptions {
  std::filesystem::path out_dir = "report";
  double minimize_seconds = 30;  // per new signature; 0 writes no minimized file
  // The campaign's time box: minimizing a finding takes at most the time left (but 2 s at least),
  // so a campaign overruns it by little. 0: unknown (always minimize_seconds).
  double campaign_seconds = 0;
  oracles::PipelineOptions pipeline;  // what reproducers are judged with (no backend needed)
  IsolationLimits limits;             // for each run while minimizing
  bool quiet = false;                 // no progress lines on stderr
  // The campaign's stop request (CampaignOptions::stop): once set, finish() waits for no
  // minimizer (the one running is killed, the queued ones are not started).
  const volatile std::sig_atomic_t* stop = nullptr;
  // Which seeds the campaign runs (report.json's "campaign" object: what `merge` checks shards
  // against each other with).
  uint64_t first_seed = 1, seeds = 0;
  int jobs = 1, shard = 0, shards = 1;
  bool swarm = false;
  uint64_t swarm_origin = 0;
  // A resumed campaign (fuzz/campaign_resume.h): the features earlier nights reached (the report
  // counts the union), and their records, to which this run's is appended as report.json's
  // "nights".
  std::vector<uint64_t> known_features;
  nlohmann::ordered_json nights = nlohmann::ordered_json::array();
  // This night's corpus, distilled before it started ({"read", "kept", ...}; null when none).
  nlohmann::ordered_json corpus;
};

class CampaignReport {
 public:
  // Refuses (std::runtime_error with the OS's reason) an output directory it cannot write.
  explicit CampaignReport(ReportOptions opts);

  // Kills and reaps a minimizer still running (the campaign ended by an exception).
  ~CampaignReport();
  CampaignReport(const CampaignReport&) = delete;
  CampaignReport& operator=(const CampaignReport&) = delete;

  // A campaign finding: the first of a signature is written at once and minimized in a child
  // process, one at a time, while the campaign goes on (the parent's loop never waits for a
  // minimizer); others are counted.
  void add(const Finding& f);
  // Running totals; report.json is rewritten at most every two seconds. Also takes the result
  // of a minimizer that has finished and starts the next.
  void progress(double elapsed, uint64_t programs, const std::map<std::string, uint64_t>& buckets);
  // What the programs of seeds first_seed.. contain (gathered after the campaign; a guided
  // campaign's mutants are not among them): the report's op, feature and binding-path histograms.
  void set_generator_stats(const GenStats& stats, uint64_t first_seed) {
    generator_ = stats;
    generator_first_seed_ = first_seed;
  }
  // Distinct engine-level features so far (CampaignOptions::on_coverage).
  void coverage(const std::unordered_set<uint64_t>& features);
  // The final report ("status": "finished"), once every queued minimization is done (each within
  // its time budget). An interrupted campaign (r.interrupted, or a stop request while waiting)
  // gets "status": "interrupted" at once: the minimizer running is killed (a minimized
  // reproducer it had already written is kept and named), the queued ones never start.
  void finish(const CampaignResult& r);

  struct Entry {
    std::string signature, bucket, detail, found_by;
    std::string recipe;  // a guided campaign's mutant (fuzz/recipe.h); "" for a seed
    uint64_t first_seed = 0, count = 0;
    double found_at = 0;
    std::string original, minimized, test;  // paths, relative to out_dir
    int lines_before = 0, lines_after = 0;
    double minimize_seconds = 0;
    int minimize_attempts = 0;
    std::string minimize_stopped_by;  // "fixpoint", "attempts", "time", "interrupted"
    // Whether the program gave the same signature when run alone (a finding can depend on the
    // worker's earlier programs); only a replaying finding is minimized and gets a test file.
    bool replays = true;
  };
  const std::vector<Entry>& entries() const { return entries_; }
  // What report.json holds now (final after finish): for the summary line and JUnit.
  const nlohmann::ordered_json& json() const { return json_; }

 private:
  void write_report(bool finished);
  void add_sample();
  void minimize(Entry& e, const std::string& text, double budget);
  // Minimizers: one runs at a time in a forked child, which writes the minimized files and a
  // result file; the parent reads the result back into the entry.
  void start_next_minimizer();
  void take_minimizer_result(bool block);
  // Kills the minimizer running and drops the queue (an interrupted campaign).
  void stop_minimizing();
  bool stop_requested() const { return opts_.stop && *opts_.stop != 0; }
  struct QueuedMinimization {
    size_t entry;
    std::string text;
    double found_at;
  };
  std::deque<QueuedMinimization> minimize_queue_;
  int minimizer_pid_ = -1;
  size_t minimizer_entry_ = 0;
  std::filesystem::file_time_type minimizer_started_;

  ReportOptions opts_;
  std::vector<Entry> entries_;
  std::map<std::string, size_t> by_signature_;
  std::map<std::string, uint64_t> buckets_;
  uint64_t programs_ = 0, workers_lost_ = 0, features_ = 0, edge_features_ = 0;
  uint64_t resume_seed_ = 0;  // the campaign's CampaignResult::resume_seed, once finished
  // Every feature reached so far, the earlier nights' (opts_.known_features) included, and how
  // many of them the earlier nights reached.
  std::unordered_set<uint64_t> reached_;
  size_t known_features_ = 0;
  nlohmann::ordered_json json_;           // the report last written
  std::vector<uint64_t> feature_hashes_;  // sorted; written to features.txt when it grew
  // SIZE_MAX: not written yet (the first report writes it, empty or not, replacing what an
  // earlier campaign in the same directory left).
  size_t feature_hashes_written_ = SIZE_MAX;
  double elapsed_ = 0, last_write_ = -1e9;
  bool interrupted_ = false;
  // The counts about once a second (progress calls), for the report's charts.
  struct Sample {
    double seconds = 0;
    uint64_t programs = 0;
    uint64_t features = 0;
    std::map<std::string, uint64_t> buckets;
  };
  static constexpr size_t kMaxSamples = 600;
  std::vector<Sample> timeline_;
  std::optional<GenStats> generator_;
  uint64_t generator_first_seed_ = 0;
};

// "failures", "crashes" or "triage": where a bucket's files go.
std::string finding_class(const std::string& bucket);

// report.json's schema_version (docs/report-schema.md).
inline constexpr int kReportSchemaVersion = 2;

}  // namespace sf::fuzz
