// `shapefuzz campaign`: a time-boxed fuzz campaign on the CPU backend (fuzz/campaign.h runs it,
// crash-isolated); this file writes one reproducer per new bucket and the JSON report.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "engine/program/printer.h"
#include "fuzz/campaign.h"
#include "oracles/pipeline.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

uint64_t count_with_prefix(const std::map<std::string, uint64_t>& buckets, const char* prefix) {
  uint64_t n = 0;
  for (const auto& [k, c] : buckets) n += k.rfind(prefix, 0) == 0 ? c : 0;
  return n;
}

}  // namespace

std::string reproducer_text(const std::string& note, const std::string& program_text) {
  size_t body = program_text.find('\n') + 1;
  return program_text.substr(0, body) + "# " + note + "\n" + program_text.substr(body);
}

void write_atomically(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary);
    o << text;
  }
  std::filesystem::rename(tmp, path);
}

int campaign_command(const Args& args) {
  std::filesystem::path out_dir = args.get("out", "report");
  std::string oracle_error;
  std::optional<oracles::OracleSet> oracle_set =
      oracles::OracleSet::parse(args.get("oracles", "all"), &oracle_error);
  if (!oracle_set) {
    std::fprintf(stderr, "%s\n", oracle_error.c_str());
    return 2;
  }
  fuzz::CampaignOptions opts;
  opts.seconds = args.get_double("seconds", 60);
  opts.first_seed = args.get_u64("seed", 1);
  opts.timeout = args.get_double("timeout", 10);
  opts.pipeline.oracles = *oracle_set;
  opts.pipeline.smt.timeout_ms = static_cast<unsigned>(args.get_u64("oracle-timeout-ms", 1000));
  opts.pipeline.smt.cross_check_unsat = args.flag("cross-check");
  // Failures and crashes, and for triage wrong rejections and undecided oracles: one reproducer
  // per bucket, written when the bucket is first seen.
  opts.on_finding = [&](const fuzz::Finding& f) {
    if (!f.first_of_bucket) return false;
    bool is_crash = f.bucket.rfind("crash:", 0) == 0;
    bool is_fail = f.bucket.rfind("fail:", 0) == 0;
    std::string name = f.bucket.substr(f.bucket.find(':') + 1);
    std::string note = f.detail.empty() ? f.bucket : f.bucket + ": " + f.detail;
    std::filesystem::path file =
        is_crash ? out_dir / "crashes" / ("seed" + std::to_string(f.seed) + ".sfz")
                 : out_dir / (is_fail ? "failures" : "triage") /
                       (name + "-seed" + std::to_string(f.seed) + ".sfz");
    write_atomically(file,
                     reproducer_text(note, program::print_program(fuzz::program_for_seed(f.seed))));
    std::fprintf(stderr, "%s seed=%llu %s\n",
                 is_crash  ? "CRASH"
                 : is_fail ? "FAIL"
                           : "TRIAGE",
                 static_cast<unsigned long long>(f.seed),
                 is_crash ? f.bucket.c_str() : f.detail.c_str());
    return false;
  };
  opts.on_progress = [](double el, uint64_t programs,
                        const std::map<std::string, uint64_t>& buckets) {
    std::fprintf(stderr,
                 "[%5.1fs] programs=%llu (%.0f/s) pass=%llu rejected=%llu fail=%llu crash=%llu\n",
                 el, static_cast<unsigned long long>(programs), programs / el,
                 static_cast<unsigned long long>(count_with_prefix(buckets, "pass")),
                 static_cast<unsigned long long>(count_with_prefix(buckets, "rejected:")),
                 static_cast<unsigned long long>(count_with_prefix(buckets, "fail:")),
                 static_cast<unsigned long long>(count_with_prefix(buckets, "crash:")));
  };
  fuzz::CampaignResult r = fuzz::run_campaign(opts);
  double el = r.seconds;
  uint64_t programs = r.programs;
  const std::map<std::string, uint64_t>& buckets = r.buckets;
  const std::map<std::string, uint64_t>& first_seed_of_failure = r.first_seed_of;
  std::string json =
      "{\n  \"seconds\": " + std::to_string(el) + ",\n  \"programs\": " + std::to_string(programs) +
      ",\n  \"programs_per_second\": " + std::to_string(programs / el) + ",\n  \"buckets\": {";
  bool first = true;
  for (const auto& [k, n] : buckets) {
    json += std::string(first ? "\n" : ",\n") + "    \"" + k + "\": " + std::to_string(n);
    first = false;
  }
  json += "\n  },\n  \"first_seeds\": {";
  first = true;
  for (const auto& [k, s] : first_seed_of_failure) {
    json += std::string(first ? "\n" : ",\n") + "    \"" + k + "\": " + std::to_string(s);
    first = false;
  }
  json += "\n  }\n}\n";
  write_atomically(out_dir / "report.json", json);
  std::printf("campaign: %llu programs in %.1fs (%.0f/s), report in %s\n",
              static_cast<unsigned long long>(programs), el, programs / el,
              (out_dir / "report.json").c_str());
  for (const auto& [k, n] : buckets)
    std::printf("  %-40s %llu\n", k.c_str(), static_cast<unsigned long long>(n));
  bool failed = false;
  for (const auto& [k, n] : buckets) failed = failed || fuzz::is_finding_bucket(k);
  return failed ? 1 : 0;
}

}  // namespace sf::cli
