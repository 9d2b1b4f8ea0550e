// The bug zoo's reproducers (corpus/zoo, written by `shapefuzz zoo`): every fault switch has one;
// with the fault its header names it gives the bucket written on its line 2 (a crash included,
// run in a child process), and with the fault off it is no finding. So each fault stays detected.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "fuzz/campaign.h"
#include "fuzz/isolated.h"
#include "oracles/pipeline.h"

namespace sf::oracles {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The bucket of `p` through the whole pipeline with every oracle, in a child process.
std::string bucket_in_child(const program::Program& p) {
  return fuzz::run_isolated(
      [&]() -> std::string {
        auto cpu = backend::make_cpu_backend();
        PipelineOptions opts;
        opts.backend = cpu.get();
        opts.oracles = OracleSet::all();
        return run_pipeline(p, opts).verdict.bucket();
      },
      60);
}

class ZooReproducer : public ::testing::TestWithParam<FaultInfo> {};

TEST_P(ZooReproducer, GivesItsBucketWithTheFaultAndNoFindingWithout) {
  const FaultInfo& f = GetParam();
  std::filesystem::path file = std::filesystem::path("corpus/zoo") / (std::string(f.name) + ".sfz");
  ASSERT_TRUE(std::filesystem::exists(file)) << "no reproducer for fault " << f.name;
  std::string text = read(file);
  // Line 2: "# <bucket> (PR #N)".
  size_t l2 = text.find('\n') + 1;
  std::string line2 = text.substr(l2, text.find('\n', l2) - l2);
  ASSERT_EQ(line2.rfind("# ", 0), 0u) << line2;
  std::string expected = line2.substr(2, line2.find(' ', 2) - 2);
  EXPECT_NE(line2.find("(PR #" + std::to_string(f.pr) + ")"), std::string::npos) << line2;
  program::Program p = program::parse_program(text);
  ASSERT_EQ(p.header.faults, std::vector<std::string>{f.name});
  EXPECT_EQ(bucket_in_child(p), expected) << text;
  p.header.faults.clear();
  std::string off = bucket_in_child(p);
  EXPECT_FALSE(fuzz::is_finding_bucket(off)) << "with " << f.name << " off: " << off << "\n"
                                             << text;
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooReproducer, ::testing::ValuesIn(all_faults()),
                         [](const ::testing::TestParamInfo<FaultInfo>& i) {
                           return std::string(i.param.name);
                         });

TEST(FaultsHeader, RoundTripsAndRejectsUnknownNames) {
  program::Program p = program::parse_program(
      "# sfz 1\n# faults: memo_ignores_epoch, dce_drops_binding_site\n"
      "input x: f32[2] = arange()\nreturn x\n");
  EXPECT_EQ(p.header.faults,
            (std::vector<std::string>{"memo_ignores_epoch", "dce_drops_binding_site"}));
  EXPECT_EQ(program::parse_program(program::print_program(p)), p);
  for (const char* bad : {"# faults: no_such_fault",
                          "# faults: memo_ignores_epoch, memo_ignores_epoch", "# faults:"}) {
    try {
      program::parse_program(std::string("# sfz 1\n") + bad +
                             "\ninput x: f32[2] = arange()\nreturn x\n");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const UserError& e) {
      EXPECT_EQ(e.kind(), UserErrorKind::kParse) << e.what();
    }
  }
}

TEST(FaultsHeader, ThePipelineTurnsTheFaultsOnOnlyWhileItRuns) {
  program::Program p = program::parse_program(
      "# sfz 1\n# faults: range_asserts_skipped\n"
      "input m: bool[5] = [True, False, True, True, False]\na = nonzero(m)\nreturn a\n");
  auto cpu = backend::make_cpu_backend();
  PipelineOptions opts;
  opts.backend = cpu.get();
  opts.oracles = OracleSet::all();
  EXPECT_EQ(run_pipeline(p, opts).verdict.bucket(), "fail:tv");
  EXPECT_FALSE(fault_on(Fault::kRangeAssertsSkipped));
}

}  // namespace
}  // namespace sf::oracles
