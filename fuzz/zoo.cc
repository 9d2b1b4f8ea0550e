// One fault hunted by a campaign, its finding shrunk and checked with the fault off.
#include "fuzz/zoo.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "fuzz/campaign.h"
#include "fuzz/files.h"
#include "fuzz/isolated.h"
#include "fuzz/outcome.h"
#include "fuzz/shrink.h"
#include "fuzz/shrink_program.h"

namespace sf::fuzz {

namespace {

// The bucket of a program text run through the whole pipeline in a child process with only the
// faults its header names; a text that no longer parses is "invalid".
std::string bucket_of_text(const std::string& text, const oracles::PipelineOptions& base) {
  return run_program_isolated(text, base, IsolationLimits()).bucket;
}

}  // namespace

std::vector<const FaultInfo*> select_faults(const std::string& list, std::string* error) {
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

ZooRow hunt_fault(const FaultInfo& f, double seconds, uint64_t first_seed,
                  const oracles::PipelineOptions& base, const std::filesystem::path& out_dir,
                  bool swarm) {
  ZooRow row;
  row.fault = &f;
  clear_faults();
  set_fault(f.fault, true);
  CampaignOptions opts;
  opts.seconds = seconds;
  opts.first_seed = first_seed;
  opts.swarm = swarm;
  opts.pipeline = base;
  opts.quiet_workers = true;
  opts.on_finding = [&](const Finding& found) {
    if (!is_finding_bucket(found.bucket)) return false;
    // A program that fails the same way with the fault off found an unrelated bug, not this
    // fault: count it and go on.
    if (bucket_of_text(program::print_program(program_for(found.seed, found.recipe)), base) ==
        found.bucket) {
      ++row.unrelated;
      return false;
    }
    row.detected = true;
    row.seconds = found.elapsed;
    row.seed = found.seed;
    row.recipe = found.recipe;
    row.bucket = found.bucket;
    return true;
  };
  CampaignResult r = run_campaign(opts);
  row.programs = r.programs;
  clear_faults();
  if (!row.detected) return row;
  // Shrink with the fault named in the program's header, so every candidate (and the file)
  // runs with it on, whatever the process's switches.
  program::Program p = program_for(row.seed, row.recipe);
  p.header.faults = {f.name};
  p.header.found_by =
      "zoo fault=" + std::string(f.name) +
      (row.recipe.empty() ? " seed=" + std::to_string(row.seed) : " recipe=" + row.recipe);
  std::string text = program::print_program(p);
  row.lines_before = program_text_lines(text);
  ShrinkLimits limits;
  limits.max_attempts = 600;
  ShrinkResult s = shrink_program(
      text, [&](const std::string& t) { return bucket_of_text(t, base) == row.bucket; }, limits);
  row.lines_after = program_text_lines(s.text);
  program::Program shrunk = program::parse_program(s.text);
  // Record what it reproduces (with the fault on), so `repro` can check the file.
  shrunk.header.reproduces = signature(run_program_isolated(s.text, base, IsolationLimits()));
  s.text = program::print_program(shrunk);
  shrunk.header.faults.clear();
  row.fault_off_bucket = bucket_of_text(program::print_program(shrunk), base);
  std::filesystem::path file = out_dir / (std::string(f.name) + ".sfz");
  write_atomically(file,
                   reproducer_text(row.bucket + " (PR #" + std::to_string(f.pr) + ")", s.text));
  row.file = file.string();
  return row;
}

double median_seconds_to_detection(const std::vector<ZooRow>& rows) {
  if (rows.empty()) return std::numeric_limits<double>::infinity();
  std::vector<double> times;
  for (const ZooRow& r : rows) {
    times.push_back(r.detected ? r.seconds : std::numeric_limits<double>::infinity());
  }
  std::sort(times.begin(), times.end());
  double median = times[times.size() / 2];
  if (times.size() % 2 == 0) median = (median + times[times.size() / 2 - 1]) / 2;
  return median;
}

std::string zoo_json(const std::vector<ZooRow>& rows, double seconds_per_fault) {
  nlohmann::ordered_json json;
  json["seconds_per_fault"] = seconds_per_fault;
  json["faults"] = nlohmann::ordered_json::array();
  for (const ZooRow& r : rows) {
    json["faults"].push_back({{"fault", r.fault->name},
                              {"pr", r.fault->pr},
                              {"detected", r.detected},
                              {"seconds", r.seconds},
                              {"programs", r.programs},
                              {"seed", r.seed},
                              {"recipe", r.recipe},
                              {"bucket", r.bucket},
                              {"lines_before", r.lines_before},
                              {"lines_after", r.lines_after},
                              {"fault_off_bucket", r.fault_off_bucket},
                              {"unrelated_findings", r.unrelated},
                              {"reproducer", r.file}});
  }
  return json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace sf::fuzz
