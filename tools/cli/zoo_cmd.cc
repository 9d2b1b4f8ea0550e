// `shapefuzz zoo`: the bug zoo. For each fault switch (engine/base/faults.def) it runs the default
// campaign with that fault on until the first failure or crash, shrinks the program that found it
// (same bucket, fault on), checks that the shrunk program passes with the fault off, and prints a
// table: fault, PR, detected, seconds to first detection, bucket (which oracle), reproducer size.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "fuzz/campaign.h"
#include "fuzz/campaign_report.h"
#include "fuzz/files.h"
#include "fuzz/isolated.h"
#include "fuzz/outcome.h"
#include "fuzz/shrink.h"
#include "fuzz/shrink_program.h"
#include "oracles/pipeline.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct ZooRow {
  const FaultInfo* fault = nullptr;
  bool detected = false;
  double seconds = 0;
  uint64_t programs = 0;
  uint64_t seed = 0;
  std::string bucket;
  int lines_before = 0, lines_after = 0;
  std::string fault_off_bucket;  // the shrunk program's bucket with the fault off
  std::string file;
  int unrelated = 0;  // findings that reproduce with the fault off (skipped)
};

// The bucket of a program text run through the whole pipeline in a child process with only the
// faults its header names; a text that no longer parses is "invalid".
std::string bucket_of_text(const std::string& text, const oracles::PipelineOptions& base) {
  return fuzz::run_program_isolated(text, base, fuzz::IsolationLimits()).bucket;
}

std::vector<const FaultInfo*> selected_faults(const std::string& list, std::string* error) {
  std::vector<const FaultInfo*> out;
  for (const FaultInfo& f : all_faults()) {
    if (list.empty() ||
        ("," + list + ",").find("," + std::string(f.name) + ",") != std::string::npos) {
      out.push_back(&f);
    }
  }
  if (out.empty()) *error = "no fault matches '" + list + "' (see engine/base/faults.def)";
  return out;
}

ZooRow hunt(const FaultInfo& f, double seconds, uint64_t first_seed,
            const oracles::PipelineOptions& base, const std::filesystem::path& out_dir) {
  ZooRow row;
  row.fault = &f;
  clear_faults();
  set_fault(f.fault, true);
  fuzz::CampaignOptions opts;
  opts.seconds = seconds;
  opts.first_seed = first_seed;
  opts.pipeline = base;
  opts.quiet_workers = true;
  opts.on_finding = [&](const fuzz::Finding& found) {
    if (!fuzz::is_finding_bucket(found.bucket)) return false;
    // A program that fails the same way with the fault off found an unrelated bug, not this
    // fault: count it and go on.
    if (bucket_of_text(program::print_program(fuzz::program_for_seed(found.seed)), base) ==
        found.bucket) {
      ++row.unrelated;
      return false;
    }
    row.detected = true;
    row.seconds = found.elapsed;
    row.seed = found.seed;
    row.bucket = found.bucket;
    return true;
  };
  fuzz::CampaignResult r = fuzz::run_campaign(opts);
  row.programs = r.programs;
  clear_faults();
  if (!row.detected) return row;
  // Shrink with the fault named in the program's header, so every candidate (and the file)
  // runs with it on, whatever the process's switches.
  program::Program p = fuzz::program_for_seed(row.seed);
  p.header.faults = {f.name};
  p.header.found_by = "zoo fault=" + std::string(f.name) + " seed=" + std::to_string(row.seed);
  std::string text = program::print_program(p);
  row.lines_before = fuzz::program_text_lines(text);
  fuzz::ShrinkLimits limits;
  limits.max_attempts = 600;
  fuzz::ShrinkResult s = fuzz::shrink_program(
      text, [&](const std::string& t) { return bucket_of_text(t, base) == row.bucket; }, limits);
  row.lines_after = fuzz::program_text_lines(s.text);
  program::Program shrunk = program::parse_program(s.text);
  // Record what it reproduces (with the fault on), so `repro` can check the file.
  shrunk.header.reproduces =
      fuzz::signature(fuzz::run_program_isolated(s.text, base, fuzz::IsolationLimits()));
  s.text = program::print_program(shrunk);
  shrunk.header.faults.clear();
  row.fault_off_bucket = bucket_of_text(program::print_program(shrunk), base);
  std::filesystem::path file = out_dir / (std::string(f.name) + ".sfz");
  fuzz::write_atomically(
      file, fuzz::reproducer_text(row.bucket + " (PR #" + std::to_string(f.pr) + ")", s.text));
  row.file = file.string();
  return row;
}

