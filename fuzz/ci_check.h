// The CI gate behind `shapefuzz check`, as JUnit suites: the corpus replayed (each file must
// still give its `# expect:`), the RapidCheck property of each oracle, and a short seeded
// campaign. Progress and failures are logged to stderr as "check: ..." lines.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/isolated.h"
#include "fuzz/junit.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

struct CheckOptions {
  std::vector<std::string> corpus = {"corpus/program", "corpus/regressions"};
  double seconds = 20;  // the campaign's time box
  uint64_t seed = 1;    // the campaign's first seed and the properties' seed
  int property_cases = 300;
  oracles::PipelineOptions pipeline;  // the oracles that judge
  IsolationLimits limits;             // of the child processes programs run in
};

// One corpus file, replayed in a child process: passed when its verdict matches its `# expect:`.
JUnitCase check_corpus_file(const std::filesystem::path& path, const CheckOptions& flags);
// Every .sfz under each corpus directory; a directory that does not exist is a failed case.
JUnitSuite corpus_suite(const CheckOptions& flags);
// One case per oracle property (in a child process).
JUnitSuite properties_suite(const CheckOptions& flags);
// The campaign's summary case, then one per finding signature (triage buckets skipped).
JUnitSuite campaign_suite(const CheckOptions& flags);

}  // namespace sf::fuzz
