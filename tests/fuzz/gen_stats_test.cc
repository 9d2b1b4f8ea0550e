// The generator's coverage targets over the campaign's first 500 seeds (issue: >= 90% of programs
// reach execution, >= 50% have a data-dependent op, every drawable op is drawn), and the binding
// path kinds the generated programs reach today. `shapefuzz gen --stats N` prints the same table.
#include "fuzz/gen_stats.h"

#include <gtest/gtest.h>

#include "engine/program/schema.h"

namespace sf::fuzz {
namespace {

class GenStatsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { stats_ = new GenStats(collect_gen_stats(1, 500)); }
  static void TearDownTestSuite() { delete stats_; }
  static GenStats* stats_;
};
GenStats* GenStatsTest::stats_ = nullptr;

TEST_F(GenStatsTest, MostProgramsReachExecution) {
  EXPECT_EQ(stats_->programs, 500);
  EXPECT_GE(stats_->reached_execution, 450) << stats_->report();
}

TEST_F(GenStatsTest, HalfTheProgramsHaveADataDependentOp) {
  EXPECT_GE(stats_->data_dependent, 250) << stats_->report();
}

TEST_F(GenStatsTest, EveryDrawableOpIsDrawn) {
  for (program::OpKind op : program::all_ops()) {
    const program::OpSchema& s = program::schema(op);
    if (s.gen_weight <= 0) continue;  // drawn only by a policy that focuses on it
    EXPECT_GT(stats_->op_programs.count(s.name), 0u) << s.name << " never drawn";
  }
}

TEST_F(GenStatsTest, BindingPathKindsReached) {
  // Programs reach the kinds the language's ops produce (a storage offset from a slice with an
  // undecided start); the ShapeEnv driver reaches the rest (stride, inner tensors,
  // DivideByKey), and the report says why programs do not.
  for (const char* kind :
       {"sequence [i]", "size(i)", "storage_offset()", "convert int()", "empty path ()"}) {
    EXPECT_GT(stats_->keypath_kinds.count(kind), 0u) << kind << "\n" << stats_->report();
  }
  for (const char* kind : {"sequence [i]", "size(i)", "stride(i)", "storage_offset()",
                           "inner tensor .attr", "divide by // d", "empty path ()"}) {
    EXPECT_GT(stats_->driver_keypath_kinds.count(kind), 0u) << kind << "\n" << stats_->report();
  }
}

TEST_F(GenStatsTest, NewGeneratorFeaturesReached) {
  for (const char* f : {"inference mode", "unbacked scalar input",
                        "unbacked input re-fakified in a fresh fake mode", "unique output [0] read",
                        "unique output [1] read", "tolist output [0] read",
                        "tolist output [1] read", "check on a float value", "item on a bool tensor",
                        "equality check (==)", "cond", "while_loop"}) {
    EXPECT_GT(stats_->features.count(f), 0u) << f << "\n" << stats_->report();
  }
}

TEST_F(GenStatsTest, ReportNamesWhatWasNotReached) {
  std::string r = stats_->report();
  EXPECT_NE(r.find("reached execution:"), std::string::npos);
  EXPECT_NE(r.find("never drawn: none"), std::string::npos) << r;
  // Every path entry kind has a line, reached (a count) or not ("NOT REACHED").
  EXPECT_NE(r.find("  inner tensor .attr  (the language has no tensor subclasses)\n"),
            std::string::npos)
      << r;
}

}  // namespace
}  // namespace sf::fuzz
