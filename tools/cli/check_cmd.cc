// `shapefuzz check`: the CI gate. Replays the corpus (every file must still give its `# expect:`),
// runs the RapidCheck property of each oracle, then a short seeded campaign; exits 1 on any
// mismatch or finding and can write the results as JUnit XML for the CI system.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/program/parser.h"
#include "fuzz/campaign.h"
#include "fuzz/files.h"
#include "fuzz/isolated.h"
#include "fuzz/junit.h"
#include "fuzz/outcome.h"
#include "fuzz/signature.h"
#include "fuzz/utf8.h"
#include "oracles/pipeline.h"
#include "properties/oracle_properties.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

namespace fs = std::filesystem;
using fuzz::JUnitCase;
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

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One corpus file in a child process: passed when its verdict matches its `# expect:`.
JUnitCase check_file(const fs::path& path, const CheckFlags& flags) {
  JUnitCase c;
  c.classname = "corpus." + path.parent_path().filename().string();
  c.name = path.filename().string();
  auto t0 = std::chrono::steady_clock::now();
  std::optional<std::string> text = fuzz::read_text_file(path);
  if (!text) {
    c.status = JUnitCase::Status::kFailed;
    c.message = "cannot read " + path.string();
    return c;
  }
  oracles::PipelineOptions base = flags.oracles.options();
  fuzz::IsolatedResult r = fuzz::run_isolated(
      [&]() -> std::string {
        clear_faults();  // only the file's own '# faults:' (run_pipeline applies them)
        program::Program p;
        try {
          p = program::parse_program(*text);
        } catch (const UserError& e) {
          return std::string("mismatch\tthe file does not parse: ") + e.what();
        }
        auto cpu = backend::make_cpu_backend();
        oracles::PipelineOptions opts = base;
        opts.backend = cpu.get();
        oracles::Verdict v = oracles::run_pipeline(p, opts).verdict;
        bool ok = oracles::matches_expectation(v, p.header.expect);
        return std::string(ok ? "ok" : "mismatch") + "\texpected '" + p.header.expect + "', got " +
               v.str();
      },
      flags.isolation.limits);
  c.seconds = since(t0);
  if (!r.crash.empty()) {
    c.status = JUnitCase::Status::kFailed;
    c.message = r.crash + " while running " + path.string();
    c.details = r.report;
    return c;
  }
  size_t tab = r.output.find('\t');
  std::string status = r.output.substr(0, tab);
  std::string detail = tab == std::string::npos ? "" : r.output.substr(tab + 1);
  if (status != "ok") {
    c.status = JUnitCase::Status::kFailed;
    c.message = detail.substr(0, detail.find('\n'));
    c.details = detail + "\nreplay: shapefuzz run " + path.string() + "\n\n" + *text;
  }
  return c;
}

JUnitSuite corpus_suite(const CheckFlags& flags) {
  JUnitSuite suite{"corpus", {}};
  for (const std::string& dir : flags.corpus) {
    std::vector<fs::path> files = fuzz::sfz_files_under(dir);
    if (!fs::is_directory(dir)) {  // a mistyped path must not pass CI having checked nothing
      JUnitCase c;
      c.classname = "corpus";
      c.name = dir;
      c.status = JUnitCase::Status::kFailed;
      c.message = "no such directory: " + dir +
                  " (run check from the repository root, or pass "
                  "--corpus)";
      std::fprintf(stderr, "check: FAIL %s\n", c.message.c_str());
      suite.cases.push_back(c);
      continue;
    }
    if (files.empty()) {
      std::fprintf(stderr, "check: no .sfz files under %s\n", dir.c_str());
      continue;
    }
    int failed = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (const fs::path& f : files) {
      suite.cases.push_back(check_file(f, flags));
      if (suite.cases.back().status == JUnitCase::Status::kFailed) {
        ++failed;
        std::fprintf(stderr, "check: FAIL %s: %s\n", f.c_str(), suite.cases.back().message.c_str());
      }
    }
    std::fprintf(stderr, "check: corpus %s: %zu files, %d failed (%.1fs)\n", dir.c_str(),
                 files.size(), failed, since(t0));
  }
  return suite;
}

