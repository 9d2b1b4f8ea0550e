// `shapefuzz check`: the CI gate (fuzz/ci_check.h): the corpus replayed, the RapidCheck property of
// each oracle, then a short seeded campaign; exits 1 on any mismatch or finding and can write the
// results as JUnit XML for the CI system.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/ci_check.h"
#include "fuzz/files.h"
#include "fuzz/junit.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

using fuzz::JUnitSuite;

struct CheckFlags {
  std::vector<std::string> corpus = {"corpus/program", "corpus/regressions"};
  double seconds = 20;
  uint64_t seed = 1;
  std::string junit;
  int property_cases = 300;
  OracleFlags oracles;
  IsolationFlags isolation;
};

fuzz::CheckOptions check_options(const CheckFlags& flags) {
  fuzz::CheckOptions o;
  o.corpus = flags.corpus;
  o.seconds = flags.seconds;
  o.seed = flags.seed;
  o.property_cases = flags.property_cases;
  o.pipeline = flags.oracles.options();
  o.limits = flags.isolation.limits;
  return o;
}

int check(const CheckFlags& flags) {
  fuzz::CheckOptions options = check_options(flags);
  if (!flags.junit.empty()) {
    if (std::optional<std::string> why = fuzz::check_writable_file(flags.junit)) {
      std::fprintf(stderr, "check: cannot write --junit %s: %s\n", flags.junit.c_str(),
                   why->c_str());
      return kExitUsage;
    }
  }
  std::vector<JUnitSuite> suites;
  suites.push_back(fuzz::corpus_suite(options));
  if (flags.property_cases > 0) suites.push_back(fuzz::properties_suite(options));
  if (flags.seconds > 0) suites.push_back(fuzz::campaign_suite(options));
  int failures = 0;
  for (const JUnitSuite& s : suites) failures += s.failures();
  if (!flags.junit.empty()) {
    fuzz::write_atomically(flags.junit, fuzz::junit_xml("shapefuzz check", suites));
    std::fprintf(stderr, "check: JUnit XML written to %s\n", flags.junit.c_str());
  }
  std::printf("%s\n", fuzz::junit_summary_line("check", suites).c_str());
  return failures ? kExitFindings : kExitOk;
}

}  // namespace

void add_check_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<CheckFlags>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "for CI: replay the corpus (every .sfz must match its '# expect:'), the RapidCheck "
      "property of each oracle, then a short seeded campaign; exit 1 on any mismatch, failure or "
      "crash; --junit writes JUnit XML");
  cmd->add_option("--corpus", f->corpus, "directories of .sfz files to replay (recursively)")
      ->capture_default_str();
  cmd->add_option("--seconds", f->seconds, "the campaign's time box (0: no campaign)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e7));
  cmd->add_option("--seed", f->seed, "the campaign's first seed (fixed, so CI runs are repeatable)")
      ->capture_default_str()
      ->check(seed_number());
  cmd->add_option("--junit", f->junit, "write the results as JUnit XML to this file");
  cmd->add_option("--property-cases", f->property_cases,
                  "cases per oracle property (RapidCheck; 0 skips the properties)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  f->oracles.add_to(cmd);
  f->isolation.add_to(cmd);
  cmd->callback([=] { *action = [=] { return check(*f); }; });
}

}  // namespace sf::cli
