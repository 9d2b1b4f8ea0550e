// `shapefuzz bench-oracles`: what each oracle costs per program. Runs the campaign's programs for
// seeds S..S+N-1 in this process (CPU backend, every oracle) and prints, per oracle, the median,
// p95 and mean time per program and the solver's per-query median and p95, then the whole
// pipeline's programs/s with every oracle and with the structural oracles only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "fuzz/campaign.h"
#include "oracles/pipeline.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

// Programs per second over the seeds with `set`, and each oracle's reports.
double throughput(uint64_t seed, uint64_t n, const oracles::OracleSet& set,
                  std::map<std::string, std::vector<oracles::OracleReport>>* reports) {
  auto cpu = backend::make_cpu_backend();
  oracles::PipelineOptions opts;
  opts.backend = cpu.get();
  opts.oracles = set;
  auto start = std::chrono::steady_clock::now();
  for (uint64_t k = 0; k < n; ++k) {  // seeds count modulo 2^64, as gen's
    uint64_t s = seed + k;
    oracles::PipelineResult r = oracles::run_pipeline(fuzz::program_for_seed(s), opts);
    if (reports) {
      for (oracles::OracleReport& rep : r.reports) (*reports)[rep.name].push_back(std::move(rep));
    }
  }
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return static_cast<double>(n) / el;
}

int bench_oracles(uint64_t seed, uint64_t n) {
  std::map<std::string, std::vector<oracles::OracleReport>> reports;
  double all = throughput(seed, n, oracles::OracleSet::all(), &reports);
  double structural = throughput(seed, n, oracles::OracleSet::structural_only(), nullptr);
  std::printf("%llu programs (seeds %llu..%llu), CPU backend, one core\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed + n - 1));
  std::printf("%-13s %6s %11s %11s %11s %9s %13s %13s %8s\n", "oracle", "ran", "median ms",
              "p95 ms", "mean ms", "queries", "q median ms", "q p95 ms", "unknown");
  std::vector<double> all_queries;
  int64_t all_unknown = 0;
  for (const auto& [name, reps] : reports) {
    std::vector<double> ms, qs;
    int64_t queries = 0, unknown = 0;
    double sum = 0;
    for (const oracles::OracleReport& r : reps) {
      if (!r.ran) continue;
      ms.push_back(r.seconds * 1e3);
      sum += r.seconds * 1e3;
      queries += r.smt.queries;
      unknown += r.smt.unknown + r.smt.error;
      for (double q : r.smt.seconds) qs.push_back(q * 1e3);
    }
    all_queries.insert(all_queries.end(), qs.begin(), qs.end());
    all_unknown += unknown;
    std::printf("%-13s %6zu %11.3f %11.3f %11.3f %9lld %13.4f %13.4f %8lld\n", name.c_str(),
                ms.size(), quantile(ms, 0.5), quantile(ms, 0.95), ms.empty() ? 0 : sum / ms.size(),
                static_cast<long long>(queries), quantile(qs, 0.5), quantile(qs, 0.95),
                static_cast<long long>(unknown));
  }
  std::printf("solver queries: %zu, median %.4f ms, p95 %.4f ms; unknown or error: %lld\n",
              all_queries.size(), quantile(all_queries, 0.5), quantile(all_queries, 0.95),
              static_cast<long long>(all_unknown));
  std::printf("programs/s: every oracle %.0f, structural only %.0f (ratio %.2f)\n", all, structural,
              structural / all);
  return kExitOk;
}

}  // namespace

void add_bench_oracles_command(CLI::App& app, Action* action) {
  auto seed = std::make_shared<uint64_t>(1), programs = std::make_shared<uint64_t>(2000);
  CLI::App* cmd = app.add_subcommand(
      "bench-oracles",
      "each oracle's cost per program (median, p95, mean; solver per-query median, p95, "
      "unknowns) over the campaign's programs, and programs/s with every oracle vs the "
      "structural ones only");
  cmd->add_option("--seed", *seed, "first seed")->capture_default_str()->check(seed_number());
  cmd->add_option("--programs", *programs, "how many programs")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  cmd->callback([=] { *action = [=] { return bench_oracles(*seed, *programs); }; });
}

}  // namespace sf::cli
