// `campaign --resume DIR`, night after night: the new run goes on past the seeds the last one
// started, keeps its swarm growth, starts from its guided corpus distilled (libFuzzer's -merge=1:
// the entries that reach the same features), counts features together with the earlier nights'
// and appends its own record to report.json's "nights".
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/corpus.h"
#include "fuzz/isolated.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

// What an earlier campaign in a directory left for the next night.
struct ResumeState {
  uint64_t first_seed = 1;    // report.json campaign.resume_seed
  uint64_t swarm_origin = 0;  // the first night's first seed (0 when it ran without swarm)
  std::vector<uint64_t> known_features;                             // features.txt
  nlohmann::ordered_json nights = nlohmann::ordered_json::array();  // report.json "nights"
};

// Reads DIR/report.json and DIR/features.txt; nullopt, with *why, when DIR holds no campaign
// report (missing, not JSON, without a "campaign" object) or its features.txt does not parse. A
// report from before the "nights" record counts as one night.
std::optional<ResumeState> read_resume_state(const std::filesystem::path& dir, std::string* why);

// Distills the corpus directory in place (into a sibling directory, then swapped in by renames,
// so an interruption leaves the old corpus or the new one whole). A directory that does not
// exist is created empty (read 0, kept 0).
DistillResult distill_corpus_in_place(const std::filesystem::path& corpus,
                                      const oracles::PipelineOptions& pipeline,
                                      const IsolationLimits& limits, int jobs);

}  // namespace sf::fuzz
