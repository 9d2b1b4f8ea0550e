// fuzz/worker_message.h: each message kind formats as the line the campaign reads and parses back
// to itself; lines no worker writes are refused.
#include "fuzz/worker_message.h"

#include <gtest/gtest.h>

namespace sf::fuzz {
namespace {

Recipe mutant() {
  std::optional<Recipe> r = Recipe::parse("seed=42;3:7,9:1");
  EXPECT_TRUE(r);
  return *r;
}

TEST(WorkerMessage, StartRoundTrips) {
  WorkerMessage m = WorkerMessage::start(mutant(), true);
  EXPECT_EQ(m.format(), "start\tseed=42;3:7,9:1\t1");
  std::optional<WorkerMessage> back = WorkerMessage::parse(m.format());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kind, WorkerMessage::Kind::kStart);
  EXPECT_EQ(back->recipe.str(), "seed=42;3:7,9:1");
  EXPECT_TRUE(back->fresh_seed);
  EXPECT_FALSE(WorkerMessage::parse("start\tseed=42\t0")->fresh_seed);
}

TEST(WorkerMessage, DoneRoundTripsWithItsFeatures) {
  WorkerMessage m = WorkerMessage::done(mutant(), "fail:tv", "guard u0 >= 2\tnot\nchecked",
                                        {0x1f, 0x8000000000000002ULL});
  std::string line = m.format();
  EXPECT_EQ(line.find('\n'), std::string::npos);
  std::optional<WorkerMessage> back = WorkerMessage::parse(line);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kind, WorkerMessage::Kind::kDone);
  EXPECT_EQ(back->recipe.str(), "seed=42;3:7,9:1");
  EXPECT_EQ(back->bucket, "fail:tv");
  EXPECT_EQ(back->detail, "guard u0 >= 2 not checked");  // tab and newline: one field
  EXPECT_EQ(back->new_features, (std::vector<uint64_t>{0x1f, 0x8000000000000002ULL}));
  // A pass: no detail, no new feature.
  std::optional<WorkerMessage> pass =
      WorkerMessage::parse(WorkerMessage::done(mutant(), "pass", "", {}).format());
  ASSERT_TRUE(pass);
  EXPECT_EQ(pass->bucket, "pass");
  EXPECT_TRUE(pass->detail.empty());
  EXPECT_TRUE(pass->new_features.empty());
}

TEST(WorkerMessage, UnavailableKeepsTheWholeReason) {
  WorkerMessage m = WorkerMessage::unavailable("no CUDA driver\n(libcuda.so.1: cannot open)");
  EXPECT_EQ(m.format(), "unavailable\tno CUDA driver (libcuda.so.1: cannot open)");
  std::optional<WorkerMessage> back = WorkerMessage::parse(m.format());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kind, WorkerMessage::Kind::kUnavailable);
  EXPECT_EQ(back->why, "no CUDA driver (libcuda.so.1: cannot open)");
  EXPECT_EQ(WorkerMessage::parse("unavailable")->why, "?");
}

TEST(WorkerMessage, LinesNoWorkerWritesAreRefused) {
  for (const char* line :
       {"", "hello", "start\tseed=1", "start\tseed=1\t2", "start\tbad\t1", "done\tseed=1\tpass\t",
        "done\tseed=1\tpass\t\tnot-hex,", "finish\tseed=1\tpass\t\t"}) {
    EXPECT_FALSE(WorkerMessage::parse(line)) << "'" << line << "'";
  }
}

}  // namespace
}  // namespace sf::fuzz
