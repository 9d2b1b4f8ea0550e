// RapidCheck properties, one per oracle: generated programs never FAIL it (fixed seed in
// bazel test). And each property fails, printing the shrunk case and its program, when the
// bug-zoo fault its oracle guards against is on.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "engine/base/faults.h"
#include "properties/oracle_properties.h"

namespace sf {
namespace {

using oracles::OracleKind;

RC_GTEST_PROP(OracleProps, BindingOracleHolds, (const std::vector<uint8_t>& bytes, uint32_t seed)) {
  props::oracle_holds(OracleKind::kBinding, bytes, seed);
}
RC_GTEST_PROP(OracleProps, RenameOracleHolds, (const std::vector<uint8_t>& bytes, uint32_t seed)) {
  props::oracle_holds(OracleKind::kRename, bytes, seed);
}
RC_GTEST_PROP(OracleProps, MemoOracleHolds, (const std::vector<uint8_t>& bytes, uint32_t seed)) {
  props::oracle_holds(OracleKind::kMemo, bytes, seed);
}
RC_GTEST_PROP(OracleProps, TranslationValidationHolds,
              (const std::vector<uint8_t>& bytes, uint32_t seed)) {
  props::oracle_holds(OracleKind::kTv, bytes, seed);
}
RC_GTEST_PROP(OracleProps, DifferentialHolds, (const std::vector<uint8_t>& bytes, uint32_t seed)) {
  props::oracle_holds(OracleKind::kDifferential, bytes, seed);
}

// The property for `oracle` fails with `fault` on, and its report shows the shrunk case, the
// program's text and the RC_PARAMS string that replays it (which does replay it).
void expect_fires(OracleKind oracle, Fault fault) {
  ScopedFault on(fault);
  rc::detail::TestParams params;
  params.seed = 20261124;
  params.maxSuccess = 3000;  // the differential's fault shows in about 1 program of 250
  params.maxSize = 400;
  props::PropertyRun run = props::run_oracle_property(oracle, params);
  ASSERT_FALSE(run.passed) << oracles::oracle_name(oracle) << " did not fire\n" << run.output;
  EXPECT_NE(run.output.find("Falsifiable after"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("# sfz 1"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("reproduce: RC_PARAMS=\"seed=20261124 max_success=3000 max_size=400\""),
            std::string::npos)
      << run.output;
  EXPECT_EQ(props::run_oracle_property(oracle, params).output, run.output);  // it replays
}

TEST(OraclePropsFire, BindingUnderSizeObliviousEverywhere) {
  expect_fires(OracleKind::kBinding, Fault::kSizeObliviousEverywhere);
}
TEST(OraclePropsFire, MemoUnderMemoIgnoresVersion) {
  expect_fires(OracleKind::kMemo, Fault::kMemoIgnoresVersion);
}
TEST(OraclePropsFire, TranslationValidationUnderRangeAssertsSkipped) {
  expect_fires(OracleKind::kTv, Fault::kRangeAssertsSkipped);
}
TEST(OraclePropsFire, DifferentialUnderRefineRangesOffByOne) {
  expect_fires(OracleKind::kDifferential, Fault::kRefineRangesOffByOne);
}
TEST(OraclePropsFire, RenameUnderRenameReplacementDeclined) {
  expect_fires(OracleKind::kRename, Fault::kRenameReplacementDeclined);
}

}  // namespace
}  // namespace sf
