// A guided campaign's corpus directory: programs kept for reaching a feature, each an .sfz file
// with a "# recipe:" line. Written and read by the campaign's workers, and distilled (the union
// of several corpora cut to a small set that reaches the same engine-level features, as
// libFuzzer's -merge=1) by `shapefuzz merge`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/program/ast.h"
#include "fuzz/isolated.h"
#include "fuzz/recipe.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

// Writes `<hash of the recipe>.sfz` (the program with its recipe) atomically into `dir`.
void write_corpus_entry(const std::string& dir, const Recipe& r, const program::Program& p);
// The recipes of the .sfz files directly in `dir` (sorted by file name; files without a readable
// recipe are skipped); empty when `dir` cannot be read.
std::vector<Recipe> read_corpus(const std::string& dir);

// The engine-level features (fuzz/features.h) of a recipe's program run through the pipeline on
// the CPU backend with `pipeline`'s oracles, as a campaign's worker counts them: sorted, unique.
std::vector<uint64_t> recipe_features(Recipe recipe, oracles::PipelineOptions pipeline);

struct DistillResult {
  size_t read = 0;      // distinct recipes in the corpora
  size_t kept = 0;      // written to the output
  size_t crashed = 0;   // whose run crashed or hung (dropped: a corpus keeps no crash)
  size_t features = 0;  // distinct features of the entries read, all reached by those kept

  // {"read", "kept", "crashed", "features"}: a report's record of a distillation.
  nlohmann::ordered_json json() const {
    return {{"read", read}, {"kept", kept}, {"crashed", crashed}, {"features", features}};
  }
};

// Reads the corpora in `dirs`, runs each distinct recipe once (crash-isolated, within `limits`;
// `jobs` child processes at once, each running a batch) for its engine-level features, and writes
// to `out` a set reaching all of them: entries taken greedily, the one adding most features not
// yet reached first (ties: the recipe's text), until none adds any. Code-edge features (a sancov
// build's) are not kept: an entry that reached only edges is dropped. Deterministic for the same
// corpora.
DistillResult distill_corpus(const std::vector<std::filesystem::path>& dirs,
                             const std::filesystem::path& out,
                             const oracles::PipelineOptions& pipeline,
                             const IsolationLimits& limits, int jobs = 1);

}  // namespace sf::fuzz
