// `shapefuzz minimize FILE [-o OUT]`: shrinks a reproducer to a small program with the same
// signature (its "# reproduces:" header, or what it gives now), each candidate run in a child.
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "engine/program/printer.h"
#include "fuzz/files.h"
#include "fuzz/outcome.h"
#include "fuzz/shrink_program.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct MinimizeFlags {
  std::string file, out;
  double seconds = 120;
  int attempts = 5000;
  IsolationFlags isolation;
  OracleFlags oracles;
};

int minimize(const MinimizeFlags& flags) {
  std::string text;
  program::Program p = parse_program_file(flags.file, &text);
  std::string out = flags.out;
  if (out.empty()) {
    out = flags.file;
    if (out.size() > 4 && out.substr(out.size() - 4) == ".sfz") out.resize(out.size() - 4);
    out += ".min.sfz";
  }
  // Before minutes of shrinking, not after them.
  if (std::optional<std::string> why = fuzz::check_writable_file(out)) {
    std::fprintf(stderr, "minimize: cannot write %s: %s\n", out.c_str(), why->c_str());
    return kExitUsage;
  }
  const fuzz::IsolationLimits& limits = flags.isolation.limits;
  oracles::PipelineOptions opts = flags.oracles.options();
  std::string now = fuzz::signature(fuzz::run_program_isolated(text, opts, limits));
  std::string target = p.header.reproduces.empty() ? now : p.header.reproduces;
  if (now != target) {
    std::fprintf(stderr, "%s does not reproduce its header (%s); it gives %s\n", flags.file.c_str(),
                 target.c_str(), now.c_str());
    return kExitMismatch;
  }
  std::string bucket = fuzz::signature_bucket(target);
  if (fuzz::is_plain_bucket(bucket)) {
    std::fprintf(stderr, "nothing to minimize: %s gives %s\n", flags.file.c_str(), target.c_str());
    return kExitMismatch;
  }
  p.header.reproduces = target;
  auto start = std::chrono::steady_clock::now();
  fuzz::ShrinkLimits shrink_limits;
  shrink_limits.seconds = flags.seconds;
  shrink_limits.max_attempts = flags.attempts;
  fuzz::ShrinkResult r = fuzz::shrink_program(
      program::print_program(p),
      [&](const std::string& t) {
        return fuzz::signature(fuzz::run_program_isolated(t, opts, limits)) == target;
      },
      shrink_limits);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.reproduced) {
    std::fprintf(stderr, "%s does not reproduce %s in canonical form\n", flags.file.c_str(),
                 target.c_str());
    return kExitMismatch;
  }
  fuzz::write_atomically(out, r.text);
  std::printf("%s: %d -> %d lines in %.1fs (%d runs, %d kept, stopped at the %s) -> %s\n",
              target.c_str(), fuzz::program_text_lines(text), fuzz::program_text_lines(r.text),
              seconds, r.attempts, r.accepted,
              r.stopped_by == "fixpoint" ? "fixpoint" : (r.stopped_by + " budget").c_str(),
              out.c_str());
  return kExitOk;
}

}  // namespace

void add_minimize_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<MinimizeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "minimize",
      "shrink a reproducer to a small program that still gives the same signature (bucket and "
      "normalized message); writes OUT (default FILE.min.sfz)");
  cmd->add_option("FILE", f->file, "the .sfz reproducer")->required();
  cmd->add_option("-o,--out", f->out, "where to write the minimized program");
  cmd->add_option("--seconds", f->seconds, "time box")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--attempts", f->attempts, "most candidate runs")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  f->isolation.add_to(cmd);
  f->oracles.add_to(cmd);
  cmd->callback([=] { *action = [=] { return minimize(*f); }; });
}

}  // namespace sf::cli
