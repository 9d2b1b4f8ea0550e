// fuzz/campaign_session.h: the campaign command's library side: the progress line, the report
// options a campaign gives, and whole sessions (report, JUnit, shard directory, usage errors).
#include "fuzz/campaign_session.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "fuzz/campaign_resume.h"
#include "fuzz/corpus.h"
#include "fuzz/files.h"
#include "fuzz/recipe.h"

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

TEST(CampaignSession, AResumedCampaignGoesOnPastItsSeedsWithItsFeaturesAndCorpus) {
  fs::path out = fresh_dir("session_resume");
  CampaignSettings first = small_session(out);
  first.campaign.guided = true;
  first.campaign.swarm = true;
  first.campaign.first_seed = 40;
  ASSERT_EQ(run_campaign_session(first), CampaignExit::kClean);
  nlohmann::json night1 = nlohmann::json::parse(*read_text_file(out / "report.json"));
  EXPECT_EQ(night1["campaign"]["resume_seed"], 52);  // seeds 40..51 ran
  EXPECT_EQ(night1["campaign"]["swarm_origin"], 40);
  ASSERT_EQ(night1["nights"].size(), 1u);
  uint64_t features1 = night1["features"];

  std::string why;
  std::optional<ResumeState> st = read_resume_state(out, &why);
  ASSERT_TRUE(st) << why;
  EXPECT_EQ(st->first_seed, 52u);
  EXPECT_EQ(st->swarm_origin, 40u);
  EXPECT_EQ(st->known_features.size(), features1);

  CampaignSettings second = small_session(out);
  second.campaign.swarm = true;
  second.resume = true;
  ASSERT_EQ(run_campaign_session(second), CampaignExit::kClean);
  nlohmann::json night2 = nlohmann::json::parse(*read_text_file(out / "report.json"));
  EXPECT_EQ(night2["campaign"]["first_seed"], 52);
  EXPECT_EQ(night2["campaign"]["swarm_origin"], 40);  // the growth counts from the first night
  EXPECT_EQ(night2["campaign"]["resume_seed"], 64);
  ASSERT_EQ(night2["nights"].size(), 2u);
  EXPECT_EQ(night2["nights"][0]["first_seed"], 40);
  EXPECT_EQ(night2["nights"][1]["first_seed"], 52);
  EXPECT_GE(night2["features"].get<uint64_t>(), features1);  // the union of the nights
  EXPECT_EQ(night2["nights"][1]["new_features"].get<uint64_t>(),
            night2["features"].get<uint64_t>() - features1);
  // The first night's corpus was distilled before the second began.
  const nlohmann::json& corpus = night2["nights"][1]["corpus"];
  EXPECT_GT(corpus["read"].get<uint64_t>(), 0u);
  EXPECT_LE(corpus["kept"].get<uint64_t>(), corpus["read"].get<uint64_t>());
  EXPECT_TRUE(fs::is_directory(out / "corpus"));
  EXPECT_FALSE(fs::exists(out / "corpus.distilled"));
  EXPECT_FALSE(fs::exists(out / "corpus.old"));
}

TEST(CampaignSession, ResumingWhatIsNoCampaignIsAUsageError) {
  fs::path out = fresh_dir("session_resume_bad");
  std::string why;
  EXPECT_FALSE(read_resume_state(out, &why));
  EXPECT_NE(why.find("report.json"), std::string::npos) << why;
  CampaignSettings s = small_session(out);
  s.resume = true;
  EXPECT_EQ(run_campaign_session(s), CampaignExit::kUsage);
  fs::create_directories(out);
  write_atomically(out / "report.json", "{\"programs\": 3}");
  EXPECT_FALSE(read_resume_state(out, &why));
  EXPECT_NE(why.find("not a campaign report"), std::string::npos) << why;
  write_atomically(out / "report.json", "{\"campaign\": {\"first_seed\": 7}, \"programs\": 3}");
  write_atomically(out / "features.txt", "zz\n");
  EXPECT_FALSE(read_resume_state(out, &why));
  EXPECT_NE(why.find("features.txt"), std::string::npos) << why;
  // An older report, without resume_seed or nights: past its programs, one night.
  write_atomically(out / "features.txt", "a1\nb2\n");
  std::optional<ResumeState> st = read_resume_state(out, &why);
  ASSERT_TRUE(st) << why;
  EXPECT_EQ(st->first_seed, 10u);
  EXPECT_EQ(st->swarm_origin, 0u);
  EXPECT_EQ(st->nights.size(), 1u);
  EXPECT_EQ(st->known_features, (std::vector<uint64_t>{0xa1, 0xb2}));
  s.campaign.shards = 2;  // a shard is not resumed
  EXPECT_EQ(run_campaign_session(s), CampaignExit::kUsage);
}

TEST(CampaignSession, DistillingInPlaceRecoversFromAnInterruptedOne) {
  fs::path dir = fresh_dir("distill_in_place");
  fs::path corpus = dir / "corpus";
  // An earlier distillation moved the corpus aside and died: it comes back, and is distilled.
  fs::create_directories(dir / "corpus.old");
  Recipe r;
  r.seed = 3;
  write_corpus_entry((dir / "corpus.old").string(), r, generated_for_recipe(r).program);
  fs::create_directories(dir / "corpus.distilled");  // its half-written output
  IsolationLimits limits;
  DistillResult d = distill_corpus_in_place(corpus, oracles::PipelineOptions{}, limits, 1);
  EXPECT_EQ(d.read, 1u);
  EXPECT_EQ(d.kept, 1u);
  EXPECT_EQ(read_corpus(corpus.string()).size(), 1u);
  EXPECT_FALSE(fs::exists(dir / "corpus.old"));
  EXPECT_FALSE(fs::exists(dir / "corpus.distilled"));
  // A corpus that does not exist distills to an empty one.
  fs::path none = dir / "none";
  EXPECT_EQ(distill_corpus_in_place(none, oracles::PipelineOptions{}, limits, 1).read, 0u);
  EXPECT_TRUE(fs::is_directory(none));
}

}  // namespace
}  // namespace sf::fuzz
