// fuzz/ci_check.h: corpus files that match, mismatch, do not parse or crash; a missing corpus
// directory; the property and campaign suites on a small budget.
#include "fuzz/ci_check.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "fuzz/files.h"

namespace sf::fuzz {
namespace {

namespace fs = std::filesystem;

fs::path write_program(const std::string& dir_name, const std::string& name,
                       const std::string& text) {
  fs::path dir = fs::path(testing::TempDir()) / dir_name;
  fs::create_directories(dir);
  write_atomically(dir / name, text);
  return dir / name;
}

CheckOptions quick() {
  CheckOptions o;
  o.limits.timeout_seconds = 30;
  return o;
}

TEST(CiCheck, AFileThatGivesItsExpectationPasses) {
  fs::path f = write_program("ci_ok", "ok.sfz",
                             "# sfz 1\n# expect: ok\ninput x: i64[3] = [1, 0, 2]\n"
                             "return nonzero(x)\n");
  JUnitCase c = check_corpus_file(f, quick());
  EXPECT_EQ(c.status, JUnitCase::Status::kPassed) << c.message << "\n" << c.details;
  EXPECT_EQ(c.classname, "corpus.ci_ok");
  EXPECT_EQ(c.name, "ok.sfz");
}

TEST(CiCheck, AFileThatNoLongerGivesItsExpectationFails) {
  fs::path f = write_program("ci_mismatch", "m.sfz",
                             "# sfz 1\n# expect: error shape\ninput x: i64[3] = [1, 0, 2]\n"
                             "return nonzero(x)\n");
  JUnitCase c = check_corpus_file(f, quick());
  EXPECT_EQ(c.status, JUnitCase::Status::kFailed);
  EXPECT_EQ(c.message, "expected 'error shape', got pass");
  EXPECT_NE(c.details.find("replay: shapefuzz run " + f.string()), std::string::npos);
}

TEST(CiCheck, AFileThatDoesNotParseFails) {
  fs::path f = write_program("ci_parse", "bad.sfz", "# sfz 1\nreturn (\n");
  JUnitCase c = check_corpus_file(f, quick());
  EXPECT_EQ(c.status, JUnitCase::Status::kFailed);
  EXPECT_EQ(c.message.rfind("the file does not parse: ", 0), 0u) << c.message;
}

TEST(CiCheck, AChildThatRunsOutOfTimeFailsWithItsCrashBucket) {
  // 16M elements filled and summed by eager and by the compiled program: far over a millisecond.
  fs::path f = write_program("ci_timeout", "slow.sfz",
                             "# sfz 1\n# expect: ok\nreturn sum(ones([4000, 4000]) + 1)\n");
  CheckOptions o = quick();
  o.limits.timeout_seconds = 0.001;
  JUnitCase c = check_corpus_file(f, o);
  EXPECT_EQ(c.status, JUnitCase::Status::kFailed);
  EXPECT_EQ(c.message, "crash:timeout while running " + f.string());
}

TEST(CiCheck, AMissingCorpusDirectoryIsAFailedCase) {
  CheckOptions o = quick();
  o.corpus = {(fs::path(testing::TempDir()) / "no_such_dir").string()};
  JUnitSuite s = corpus_suite(o);
  ASSERT_EQ(s.cases.size(), 1u);
  EXPECT_EQ(s.failures(), 1);
  EXPECT_NE(s.cases[0].message.find("no such directory"), std::string::npos);
}

TEST(CiCheck, TheCorpusSuiteHasACasePerFile) {
  fs::path dir = fs::path(testing::TempDir()) / "ci_suite";
  write_program("ci_suite", "a.sfz", "# sfz 1\n# expect: ok\nreturn zeros([2])\n");
  write_program("ci_suite", "b.sfz", "# sfz 1\n# expect: ok\nreturn ones([1])\n");
  CheckOptions o = quick();
  o.corpus = {dir.string()};
  JUnitSuite s = corpus_suite(o);
  EXPECT_EQ(s.cases.size(), 2u);
  EXPECT_EQ(s.failures(), 0);
}

TEST(CiCheck, PropertiesAndCampaignSuitesOnASmallBudget) {
  CheckOptions o = quick();
  o.property_cases = 3;
  JUnitSuite props = properties_suite(o);
  EXPECT_EQ(props.cases.size(), 5u);  // one per oracle property
  EXPECT_EQ(props.failures(), 0);
  o.seconds = 1;
  JUnitSuite campaign = campaign_suite(o);
  ASSERT_GE(campaign.cases.size(), 1u);
  EXPECT_EQ(campaign.cases[0].name.rfind("seeds 1..", 0), 0u) << campaign.cases[0].name;
  EXPECT_EQ(campaign.failures(), 0);
}

}  // namespace
}  // namespace sf::fuzz
