// The CLI's subcommands. Each registers itself on the CLI11 app (typed, validated options and
// --help for free); exit codes are shared by every command and documented in README.md.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "engine/program/ast.h"
#include "fuzz/isolated.h"
#include "oracles/pipeline.h"

namespace sf::cli {

// Exit codes, the same for every command.
enum ExitCode : int {
  kExitOk = 0,            // passed / reproduced / nothing found
  kExitFindings = 1,      // a failure, crash or wrong rejection (or a different failure)
  kExitUsage = 2,         // bad command line, unreadable or invalid input file, unwritable output
  kExitMismatch = 3,      // the verdict is not the file's expectation; a reproducer no longer fails
  kExitUnavailable = 4,   // the requested backend (CUDA) is not available here
  kExitInconclusive = 5,  // an oracle could not decide
  kExitFlaky = 6,         // repro: the verdicts of repeated runs differ
};

// The body of the selected command; returns its exit code.
using Action = std::function<int()>;

// Each adds its subcommand to `app`; when the command line selects it, `*action` is set.
void add_campaign_command(CLI::App& app, Action* action);
void add_campaign_worker_command(CLI::App& app, Action* action);
void add_run_command(CLI::App& app, Action* action);
void add_repro_command(CLI::App& app, Action* action);
void add_minimize_command(CLI::App& app, Action* action);
void add_gen_command(CLI::App& app, Action* action);
void add_diff_backends_command(CLI::App& app, Action* action);
void add_zoo_command(CLI::App& app, Action* action);
void add_bench_oracles_command(CLI::App& app, Action* action);
void add_bench_pipeline_command(CLI::App& app, Action* action);
void add_bench_shape_env_command(CLI::App& app, Action* action);
void add_fuzz_shape_env_command(CLI::App& app, Action* action);
void add_check_command(CLI::App& app, Action* action);
void add_export_torch_command(CLI::App& app, Action* action);
void add_torch_diff_command(CLI::App& app, Action* action);
void add_merge_command(CLI::App& app, Action* action);

// The oracle flags shared by the commands that run the pipeline (--oracles, --oracle-timeout-ms,
// --oracle-deadline-ms, --cross-check); `options()` gives the pipeline options they select (no
// backend set).
struct OracleFlags {
  std::string oracles = "all";
  unsigned timeout_ms = 1000;
  unsigned deadline_ms = oracles::PipelineOptions{}.oracle_deadline_ms;
  bool cross_check = false;
  void add_to(CLI::App* cmd);
  oracles::PipelineOptions options() const;
};

// The limits of the child process a program runs in (--timeout, --memory-mb), for the commands
// that run programs crash-isolated.
struct IsolationFlags {
  fuzz::IsolationLimits limits;
  void add_to(CLI::App* cmd);
};

// Validators with plain messages ("expected a positive number, got 'abc'").
CLI::Validator positive_number();
CLI::Validator non_negative_number();
// A seed: an integer from 0 to 2^64 - 1 (a negative one would wrap silently into a huge seed).
CLI::Validator seed_number();

// Reads a program file; a missing or unreadable file is a usage error (CLI::ValidationError).
std::string read_program_file(const std::string& path);
// Reads and parses a program file; one that does not parse is a usage error too.
program::Program parse_program_file(const std::string& path, std::string* text);

}  // namespace sf::cli