// One RapidCheck property per oracle, over programs made from RapidCheck's bytes (seeded by --seed,
// so CI runs check the same cases). They run in a child process: an engine abort is recorded, not
// fatal, and this process keeps no solver threads for the campaign's fork() to inherit.
JUnitSuite properties_suite(const CheckFlags& flags) {
  JUnitSuite suite{"properties", {}};
  rc::detail::TestParams params;
  params.seed = flags.seed;
  params.maxSuccess = flags.property_cases;
  params.maxSize = 400;
  fuzz::IsolationLimits limits = flags.isolation.limits;
  limits.timeout_seconds = std::max(limits.timeout_seconds, 3600.0);
  fuzz::IsolatedResult child = fuzz::run_isolated(
      [&] {
        nlohmann::json runs = nlohmann::json::array();
        for (const props::PropertyRun& run : props::run_oracle_properties(params)) {
          runs.push_back({{"oracle", oracles::oracle_name(run.oracle)},
                          {"passed", run.passed},
                          {"seconds", run.seconds},
                          {"output", run.output}});
        }
        return runs.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      },
      limits);
  nlohmann::json runs = nlohmann::json::parse(child.output, nullptr, false);
  if (!child.crash.empty() || !runs.is_array()) {
    JUnitCase c;
    c.classname = "properties";
    c.name = "oracle properties";
    c.status = JUnitCase::Status::kFailed;
    c.message = child.crash.empty() ? "the property run gave no result" : child.crash;
    c.details = child.report;
    std::fprintf(stderr, "check: FAIL properties: %s %s\n", c.message.c_str(), c.details.c_str());
    suite.cases.push_back(c);
    return suite;
  }
  for (const nlohmann::json& run : runs) {
    JUnitCase c;
    c.classname = "properties";
    c.name = run.value("oracle", "?") + " oracle holds";
    c.seconds = run.value("seconds", 0.0);
    if (!run.value("passed", false)) {
      c.status = JUnitCase::Status::kFailed;
      c.message = "falsified: " + c.name;
      c.details = run.value("output", "");
      std::fprintf(stderr, "check: FAIL property %s\n%s\n", c.name.c_str(), c.details.c_str());
    }
    suite.cases.push_back(c);
  }
  std::fprintf(stderr, "check: properties: %zu, %d failed (%d cases each)\n", suite.cases.size(),
               suite.failures(), flags.property_cases);
  return suite;
}

JUnitSuite campaign_suite(const CheckFlags& flags) {
  JUnitSuite suite{"campaign", {}};
  fuzz::CampaignOptions opts;
  opts.seconds = flags.seconds;
  opts.first_seed = flags.seed;
  opts.timeout = flags.isolation.limits.timeout_seconds;
  opts.memory_mb = flags.isolation.limits.memory_mb;
  opts.pipeline = flags.oracles.options();
  opts.quiet_workers = true;
  opts.on_finding = [&](const fuzz::Finding& f) {
    if (!f.first_of_signature) return false;
    JUnitCase c;
    c.classname = "campaign";
    c.name = f.bucket + " (seed " + std::to_string(f.seed) + ")";
    c.seconds = 0;
    c.message = fuzz::utf8_prefix(f.detail, 300);
    c.details = f.detail + "\n\nreproduce: shapefuzz gen --seed " + std::to_string(f.seed) +
                " > p.sfz && shapefuzz run p.sfz\n(shapefuzz campaign --seed " +
                std::to_string(f.seed) + " --seconds 1 writes a reproducer and minimizes it)";
    // Failures and crashes fail the check; triage buckets (wrong rejections, undecided oracles)
    // are reported as skipped, as the campaign reports them without failing.
    c.status = fuzz::is_finding_bucket(f.bucket) ? JUnitCase::Status::kFailed
                                                 : JUnitCase::Status::kSkipped;
    std::fprintf(stderr, "check: campaign %s: seed %llu: %s\n",
                 c.status == JUnitCase::Status::kFailed ? "FINDING" : "triage",
                 static_cast<unsigned long long>(f.seed), c.message.c_str());
    suite.cases.push_back(c);
    return false;
  };
  double next_progress = 5;
  opts.on_progress = [&](double el, uint64_t programs, const std::map<std::string, uint64_t>&) {
    if (el < next_progress) return;
    next_progress += 5;
    std::fprintf(stderr, "check: campaign %.0fs/%.0fs: %llu programs\n", el, flags.seconds,
                 static_cast<unsigned long long>(programs));
  };
  fuzz::CampaignResult r = fuzz::run_campaign(opts);
  JUnitCase summary;
  summary.classname = "campaign";
  summary.name = "seeds " + std::to_string(flags.seed) + ".." +
                 std::to_string(flags.seed + std::max<uint64_t>(r.programs, 1) - 1) + " (" +
                 std::to_string(r.programs) + " programs)";
  summary.seconds = r.seconds;
  suite.cases.insert(suite.cases.begin(), summary);
  std::fprintf(stderr, "check: campaign: %llu programs in %.1fs, %d findings\n",
               static_cast<unsigned long long>(r.programs), r.seconds, suite.failures());
  return suite;
}

int check(const CheckFlags& flags) {
  if (!flags.junit.empty()) {
    if (std::optional<std::string> why = fuzz::check_writable_file(flags.junit)) {
      std::fprintf(stderr, "check: cannot write --junit %s: %s\n", flags.junit.c_str(),
                   why->c_str());
      return kExitUsage;
    }
  }
  std::vector<JUnitSuite> suites;
  suites.push_back(corpus_suite(flags));
  if (flags.property_cases > 0) suites.push_back(properties_suite(flags));
  if (flags.seconds > 0) suites.push_back(campaign_suite(flags));
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