struct ZooFlags {
  double seconds = 60;
  std::string faults;
  uint64_t seed = 1;
  std::string out = "report/zoo";
};

int zoo(const ZooFlags& flags) {
  std::string error;
  std::vector<const FaultInfo*> faults = selected_faults(flags.faults, &error);
  if (faults.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return kExitUsage;
  }
  double seconds = flags.seconds;
  std::filesystem::path out_dir = flags.out;
  if (std::optional<std::string> why = fuzz::check_writable_dir(out_dir)) {
    std::fprintf(stderr, "zoo: %s\n", why->c_str());
    return kExitUsage;
  }
  oracles::PipelineOptions base;  // the default campaign's options: every oracle
  base.oracles = oracles::OracleSet::all();
  std::vector<ZooRow> rows;
  std::printf("%-36s %-7s %-8s %8s %9s  %-26s %s\n", "fault", "PR", "detected", "seconds",
              "programs", "bucket", "reproducer lines (fault off)");
  for (const FaultInfo* f : faults) {
    ZooRow row = hunt(*f, seconds, flags.seed, base, out_dir);
    std::string size = row.detected
                           ? std::to_string(row.lines_before) + " -> " +
                                 std::to_string(row.lines_after) + " (" + row.fault_off_bucket + ")"
                           : "-";
    if (row.unrelated) size += "; skipped " + std::to_string(row.unrelated) + " unrelated";
    std::printf("%-36s #%-6d %-8s %8.1f %9llu  %-26s %s\n", f->name, f->pr,
                row.detected ? "yes" : "NO", row.detected ? row.seconds : seconds,
                static_cast<unsigned long long>(row.programs),
                row.detected ? row.bucket.c_str() : "-", size.c_str());
    std::fflush(stdout);
    rows.push_back(row);
  }
  // The median time to detection, an undetected fault counting as never.
  std::vector<double> times;
  size_t detected = 0;
  for (const ZooRow& r : rows) {
    times.push_back(r.detected ? r.seconds : 1e18);
    detected += r.detected ? 1 : 0;
  }
  std::sort(times.begin(), times.end());
  double median = times[times.size() / 2];
  if (times.size() % 2 == 0) median = (median + times[times.size() / 2 - 1]) / 2;
  std::printf("detected %zu/%zu; median seconds to detection: %s\n", detected, rows.size(),
              median >= 1e17 ? "never" : std::to_string(median).c_str());
  nlohmann::ordered_json json;
  json["seconds_per_fault"] = seconds;
  json["faults"] = nlohmann::ordered_json::array();
  for (const ZooRow& r : rows) {
    json["faults"].push_back({{"fault", r.fault->name},
                              {"pr", r.fault->pr},
                              {"detected", r.detected},
                              {"seconds", r.seconds},
                              {"programs", r.programs},
                              {"seed", r.seed},
                              {"bucket", r.bucket},
                              {"lines_before", r.lines_before},
                              {"lines_after", r.lines_after},
                              {"fault_off_bucket", r.fault_off_bucket},
                              {"unrelated_findings", r.unrelated},
                              {"reproducer", r.file}});
  }
  fuzz::write_atomically(
      out_dir / "zoo.json",
      json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  return detected == rows.size() ? kExitOk : kExitFindings;
}

}  // namespace

void add_zoo_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<ZooFlags>();
  CLI::App* cmd = app.add_subcommand(
      "zoo",
      "the bug zoo: for each fault switch (historical PyTorch bugs, engine/base/faults.def) run "
      "the default campaign with it on until the first failure or crash that does not happen with "
      "it off, shrink that program and write a '# faults:' reproducer and zoo.json; exit 0 when "
      "every fault is detected");
  cmd->add_option("--seconds", f->seconds, "time box per fault")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--faults", f->faults, "comma list of fault names (default: all)");
  cmd->add_option("--seed", f->seed, "first seed")->capture_default_str()->check(seed_number());
  cmd->add_option("--out", f->out, "output directory")->capture_default_str();
  cmd->callback([=] { *action = [=] { return zoo(*f); }; });
}

}  // namespace sf::cli
