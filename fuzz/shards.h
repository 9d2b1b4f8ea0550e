// A campaign split over machines: `campaign --shard I/N` runs one residue class of the seeds (its
// report and reproducers in its own directory), and `merge` makes one report of the N shard
// directories: findings deduplicated by signature, counts summed, timelines combined, feature sets
// and guided corpora unioned (the corpus distilled), new signatures told from a known list. Also
// what CI logs read of any report: a one-line summary and JUnit XML.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fuzz/corpus.h"
#include "fuzz/isolated.h"
#include "fuzz/junit.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

struct ShardSpec {
  int index = 0, count = 1;
};
// "I/N" with 0 <= I < N <= 65536; nullopt otherwise.
std::optional<ShardSpec> parse_shard(const std::string& text);

// A checked-in list of known finding signatures: one per line; blank lines and lines starting
// with '#' are skipped; surrounding spaces are trimmed.
std::set<std::string> parse_known_signatures(const std::string& text);

struct MergeOptions {
  std::filesystem::path out_dir;
  std::vector<std::filesystem::path> shard_dirs;
  std::optional<std::set<std::string>> known;  // when set: which findings are new
  bool distill = true;                         // union and distill the shards' corpora
  oracles::PipelineOptions pipeline;           // for the corpus entries' features
  IsolationLimits limits;                      // for each corpus entry's run
  int jobs = 1;                                // corpus entries run at once
};

struct MergeResult {
  nlohmann::ordered_json report;  // what OUT/report.json holds
  size_t shards_read = 0;
  // Shard directories without a readable (well-typed) report, shards missing from 0..N-1, given
  // twice or of another campaign than the first read (first seed, seed count or shard count
  // differ; those two are left out of every count), and files a report names that are missing.
  std::vector<std::string> problems;
  // Every shard 0..N-1 of one campaign was read once (whether each finished is its status).
  bool complete = false;
  // Failure and crash signatures not in the known list (every one when there is no list).
  std::vector<std::string> new_signatures;
  std::optional<DistillResult> corpus;  // when some shard had a corpus
};

// Reads OUT_i/report.json (and features.txt, corpus/) of every shard directory, a shard that died
// mid-run included (its last report is complete, and names only files it wrote), and writes into
// out_dir: report.json and report.html (docs/report-schema.md, with "shards", "complete" and
// "problems"), features.txt, the reproducer files of every finding (those of its smallest first
// seed's shard), and corpus/ (replaced). A report whose fields are not of their types is a
// problem, never a crash.
MergeResult merge_shards(const MergeOptions& opts);

// One line for a CI log: status, programs, findings by class (new ones when a known list was
// read), features; `new_signatures` < 0 when there was no list.
std::string report_summary_line(const nlohmann::ordered_json& report, long new_signatures = -1);

// JUnit for a report: a case per finding signature (failures and crashes fail; with a known list
// a known one is skipped; triage is skipped), and one case for the campaign itself.
std::vector<JUnitSuite> report_junit(const nlohmann::ordered_json& report,
                                     const std::optional<std::set<std::string>>& known);

}  // namespace sf::fuzz
