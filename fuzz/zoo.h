// The bug zoo's hunt: for one fault switch (engine/base/faults.def), the default campaign with it
// on until the first finding that does not happen with it off; that program shrunk (same bucket,
// fault on) and written as a '# faults:' reproducer, and its bucket with the fault off.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/base/faults.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

struct ZooRow {
  const FaultInfo* fault = nullptr;
  bool detected = false;
  double seconds = 0;  // to the first detection
  uint64_t programs = 0;
  uint64_t seed = 0;
  std::string recipe;  // the finding's recipe when it was a swarm policy's program ("" for a seed)
  std::string bucket;
  int lines_before = 0, lines_after = 0;  // the reproducer, before and after shrinking
  std::string fault_off_bucket;           // the shrunk program's bucket with the fault off
  std::string file;                       // the reproducer written
  int unrelated = 0;                      // findings that reproduce with the fault off (skipped)
};

// The faults a comma list names (all of them for an empty list); empty, with *error set, when
// it names none.
std::vector<const FaultInfo*> select_faults(const std::string& list, std::string* error);

// Hunts one fault for at most `seconds`, from `first_seed`, judging with `base`, with or without
// the campaign's swarm policies (CampaignOptions::swarm); writes OUT_DIR/<fault>.sfz when it is
// detected. The process's fault switches are all off after.
ZooRow hunt_fault(const FaultInfo& f, double seconds, uint64_t first_seed,
                  const oracles::PipelineOptions& base, const std::filesystem::path& out_dir,
                  bool swarm = true);

// The median seconds to detection over the rows, an undetected fault counting as never
// (infinity when at least half were not detected).
double median_seconds_to_detection(const std::vector<ZooRow>& rows);

// zoo.json: the time box and one object per row.
std::string zoo_json(const std::vector<ZooRow>& rows, double seconds_per_fault);

}  // namespace sf::fuzz
