// A guided campaign's corpus: entries written and read as .sfz files, and distilled to a minimal
// set with the same features (greedy set cover over each entry's features).
#include "fuzz/corpus.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/printer.h"
#include "fuzz/features.h"
#include "fuzz/files.h"
#include "fuzz/outcome.h"

namespace sf::fuzz {

void write_corpus_entry(const std::string& dir, const Recipe& r, const program::Program& p) {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.sfz",
                static_cast<unsigned long long>(std::hash<std::string>()(r.str())));
  write_atomically(std::filesystem::path(dir) / name,
                   reproducer_text("recipe: " + r.str(), program::print_program(p)));
}

std::vector<Recipe> read_corpus(const std::string& dir) {
  std::vector<Recipe> out;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".sfz") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::optional<std::string> text = read_text_file(f);
    if (!text) continue;
    size_t at = text->find("# recipe: ");
    if (at == std::string::npos) continue;
    size_t end = text->find('\n', at);
    if (std::optional<Recipe> r = Recipe::parse(text->substr(at + 10, end - at - 10))) {
      out.push_back(*r);
    }
  }
  return out;
}

std::vector<uint64_t> recipe_features(Recipe recipe, oracles::PipelineOptions pipeline) {
  GeneratedProgram g = generated_for_recipe(recipe);
  std::unique_ptr<backend::Backend> cpu = backend::make_cpu_backend();
  pipeline.backend = cpu.get();
  pipeline.eager_reference = &g.eager;
  oracles::PipelineResult result = oracles::run_pipeline(g.program, pipeline);
  std::vector<uint64_t> f = program_features(g.program, result, outcome_of(result.verdict).bucket);
  std::sort(f.begin(), f.end());
  f.erase(std::unique(f.begin(), f.end()), f.end());
  return f;
}

namespace {

std::string hex_list(const std::vector<uint64_t>& v) {
  std::string out;
  char hex[24];
  for (uint64_t x : v) {
    std::snprintf(hex, sizeof hex, "%llx,", static_cast<unsigned long long>(x));
    out += hex;
  }
  return out;
}

std::optional<std::vector<uint64_t>> parse_hex_list(const std::string& text) {
  std::vector<uint64_t> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t comma = text.find(',', at);
    if (comma == std::string::npos || comma == at || comma - at > 16) return std::nullopt;
    std::string item = text.substr(at, comma - at);
    if (item.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
    out.push_back(std::stoull(item, nullptr, 16));
    at = comma + 1;
  }
  return out;
}

}  // namespace

DistillResult distill_corpus(const std::vector<std::filesystem::path>& dirs,
                             const std::filesystem::path& out,
                             const oracles::PipelineOptions& pipeline,
                             const IsolationLimits& limits) {
  DistillResult r;
  std::map<std::string, Recipe> recipes;  // by text: the same entry in two corpora runs once
  for (const std::filesystem::path& dir : dirs) {
    for (const Recipe& recipe : read_corpus(dir.string())) recipes.emplace(recipe.str(), recipe);
  }
  r.read = recipes.size();
  struct Candidate {
    Recipe recipe;
    std::vector<uint64_t> features;
  };
  std::vector<Candidate> candidates;
  for (const auto& [text, recipe] : recipes) {
    IsolatedResult run =
        run_isolated([&] { return hex_list(recipe_features(recipe, pipeline)); }, limits);
    std::optional<std::vector<uint64_t>> features;
    if (run.crash.empty()) features = parse_hex_list(run.output);
    if (!features) {
      ++r.crashed;
      continue;
    }
    candidates.push_back({recipe, std::move(*features)});
  }
  std::set<uint64_t> all, reached;
  for (const Candidate& c : candidates) all.insert(c.features.begin(), c.features.end());
  r.features = all.size();
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  std::vector<bool> taken(candidates.size(), false);
  while (reached.size() < all.size()) {
    size_t best = candidates.size(), best_gain = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (taken[i]) continue;
      size_t gain = 0;
      for (uint64_t f : candidates[i].features) gain += reached.count(f) ? 0 : 1;
      if (gain > best_gain) best = i, best_gain = gain;  // ties: the first, by recipe text
    }
    if (best == candidates.size()) break;
    taken[best] = true;
    reached.insert(candidates[best].features.begin(), candidates[best].features.end());
    Recipe recipe = candidates[best].recipe;
    write_corpus_entry(out.string(), recipe, generated_for_recipe(recipe).program);
    ++r.kept;
  }
  return r;
}

}  // namespace sf::fuzz
