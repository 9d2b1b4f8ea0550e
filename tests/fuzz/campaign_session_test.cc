// fuzz/campaign_session.h: the campaign command's library side: the progress line, the report
// options a campaign gives, and whole sessions (report, JUnit, shard directory, usage errors).
#include "fuzz/campaign_session.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "fuzz/files.h"

namespace sf::fuzz {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(dir);
  return dir;
}

CampaignSettings small_session(const fs::path& out) {
  CampaignSettings s;
  s.campaign.seconds = 60;
  s.campaign.seeds = 12;  // ends when these are done
  s.campaign.quiet_workers = true;
  s.out_dir = out;
  s.out_dir_given = true;
  s.minimize_seconds = 0;
  return s;
}

TEST(CampaignSession, ProgressLineCountsBucketsByKind) {
  std::map<std::string, uint64_t> buckets = {
      {"pass", 7},           {"rejected:shape", 2}, {"rejected:data_dependent_guard", 1},
      {"fail:tv", 1},        {"crash:signal6", 1},  {"wrong-rejection:shape", 1},
      {"unknown:binding", 2}};
  EXPECT_EQ(progress_line(2.0, 15, 40, buckets),
            "[  2.0s] programs=15 (8/s) features=40 pass=7 rejected=3 fail=1 crash=1 triage=3");
}

TEST(CampaignSession, ReportOptionsRecordTheCampaignsSeedsAndLimits) {
  CampaignOptions c;
  c.first_seed = 9;
  c.seeds = 100;
  c.jobs = 3;
  c.shard = 1;
  c.shards = 4;
  c.seconds = 42;
  c.timeout = 7;
  c.memory_mb = 1234;
  c.pipeline.oracles = oracles::OracleSet::all();
  ReportOptions r = report_options_for(c);
  EXPECT_EQ(r.first_seed, 9u);
  EXPECT_EQ(r.seeds, 100u);
  EXPECT_EQ(r.jobs, 3);
  EXPECT_EQ(r.shard, 1);
  EXPECT_EQ(r.shards, 4);
  EXPECT_EQ(r.campaign_seconds, 42);
  EXPECT_EQ(r.limits.timeout_seconds, 7);
  EXPECT_EQ(r.limits.memory_mb, 1234u);
  EXPECT_EQ(r.pipeline.oracles.str(), oracles::OracleSet::all().str());
}

TEST(CampaignSession, ASessionWritesItsFinalReportAndJUnit) {
  fs::path out = fresh_dir("session_ok");
  CampaignSettings s = small_session(out);
  s.junit = (out / "junit.xml").string();
  fs::create_directories(out);
  EXPECT_EQ(run_campaign_session(s), CampaignExit::kClean);
  std::optional<std::string> report = read_text_file(out / "report.json");
  ASSERT_TRUE(report);
  nlohmann::json json = nlohmann::json::parse(*report);
  EXPECT_EQ(json["status"], "finished");
  EXPECT_EQ(json["programs"], 12);
  std::optional<std::string> junit = read_text_file(out / "junit.xml");
  ASSERT_TRUE(junit);
  EXPECT_NE(junit->find("<testsuites"), std::string::npos);
}

TEST(CampaignSession, AShardWritesUnderItsOwnNameUnlessTold) {
  fs::path out = fresh_dir("session_shard");
  CampaignSettings s = small_session(out);
  s.out_dir_given = false;
  s.campaign.shard = 1;
  s.campaign.shards = 2;
  EXPECT_EQ(run_campaign_session(s), CampaignExit::kClean);
  EXPECT_TRUE(fs::exists(out / "shard-1-of-2" / "report.json"));
  EXPECT_FALSE(fs::exists(out / "report.json"));
}

TEST(CampaignSession, AGuidedSessionKeepsItsCorpusUnderTheOutputDirectory) {
  fs::path out = fresh_dir("session_guided");
  CampaignSettings s = small_session(out);
  s.campaign.guided = true;
  EXPECT_EQ(run_campaign_session(s), CampaignExit::kClean);
  EXPECT_TRUE(fs::is_directory(out / "corpus"));
}

TEST(CampaignSession, AnUnwritableJUnitPathIsAUsageErrorBeforeAnyWork) {
  fs::path out = fresh_dir("session_usage");
  CampaignSettings s = small_session(out);
  fs::create_directories(out / "a_directory");
  s.junit = (out / "a_directory").string();  // a directory cannot be the JUnit file
  EXPECT_EQ(run_campaign_session(s), CampaignExit::kUsage);
  EXPECT_FALSE(fs::exists(out / "report.json"));
}

}  // namespace
}  // namespace sf::fuzz
