// shapefuzz: the command-line entry point. CLI11 parses the command line (one subcommand per file
// in tools/cli/); this file maps errors to the shared exit codes (commands.h, README "Exit codes").
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "tools/cli/commands.h"

namespace sf::cli {

void OracleFlags::add_to(CLI::App* cmd) {
  cmd->add_option("--oracles", oracles,
                  "'all', or a comma list of structural, differential, binding, rename, memo, tv")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) {
            std::string error;
            return oracles::OracleSet::parse(text, &error) ? std::string() : error;
          },
          "ORACLES"));
  cmd->add_option("--oracle-timeout-ms", timeout_ms, "Z3 time limit per query")
      ->capture_default_str()
      ->check(CLI::Range(1u, 3600000u));
  cmd->add_flag("--cross-check", cross_check, "confirm every unsat answer with cvc5");
}

oracles::PipelineOptions OracleFlags::options() const {
  oracles::PipelineOptions opts;
  std::string error;
  opts.oracles = *oracles::OracleSet::parse(oracles, &error);  // validated while parsing
  opts.smt.timeout_ms = timeout_ms;
  opts.smt.cross_check_unsat = cross_check;
  return opts;
}

namespace {

CLI::Validator number_at_least(double low, bool strict, const char* what) {
  return CLI::Validator(
      [=](std::string& text) {
        char* end = nullptr;
        double v = std::strtod(text.c_str(), &end);
        bool ok =
            !text.empty() && *end == '\0' && std::isfinite(v) && (strict ? v > low : v >= low);
        return ok ? std::string() : "expected " + std::string(what) + ", got '" + text + "'";
      },
      strict ? "POSITIVE" : "NONNEGATIVE");
}

}  // namespace

CLI::Validator positive_number() { return number_at_least(0, true, "a positive number"); }
CLI::Validator non_negative_number() { return number_at_least(0, false, "a non-negative number"); }

std::string read_program_file(const std::string& path) {
  std::optional<std::string> text = std::nullopt;
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f) {
      text = std::string();
      char buf[1 << 14];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) text->append(buf, n);
      if (std::ferror(f)) text.reset();
      std::fclose(f);
    }
  }
  if (!text) throw CLI::ValidationError("FILE", "cannot read " + path);
  return *text;
}

}  // namespace sf::cli

int main(int argc, char** argv) {
  using namespace sf::cli;
  CLI::App app{
      "shapefuzz: property-based fuzzing and verification of symbolic shapes with data-dependent "
      "sizes.\nExit codes: 0 pass/reproduced, 1 findings, 2 usage or input error, 3 mismatch or "
      "no longer fails,\n4 backend unavailable, 5 inconclusive, 6 flaky. SHAPEFUZZ_FAULTS=a,b "
      "turns on bug-zoo faults.",
      "shapefuzz"};
  app.require_subcommand(1);
  Action action;
  add_campaign_command(app, &action);
  add_run_command(app, &action);
  add_repro_command(app, &action);
  add_minimize_command(app, &action);
  add_gen_command(app, &action);
  add_diff_backends_command(app, &action);
  add_zoo_command(app, &action);
  add_bench_oracles_command(app, &action);
  add_bench_shape_env_command(app, &action);
  add_fuzz_shape_env_command(app, &action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string cmd;
    for (const CLI::App* sub : app.get_subcommands()) cmd = " " + sub->get_name();
    std::fprintf(stderr, "shapefuzz%s: %s\nRun 'shapefuzz%s --help' for usage.\n", cmd.c_str(),
                 e.what(), cmd.c_str());
    return kExitUsage;
  }
  if (std::optional<std::string> err = sf::enable_faults_from_env()) {
    std::fprintf(stderr, "%s\n", err->c_str());
    return kExitUsage;
  }
  try {
    return action();
  } catch (const CLI::ValidationError& e) {  // an unreadable input file
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitUsage;
  } catch (const sf::UserError& e) {
    std::fprintf(stderr, "error (%s): %s\n", sf::user_error_kind_name(e.kind()), e.what());
    return kExitUsage;
  } catch (const sf::Unavailable& e) {
    std::fprintf(stderr, "unavailable: %s\n", e.what());
    return kExitUnavailable;
  } catch (const std::filesystem::filesystem_error& e) {
    // An OS error (unwritable --out, full disk): neither the program's fault nor an engine bug.
    std::fprintf(stderr, "I/O error: %s\n", e.what());
    return kExitUsage;
  } catch (const std::runtime_error& e) {  // e.g. an output directory that cannot be written
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitUsage;
  }
  // EngineBug is not caught: an engine bug ends the process visibly, like an SF_CHECK abort.
}
