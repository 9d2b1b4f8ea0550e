// shapefuzz: the command-line entry point. CLI11 parses the command line (one subcommand per file
// in tools/cli/); this file maps errors to the shared exit codes (commands.h, README "Exit codes").
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "tools/cli/commands.h"

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
  add_merge_command(app, &action);
  add_run_command(app, &action);
  add_repro_command(app, &action);
  add_minimize_command(app, &action);
  add_gen_command(app, &action);
  add_diff_backends_command(app, &action);
  add_zoo_command(app, &action);
  add_bench_oracles_command(app, &action);
  add_bench_pipeline_command(app, &action);
  add_bench_shape_env_command(app, &action);
  add_fuzz_shape_env_command(app, &action);
  add_check_command(app, &action);
  add_export_torch_command(app, &action);
  add_torch_diff_command(app, &action);
  add_campaign_worker_command(app, &action);
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
