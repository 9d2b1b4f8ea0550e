// The corpus, property and campaign suites of the CI gate.
#include "fuzz/ci_check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "fuzz/campaign.h"
#include "fuzz/files.h"
#include "fuzz/outcome.h"
#include "fuzz/utf8.h"
#include "properties/oracle_properties.h"

namespace sf::fuzz {

namespace fs = std::filesystem;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

JUnitCase check_corpus_file(const fs::path& path, const CheckOptions& flags) {
  JUnitCase c;
  c.classname = "corpus." + path.parent_path().filename().string();
  c.name = path.filename().string();
  auto t0 = std::chrono::steady_clock::now();
  std::optional<std::string> text = read_text_file(path);
  if (!text) {
    c.status = JUnitCase::Status::kFailed;
    c.message = "cannot read " + path.string();
    return c;
  }
  Replay r = replay_isolated(*text, flags.pipeline, flags.limits);
  c.seconds = since(t0);
  if (r.crashed()) {
    c.status = JUnitCase::Status::kFailed;
    c.message = r.outcome.bucket + " while running " + path.string();
    c.details = r.report;
    return c;
  }
  if (!r.matches) {
    std::string detail = r.parsed ? "expected '" + r.expect + "', got " + r.verdict
                                  : "the file does not parse: " + r.verdict;
    c.status = JUnitCase::Status::kFailed;
    c.message = detail.substr(0, detail.find('\n'));
    c.details = detail + "\nreplay: shapefuzz run " + path.string() + "\n\n" + *text;
  }
  return c;
}

JUnitSuite corpus_suite(const CheckOptions& flags) {
  JUnitSuite suite{"corpus", {}};
  for (const std::string& dir : flags.corpus) {
    std::vector<fs::path> files = sfz_files_under(dir);
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
      suite.cases.push_back(check_corpus_file(f, flags));
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

// Over programs made from RapidCheck's bytes, seeded by the check's seed so CI runs check the
// same cases. They run in a child process: an engine abort is recorded, not fatal, and this
// process keeps no solver threads for the campaign's fork() to inherit.
JUnitSuite properties_suite(const CheckOptions& flags) {
  JUnitSuite suite{"properties", {}};
  rc::detail::TestParams params;
  params.seed = flags.seed;
  params.maxSuccess = flags.property_cases;
  params.maxSize = 400;
  IsolationLimits limits = flags.limits;
  limits.timeout_seconds = std::max(limits.timeout_seconds, 3600.0);
  IsolatedResult child = run_isolated(
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

JUnitSuite campaign_suite(const CheckOptions& flags) {
  JUnitSuite suite{"campaign", {}};
  CampaignOptions opts;
  opts.seconds = flags.seconds;
  opts.first_seed = flags.seed;
  opts.timeout = flags.limits.timeout_seconds;
  opts.memory_mb = flags.limits.memory_mb;
  opts.pipeline = flags.pipeline;
  opts.quiet_workers = true;
  opts.on_finding = [&](const Finding& f) {
    if (!f.first_of_signature) return false;
    JUnitCase c;
    c.classname = "campaign";
    c.name = f.bucket + " (seed " + std::to_string(f.seed) + ")";
    c.seconds = 0;
    c.message = utf8_prefix(f.detail, 300);
    c.details = f.detail + "\n\nreproduce: shapefuzz gen --seed " + std::to_string(f.seed) +
                " > p.sfz && shapefuzz run p.sfz\n(shapefuzz campaign --seed " +
                std::to_string(f.seed) + " --seconds 1 writes a reproducer and minimizes it)";
    // Failures and crashes fail the check; triage buckets (wrong rejections, undecided oracles)
    // are reported as skipped, as the campaign reports them without failing.
    c.status =
        is_finding_bucket(f.bucket) ? JUnitCase::Status::kFailed : JUnitCase::Status::kSkipped;
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
  CampaignResult r = run_campaign(opts);
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

}  // namespace sf::fuzz
