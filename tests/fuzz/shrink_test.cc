// The shrinker keeps header lines and the property, and reaches a 1-minimal program on lines;
// run_isolated turns aborts and hangs into results; the campaign loop stops when asked.
#include "fuzz/shrink.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>

#include "engine/base/faults.h"
#include "fuzz/campaign.h"
#include "fuzz/isolated.h"

namespace sf::fuzz {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

TEST(Shrink, RemovesEveryLineThePropertyDoesNotNeed) {
  std::string text =
      "# sfz 1\n# expect: ok\ninput a: f32[2] = arange()\ninput b: f32[2] = arange()\n"
      "c = a + 1\nd = b * 2\ne = c + d\nreturn e, c, d\n";
  // Interesting while it still defines d and returns it (a stand-in for "same bucket").
  auto needs_d = [](const std::string& t) {
    return has_line(t, "input b: f32[2] = arange()") && has_line(t, "d = b * 2") &&
           t.find("return") != std::string::npos && t.find(" d") != std::string::npos &&
           t.find("return") < t.rfind(" d");
  };
  ASSERT_TRUE(needs_d(text));
  ShrinkResult r = shrink_program_text(text, needs_d);
  EXPECT_TRUE(needs_d(r.text)) << r.text;
  EXPECT_TRUE(has_line(r.text, "# sfz 1")) << r.text;
  EXPECT_TRUE(has_line(r.text, "# expect: ok")) << r.text;
  EXPECT_FALSE(has_line(r.text, "c = a + 1")) << r.text;
  EXPECT_FALSE(has_line(r.text, "input a: f32[2] = arange()")) << r.text;
  EXPECT_TRUE(has_line(r.text, "return d")) << r.text;
  EXPECT_EQ(program_text_lines(r.text), 3);  // input b, d = ..., return d
  EXPECT_GT(r.accepted, 0);
}

TEST(Shrink, StopsAtTheAttemptBudget) {
  std::string text = "# sfz 1\nx = 1\ny = 2\nz = 3\nreturn x\n";
  int calls = 0;
  ShrinkResult r = shrink_program_text(
      text, [&](const std::string&) { return ++calls, false; }, 3);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(r.text, text);
}

TEST(Isolated, ReturnsTheJobsResultOrHowItDied) {
  EXPECT_EQ(run_isolated([] { return std::string("fine"); }, 10), "fine");
  EXPECT_EQ(run_isolated(
                []() -> std::string {
                  std::signal(SIGABRT, SIG_DFL);
                  std::abort();
                },
                10),
            "crash:signal6");
  EXPECT_EQ(run_isolated(
                []() -> std::string {
                  sleep(30);
                  return "late";
                },
                0.5),
            "crash:timeout");
  EXPECT_EQ(run_isolated([]() -> std::string { _exit(7); }, 10), "crash:exit7");
}

TEST(Campaign, StopsAtTheFirstFindingItIsAskedToStopAt) {
  ScopedFault on(Fault::kRangeAssertsSkipped);  // every nonzero program fails the tv oracle
  CampaignOptions opts;
  opts.seconds = 60;
  opts.pipeline.oracles = oracles::OracleSet::all();
  opts.quiet_workers = true;
  Finding first;
  opts.on_finding = [&](const Finding& f) {
    if (!is_finding_bucket(f.bucket)) return false;
    first = f;
    return true;
  };
  CampaignResult r = run_campaign(opts);
  EXPECT_TRUE(r.stopped_early);
  EXPECT_LT(r.seconds, 30);
  EXPECT_EQ(first.bucket.rfind("fail:", 0), 0u) << first.bucket;
  EXPECT_TRUE(first.first_of_bucket);
  EXPECT_EQ(r.first_seed_of.at(first.bucket), first.seed);
}

}  // namespace
}  // namespace sf::fuzz
