// `shapefuzz bench-pipeline`: the cost of generating and compiling programs by their length. For
// each length L it generates programs of L drawn statements (seeds S..S+N-1; a draw the generator
// cannot make valid is dropped, a mutation adds up to 4), runs each through the pipeline in this
// process and prints statements per program, programs/s and microseconds per statement,
// generator and pipeline apart. With --corpus DIR, instead, every .sfz under DIR once: a fixed
// workload the generator's distribution does not move (tools/perf-guard measures it).
// Deterministic, so `valgrind --tool=callgrind` gives comparable counts.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/parser.h"
#include "fuzz/files.h"
#include "fuzz/gen/program_gen.h"
#include "fuzz/run_generated.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct BenchPipelineFlags {
  uint64_t seed = 1;
  uint64_t programs = 1000;
  // 0 is the campaign's own programs (the default policy: 1 to 12 statements).
  std::vector<int> lengths = {0, 4, 8, 16, 32, 64};
  std::string corpus;  // a directory of .sfz files, run instead of generated programs
  OracleFlags oracle_flags;
};

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Every .sfz under f.corpus once, in name order: programs/s and microseconds per statement.
int bench_corpus(const BenchPipelineFlags& f, oracles::PipelineOptions opts) {
  std::error_code error;
  std::vector<std::filesystem::path> files = fuzz::sfz_files_under(f.corpus, &error);
  if (error || files.empty()) {
    std::fprintf(stderr, "bench-pipeline: no .sfz files under %s\n", f.corpus.c_str());
    return kExitUsage;
  }
  std::vector<program::Program> programs;
  for (const std::filesystem::path& file : files)
    programs.push_back(program::parse_program(read_program_file(file.string())));
  uint64_t statements = 0, passes = 0;
  Clock::time_point t0 = Clock::now();
  for (const program::Program& p : programs) {
    oracles::PipelineResult r = oracles::run_pipeline(p, opts);
    statements += p.body.size();
    passes += r.verdict.kind == oracles::Verdict::Kind::kPass;
  }
  double s = seconds_since(t0), n = static_cast<double>(programs.size());
  std::printf("%zu programs from %s, oracles: %s, CPU backend, one core\n", programs.size(),
              f.corpus.c_str(), f.oracle_flags.oracles.c_str());
  std::printf("%-10s %10s %12s %13s %7s\n", "corpus", "stmts/prog", "programs/s", "pipe us/stmt",
              "pass%");
  std::printf("%-10s %10.1f %12.0f %13.1f %7.1f\n", "", static_cast<double>(statements) / n, n / s,
              s * 1e6 / static_cast<double>(statements), 100.0 * static_cast<double>(passes) / n);
  return kExitOk;
}

int bench_pipeline(const BenchPipelineFlags& f) {
  auto cpu = backend::make_cpu_backend();
  oracles::PipelineOptions opts = f.oracle_flags.options();
  opts.backend = cpu.get();
  if (!f.corpus.empty()) return bench_corpus(f, opts);
  std::printf("%llu programs per row (seeds %llu..), oracles: %s, CPU backend, one core\n",
              static_cast<unsigned long long>(f.programs), static_cast<unsigned long long>(f.seed),
              f.oracle_flags.oracles.c_str());
  std::printf("%-10s %10s %12s %13s %13s %13s %7s\n", "length", "stmts/prog", "programs/s",
              "gen us/stmt", "pipe us/stmt", "all us/stmt", "pass%");
  for (int length : f.lengths) {
    fuzz::ProgramPolicy policy;
    if (length > 0) policy.min_statements = policy.max_statements = length;
    double gen_s = 0, pipe_s = 0;
    uint64_t statements = 0, passes = 0;
    for (uint64_t k = 0; k < f.programs; ++k) {  // seeds count modulo 2^64, as gen's
      uint64_t s = f.seed + k;
      Clock::time_point t0 = Clock::now();
      fuzz::SeedSource src(s);
      fuzz::GeneratedProgram g = fuzz::generate_program_with_result(src, policy);
      const program::Program& p = g.program;
      gen_s += seconds_since(t0);
      t0 = Clock::now();
      oracles::PipelineResult r = fuzz::run_generated(g, opts);  // as the campaign
      pipe_s += seconds_since(t0);
      statements += p.body.size();
      passes += r.verdict.kind == oracles::Verdict::Kind::kPass;
    }
    double n = static_cast<double>(f.programs), stmts = static_cast<double>(statements);
    std::printf("%-10s %10.1f %12.0f %13.1f %13.1f %13.1f %7.1f\n",
                length > 0 ? std::to_string(length).c_str() : "campaign", stmts / n,
                n / (gen_s + pipe_s), gen_s * 1e6 / stmts, pipe_s * 1e6 / stmts,
                (gen_s + pipe_s) * 1e6 / stmts, 100.0 * static_cast<double>(passes) / n);
  }
  return kExitOk;
}

}  // namespace

void add_bench_pipeline_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<BenchPipelineFlags>();
  f->oracle_flags.oracles = "structural";
  CLI::App* cmd = app.add_subcommand(
      "bench-pipeline",
      "programs/s and microseconds per statement (generator and pipeline apart) for programs of "
      "each length, in this process");
  cmd->add_option("--seed", f->seed, "first seed")->capture_default_str()->check(seed_number());
  cmd->add_option("--programs", f->programs, "programs per length")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  cmd->add_option("--lengths", f->lengths,
                  "statements per program, one row each (0: the campaign's programs, 1 to 12)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--corpus", f->corpus,
                  "run every .sfz under this directory once instead of generated programs");
  f->oracle_flags.add_to(cmd);
  cmd->callback([=] { *action = [=] { return bench_pipeline(*f); }; });
}

}  // namespace sf::cli
