// `shapefuzz zoo`: the bug zoo (fuzz/zoo.h) as a command: hunts each selected fault, prints a
// table (fault, PR, detected, seconds to first detection, bucket, reproducer size) and the
// median time to detection, and writes zoo.json beside the reproducers.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/files.h"
#include "fuzz/zoo.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct ZooFlags {
  double seconds = 60;
  std::string faults;
  uint64_t seed = 1;
  std::string out = "report/zoo";
  bool no_swarm = false;
};

void print_row(const fuzz::ZooRow& row, double seconds) {
  std::string size = row.detected
                         ? std::to_string(row.lines_before) + " -> " +
                               std::to_string(row.lines_after) + " (" + row.fault_off_bucket + ")"
                         : "-";
  if (row.unrelated) size += "; skipped " + std::to_string(row.unrelated) + " unrelated";
  std::printf("%-36s #%-6d %-8s %8.1f %9llu  %-26s %s\n", row.fault->name, row.fault->pr,
              row.detected ? "yes" : "NO", row.detected ? row.seconds : seconds,
              static_cast<unsigned long long>(row.programs),
              row.detected ? row.bucket.c_str() : "-", size.c_str());
  std::fflush(stdout);
}

int zoo(const ZooFlags& flags) {
  std::string error;
  std::vector<const FaultInfo*> faults = fuzz::select_faults(flags.faults, &error);
  if (faults.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return kExitUsage;
  }
  std::filesystem::path out_dir = flags.out;
  if (std::optional<std::string> why = fuzz::check_writable_dir(out_dir)) {
    std::fprintf(stderr, "zoo: %s\n", why->c_str());
    return kExitUsage;
  }
  oracles::PipelineOptions base;  // the default campaign's options: every oracle
  base.oracles = oracles::OracleSet::all();
  std::vector<fuzz::ZooRow> rows;
  std::printf("%-36s %-7s %-8s %8s %9s  %-26s %s\n", "fault", "PR", "detected", "seconds",
              "programs", "bucket", "reproducer lines (fault off)");
  size_t detected = 0;
  for (const FaultInfo* f : faults) {
    rows.push_back(fuzz::hunt_fault(*f, flags.seconds, flags.seed, base, out_dir, !flags.no_swarm));
    print_row(rows.back(), flags.seconds);
    detected += rows.back().detected ? 1 : 0;
  }
  double median = fuzz::median_seconds_to_detection(rows);
  std::printf("detected %zu/%zu; median seconds to detection: %s\n", detected, rows.size(),
              std::isinf(median) ? "never" : std::to_string(median).c_str());
  fuzz::write_atomically(out_dir / "zoo.json", fuzz::zoo_json(rows, flags.seconds));
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
  cmd->add_flag("--no-swarm", f->no_swarm,
                "every program under the default generator policy (as `campaign --no-swarm`)");
  cmd->callback([=] { *action = [=] { return zoo(*f); }; });
}

}  // namespace sf::cli
