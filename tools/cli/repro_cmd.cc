// `shapefuzz repro FILE [--times N]`: runs a reproducer N times, each in a fresh child process, and
// compares what it gives with what its "# reproduces:" header recorded: reproduced, a different
// failure, no longer fails, or flaky (the runs disagree).
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "fuzz/outcome.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct ReproFlags {
  std::string file;
  int times = 1;
  IsolationFlags isolation;
  OracleFlags oracles;
};

int repro(const ReproFlags& flags) {
  std::string text;
  program::Program p = parse_program_file(flags.file, &text);
  oracles::PipelineOptions opts = flags.oracles.options();
  std::map<std::string, int> seen;  // signature -> runs
  std::string last;
  for (int i = 0; i < flags.times; ++i) {
    last = fuzz::signature(fuzz::run_program_isolated(text, opts, flags.isolation.limits));
    ++seen[last];
  }
  const std::string& recorded = p.header.reproduces;
  std::printf("recorded: %s\n",
              recorded.empty() ? "(no '# reproduces:' header)" : recorded.c_str());
  if (seen.size() > 1) {
    std::printf("flaky: %zu different results in %d runs\n", seen.size(), flags.times);
    for (const auto& [sig, n] : seen) std::printf("  %dx %s\n", n, sig.c_str());
    return kExitFlaky;
  }
  std::string bucket = fuzz::signature_bucket(last);
  bool finding = !fuzz::is_plain_bucket(bucket);  // a failure, crash or triage bucket
  if (recorded.empty()) {
    std::printf("%s (%d identical runs)\n", last.c_str(), flags.times);
    return finding ? kExitFindings : kExitOk;
  }
  if (last == recorded) {
    std::printf("reproduced (%d identical runs)\n", flags.times);
    return kExitOk;
  }
  if (finding) {
    std::printf("different failure: %s\n", last.c_str());
    return kExitFindings;
  }
  std::printf("no longer fails: %s\n", last.c_str());
  return kExitMismatch;
}

}  // namespace

void add_repro_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<ReproFlags>();
  CLI::App* cmd = app.add_subcommand(
      "repro",
      "run a reproducer N times, each in a fresh child process, and say whether it reproduces "
      "its '# reproduces:' header. Exit 0 reproduced, 1 different failure, 3 no longer fails, 6 "
      "flaky");
  cmd->add_option("FILE", f->file, "the .sfz reproducer")->required();
  cmd->add_option("--times", f->times, "runs (all must agree)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  f->isolation.add_to(cmd);
  f->oracles.add_to(cmd);
  cmd->callback([=] { *action = [=] { return repro(*f); }; });
}

}  // namespace sf::cli
