// A guided campaign's corpus: entries written and read as .sfz files, and distilled to a minimal
// set with the same features (greedy set cover over each entry's features).
#include "fuzz/corpus.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
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
#include "fuzz/recipe.h"
#include "fuzz/run_generated.h"
#include "fuzz/sancov.h"

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
  oracles::PipelineResult result = run_generated(g, pipeline);
  std::vector<uint64_t> f = program_features(g.program, result, outcome_of(result.verdict).bucket);
  for (uint64_t& x : f) x &= ~kEdgeFeatureBit;  // as a worker counts them: edges are apart
  std::sort(f.begin(), f.end());
  f.erase(std::unique(f.begin(), f.end()), f.end());
  return f;
}

namespace {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The features of each recipe, or nullopt for one whose run crashed or hung. Batches of recipes
// run in `jobs` child processes at once; each writes "index hexlist" lines to a file of its own
// as it goes, so a batch that crashes loses only its rest, which then runs one recipe per child.
std::vector<std::optional<std::vector<uint64_t>>> features_of(
    const std::vector<Recipe>& recipes, const oracles::PipelineOptions& pipeline,
    const IsolationLimits& limits, int jobs) {
  const size_t n = recipes.size(), workers = static_cast<size_t>(std::max(1, jobs));
  std::vector<std::optional<std::vector<uint64_t>>> out(n);
  const size_t batch = std::clamp<size_t>(n / (workers * 4), 1, 64);
  struct Running {
    pid_t pid;
    size_t begin, end;
    int file;
    double deadline;
  };
  std::vector<Running> running;
  size_t next = 0;
  std::fflush(nullptr);
  auto collect = [&](const Running& r) {
    std::string text = read_stderr_file(r.file, size_t{1} << 30);
    close(r.file);
    for (size_t at = 0; at < text.size();) {
      size_t nl = text.find('\n', at);
      if (nl == std::string::npos) break;  // a line cut by a crash
      std::string line = text.substr(at, nl - at);
      at = nl + 1;
      size_t sp = line.find(' ');
      if (sp == std::string::npos) continue;
      size_t i = std::stoull(line.substr(0, sp));
      if (i >= r.begin && i < r.end) out[i] = parse_hash_list(line.substr(sp + 1), ',');
    }
  };
  while (next < n || !running.empty()) {
    while (running.size() < workers && next < n) {
      Running r{-1, next, std::min(n, next + batch), make_stderr_file(), 0};
      next = r.end;
      r.deadline = seconds_now() + limits.timeout_seconds * static_cast<double>(r.end - r.begin);
      r.pid = r.file < 0 ? -1 : fork();
      if (r.pid == 0) {
        silence_stderr();
        limit_memory(limits.memory_mb, limits.cap);
        try {
          for (size_t i = r.begin; i < r.end; ++i) {
            std::string line = std::to_string(i) + " " +
                               hash_list_text(recipe_features(recipes[i], pipeline), ',') + "\n";
            if (write(r.file, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
              _exit(1);
            }
          }
        } catch (...) {
          _exit(1);
        }
        _exit(0);
      }
      if (r.pid < 0) {  // no process to spare: these run one per child below
        if (r.file >= 0) close(r.file);
        continue;
      }
      running.push_back(r);
    }
    bool reaped = false;
    for (size_t k = 0; k < running.size(); ++k) {
      int status = 0;
      pid_t got = waitpid(running[k].pid, &status, WNOHANG);
      if (got == 0 && seconds_now() > running[k].deadline) {
        kill(running[k].pid, SIGKILL);
        got = waitpid(running[k].pid, &status, 0);
      }
      if (got != running[k].pid) continue;
      collect(running[k]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k--));
      reaped = true;
    }
    if (!reaped && !running.empty()) {
      struct timespec tick = {0, 5 * 1000 * 1000};
      nanosleep(&tick, nullptr);
    }
  }
  // What a crashed or hung batch did not get to: one recipe per child, so only the culprit is lost.
  for (size_t i = 0; i < n; ++i) {
    if (out[i]) continue;
    IsolatedResult run = run_isolated(
        [&] { return hash_list_text(recipe_features(recipes[i], pipeline), ','); }, limits);
    if (run.crash.empty()) out[i] = parse_hash_list(run.output, ',');
  }
  return out;
}

}  // namespace

DistillResult distill_corpus(const std::vector<std::filesystem::path>& dirs,
                             const std::filesystem::path& out,
                             const oracles::PipelineOptions& pipeline,
                             const IsolationLimits& limits, int jobs) {
  DistillResult r;
  std::map<std::string, Recipe> by_text;  // the same entry in two corpora runs once
  for (const std::filesystem::path& dir : dirs) {
    for (const Recipe& recipe : read_corpus(dir.string())) by_text.emplace(recipe.str(), recipe);
  }
  r.read = by_text.size();
  std::vector<Recipe> recipes;
  for (const auto& [text, recipe] : by_text) recipes.push_back(recipe);
  struct Candidate {
    Recipe recipe;
    std::vector<uint64_t> features;
  };
  std::vector<Candidate> candidates;
  std::vector<std::optional<std::vector<uint64_t>>> features =
      features_of(recipes, pipeline, limits, jobs);
  for (size_t i = 0; i < recipes.size(); ++i) {
    if (!features[i]) {
      ++r.crashed;
      continue;
    }
    candidates.push_back({recipes[i], std::move(*features[i])});
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
