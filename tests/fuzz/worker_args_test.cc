// fuzz/worker_args.h: what the campaign formats for an exec'd worker parses back to the same
// plan and settings; bad command lines are refused with a reason.
#include "fuzz/worker_args.h"

#include <gtest/gtest.h>

namespace sf::fuzz {
namespace {

// The arguments after "EXE campaign-worker".
std::vector<std::string> tail(const std::vector<std::string>& argv) {
  return std::vector<std::string>(argv.begin() + 2, argv.end());
}

TEST(WorkerArgs, EverySettingRoundTrips) {
  WorkerArgs w;
  w.plan.first = 17;
  w.plan.stride = 6;
  w.plan.end = 1000;
  w.plan.deadline = 12345.678901;
  w.plan.replay_share = 3;
  w.plan.restart = 2;
  w.plan.swarm = true;
  w.plan.swarm_origin = 5;
  w.backend = "cuda";
  w.pipeline.oracles =
      oracles::OracleSet::none().add(oracles::OracleKind::kBinding).add(oracles::OracleKind::kTv);
  w.pipeline.smt.timeout_ms = 250;
  w.pipeline.smt.cross_check_unsat = true;
  w.pipeline.oracle_deadline_ms = 900;
  w.memory_mb = 8192;
  w.corpus = "/tmp/a corpus";  // one argument, spaces and all
  w.jobs = 6;
  w.quiet = true;
  std::vector<std::string> argv = w.to_argv("/proc/self/exe");
  ASSERT_GE(argv.size(), 2u);
  EXPECT_EQ(argv[0], "/proc/self/exe");
  EXPECT_EQ(argv[1], kWorkerSubcommand);
  std::string error;
  std::optional<WorkerArgs> back = WorkerArgs::parse(tail(argv), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->plan.first, 17u);
  EXPECT_EQ(back->plan.stride, 6u);
  EXPECT_EQ(back->plan.end, 1000u);
  EXPECT_NEAR(back->plan.deadline, 12345.678901, 1e-6);
  EXPECT_EQ(back->plan.replay_share, 3);
  EXPECT_EQ(back->plan.restart, 2u);
  EXPECT_TRUE(back->plan.swarm);
  EXPECT_EQ(back->plan.swarm_origin, 5u);
  EXPECT_EQ(back->backend, "cuda");
  EXPECT_EQ(back->pipeline.oracles.str(), "binding,tv");
  EXPECT_EQ(back->pipeline.smt.timeout_ms, 250u);
  EXPECT_TRUE(back->pipeline.smt.cross_check_unsat);
  EXPECT_EQ(back->pipeline.oracle_deadline_ms, 900u);
  EXPECT_EQ(back->memory_mb, 8192u);
  EXPECT_EQ(back->corpus, "/tmp/a corpus");
  EXPECT_EQ(back->jobs, 6);
  EXPECT_TRUE(back->quiet);
  // And once more: formatting what was parsed gives the same command line.
  EXPECT_EQ(back->to_argv("/proc/self/exe"), argv);
}

TEST(WorkerArgs, DefaultsRoundTripWithoutTheOptionalFlags) {
  WorkerArgs w;
  w.plan.deadline = 1.5;
  w.pipeline.oracles = oracles::OracleSet::all();
  std::vector<std::string> argv = w.to_argv("exe");
  for (const std::string& a : argv) {
    EXPECT_NE(a, "--quiet");
    EXPECT_NE(a, "--cross-check");
    EXPECT_NE(a, "--corpus");
    EXPECT_NE(a, "--swarm-origin");
  }
  std::string error;
  std::optional<WorkerArgs> back = WorkerArgs::parse(tail(argv), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->plan.end, UINT64_MAX);
  EXPECT_EQ(back->plan.replay_share, -1);
  EXPECT_FALSE(back->quiet);
  EXPECT_FALSE(back->plan.swarm);
  EXPECT_TRUE(back->corpus.empty());
  EXPECT_EQ(back->pipeline.oracles.str(), oracles::OracleSet::all().str());
}

TEST(WorkerArgs, BadCommandLinesAreRefusedWithAReason) {
  std::string error;
  EXPECT_FALSE(WorkerArgs::parse({"--first", "1", "--stride", "1"}, &error));
  EXPECT_EQ(error, "a worker needs --first, --stride and --deadline");
  EXPECT_FALSE(WorkerArgs::parse({"--first", "x", "--stride", "1", "--deadline", "2"}, &error));
  EXPECT_EQ(error, "bad value 'x' for --first");
  EXPECT_FALSE(WorkerArgs::parse({"--first", "-1", "--stride", "1", "--deadline", "2"}, &error));
  EXPECT_EQ(error, "bad value '-1' for --first");
  EXPECT_FALSE(WorkerArgs::parse({"--first", "1", "--stride", "1", "--deadline"}, &error));
  EXPECT_EQ(error, "--deadline needs a value");
  EXPECT_FALSE(WorkerArgs::parse({"--frist", "1"}, &error));
  EXPECT_EQ(error, "unknown worker argument '--frist'");
  EXPECT_FALSE(WorkerArgs::parse(
      {"--first", "1", "--stride", "1", "--deadline", "2", "--backend", "tpu"}, &error));
  EXPECT_EQ(error, "bad value 'tpu' for --backend");
  EXPECT_FALSE(WorkerArgs::parse(
      {"--first", "1", "--stride", "1", "--deadline", "2", "--oracles", "none"}, &error));
  EXPECT_EQ(error, "bad value 'none' for --oracles");
  EXPECT_FALSE(WorkerArgs::parse(
      {"--first", "1", "--stride", "1", "--deadline", "2", "--jobs", "0"}, &error));
  EXPECT_NE(error.find("must be positive"), std::string::npos) << error;
}

}  // namespace
}  // namespace sf::fuzz
