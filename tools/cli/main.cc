// shapefuzz: the command-line entry point. Dispatches to one subcommand per file in tools/cli/.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "tools/cli/commands.h"

namespace sf::cli {

Args Args::parse(int argc, char** argv, int first) {
  Args a;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) == 0) {
      std::string key = s.substr(2), value = "1";
      size_t eq = key.find('=');
      if (eq != std::string::npos) {
        value = key.substr(eq + 1);
        key = key.substr(0, eq);
      } else if (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) {
        value = argv[++i];
      }
      a.values_[key] = value;
    } else {
      a.positional_.push_back(s);
    }
  }
  return a;
}

std::string Args::get(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

double Args::get_double(const std::string& key, double fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : std::strtod(it->second.c_str(), nullptr);
}

uint64_t Args::get_u64(const std::string& key, uint64_t fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : std::strtoull(it->second.c_str(), nullptr, 10);
}

}  // namespace sf::cli

namespace {

const char* kUsage = R"(usage: shapefuzz <command> [options]

commands:
  campaign [--seconds N] [--seed S] [--out DIR] [--timeout T]
      a time-boxed fuzz campaign on the CPU backend: generated programs through the whole
      pipeline and every oracle, crash-isolated in a worker process; failures and crashes are
      written as .sfz reproducers under DIR (default report/), with DIR/report.json; a program
      running longer than T seconds (default 10) is recorded as a hang
  run FILE.sfz [--backend cpu|cuda|none]
      parse, trace, re-propagate, insert runtime asserts, lower to a plan, run it on the backend
      (default cpu) and compare with the eager reference; prints every stage (graphs, bindings,
      guards, asserts, plan, sigma, outputs) and the verdict; exit 0 when the verdict matches the
      file's expectation, 1 on FAIL, 3 on a mismatch, 4 when the backend is unavailable
  diff-backends DIR [--rtol X] [--atol Y]
      the CPU <-> CUDA differential: lowers every .sfz under DIR once and runs the plan on both
      backends; prints agree/DIFFER per file; exit 0 when all agree, 1 otherwise, 4 when CUDA
      is unavailable
  bench-shape-env [--seed S] [--steps K] [--runs R] [--export FILE]
      times a seeded trace-shaped ShapeEnv operation sequence, generator included (median of
      R runs, ops/s), and writes it to FILE for tools/bench/pytorch_shape_env.py (the same
      sequence on PyTorch)
  bench-oracles [--programs N] [--seed S]
      each oracle's cost per program (median, p95, mean; solver per-query median, p95, unknowns)
      over the campaign's programs for seeds S..S+N-1 (default 1, 2000), and programs/s with
      every oracle vs the structural ones only
  gen [--seed S] [--count K]
      prints the generated programs the campaign runs for seeds S..S+K-1 (default 1, 1)
  zoo [--seconds N] [--faults a,b] [--seed S] [--out DIR]
      the bug zoo: for each fault switch (historical PyTorch bugs, engine/base/faults.def) runs
      the default campaign with it on until the first failure or crash (at most N seconds,
      default 60), shrinks that program, and prints: fault, PR, detected, seconds to first
      detection, bucket, reproducer lines before -> after (and its bucket with the fault off);
      reproducers (with a '# faults:' header, so they replay as-is) and zoo.json go to DIR
      (default report/zoo); exit 0 when every fault is detected
  fuzz-shape-env [--seconds N] [--seed S] [--steps K]
      random ShapeEnv call sequences checked against the ShapeEnv invariants (spec §8) and
      event-log replay; prints a reproducer seed on the first violation
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "help") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (std::optional<std::string> err = sf::enable_faults_from_env()) {
    std::fprintf(stderr, "%s\n", err->c_str());
    return 2;
  }
  std::string cmd = argv[1];
  sf::cli::Args args = sf::cli::Args::parse(argc, argv, 2);
  try {
    if (cmd == "fuzz-shape-env") return sf::cli::fuzz_shape_env_command(args);
    if (cmd == "run") return sf::cli::run_command(args);
    if (cmd == "diff-backends") return sf::cli::diff_backends_command(args);
    if (cmd == "campaign") return sf::cli::campaign_command(args);
    if (cmd == "bench-shape-env") return sf::cli::bench_shape_env_command(args);
    if (cmd == "zoo") return sf::cli::zoo_command(args);
    if (cmd == "gen") return sf::cli::gen_command(args);
    if (cmd == "bench-oracles") return sf::cli::bench_oracles_command(args);
  } catch (const sf::UserError& e) {
    std::fprintf(stderr, "error (%s): %s\n", sf::user_error_kind_name(e.kind()), e.what());
    return 2;
  } catch (const sf::Unavailable& e) {
    std::fprintf(stderr, "unavailable: %s\n", e.what());
    return 4;
  } catch (const std::filesystem::filesystem_error& e) {
    // An OS error (unwritable --out, full disk): neither the program's fault nor an engine bug.
    std::fprintf(stderr, "I/O error: %s\n", e.what());
    return 2;
  }
  // EngineBug is not caught: an engine bug ends the process visibly, like an SF_CHECK abort.
  std::fprintf(stderr, "unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
  return 2;
}
