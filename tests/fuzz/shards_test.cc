// Sharded campaigns: the seed plan splits seeds as --jobs does, merge_shards deduplicates findings
// by signature (counts summed, the smallest first seed's files kept), unions feature sets,
// combines timelines and tells missing, repeated or foreign shards; the CI summaries; corpus
// distillation keeps every feature with fewer entries.
#include "fuzz/shards.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <set>

#include "fuzz/campaign.h"
#include "fuzz/campaign_report.h"
#include "fuzz/corpus.h"
#include "fuzz/features.h"
#include "fuzz/files.h"
#include "fuzz/recipe.h"

namespace sf::fuzz {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(Shards, ParseShard) {
  ASSERT_TRUE(parse_shard("0/1"));
  EXPECT_EQ(parse_shard("3/4")->index, 3);
  EXPECT_EQ(parse_shard("3/4")->count, 4);
  for (const char* bad : {"4/4", "1/0", "-1/4", "1/", "/4", "a/4", "1/4x", "1", "", "1/999999"}) {
    EXPECT_FALSE(parse_shard(bad)) << bad;
  }
}

TEST(Shards, ShardsOfJobsRunTheSeedsOfOneCampaign) {
  // One campaign of 4 jobs over seeds 10..49, and 2 shards of 2 jobs: the same seed per worker.
  auto seeds_of = [](const CampaignOptions& o) {
    SeedPlan p = seed_plan(o);
    std::vector<std::set<uint64_t>> per_slot(static_cast<size_t>(o.jobs));
    for (int j = 0; j < o.jobs; ++j) {
      for (uint64_t s = p.first_of(static_cast<uint64_t>(j)); s < p.end; s += p.stride) {
        per_slot[static_cast<size_t>(j)].insert(s);
      }
    }
    return per_slot;
  };
  CampaignOptions one;
  one.first_seed = 10;
  one.seeds = 40;
  one.jobs = 4;
  std::vector<std::set<uint64_t>> whole = seeds_of(one), parts;
  for (int shard = 0; shard < 2; ++shard) {
    CampaignOptions o = one;
    o.jobs = 2;
    o.shard = shard;
    o.shards = 2;
    for (const auto& slot : seeds_of(o)) parts.push_back(slot);
  }
  std::set<std::set<uint64_t>> a(whole.begin(), whole.end()), b(parts.begin(), parts.end());
  EXPECT_EQ(a, b);
  std::set<uint64_t> all;
  for (const auto& slot : whole) all.insert(slot.begin(), slot.end());
  EXPECT_EQ(all.size(), 40u);
  EXPECT_EQ(*all.begin(), 10u);
  EXPECT_EQ(*all.rbegin(), 49u);
  CampaignOptions unbounded;
  EXPECT_EQ(seed_plan(unbounded).end, UINT64_MAX);
}

TEST(Shards, KnownSignatures) {
  std::set<std::string> k = parse_known_signatures("# known\n\n  fail:INV-6: a  \ncrash:b\n#x\n");
  EXPECT_EQ(k, (std::set<std::string>{"fail:INV-6: a", "crash:b"}));
}

TEST(Shards, FeatureFileRoundTripsAndRejectsGarbage) {
  std::vector<uint64_t> h = {1, 0xabc, uint64_t{1} << 63};
  EXPECT_EQ(parse_hash_list(hash_list_text(h, '\n'), '\n'), h);
  EXPECT_EQ(hash_list_text({10, 255}, ','), "a,ff,");
  EXPECT_EQ(parse_hash_list("a,ff,", ','), (std::vector<uint64_t>{10, 255}));
  EXPECT_FALSE(parse_hash_list("12\nzz\n", '\n'));
  EXPECT_FALSE(parse_hash_list("12", '\n'));  // a last line without its newline
  EXPECT_FALSE(parse_hash_list("1,,2,", ','));
  EXPECT_FALSE(parse_hash_list("12345678901234567,", ','));  // over 64 bits
}

// A shard's directory as a campaign leaves it: report.json, features.txt, one reproducer per
// finding.
Json finding(const std::string& sig, const std::string& cls, uint64_t seed, uint64_t count,
             double at, const std::string& file) {
  return {{"signature", sig},       {"bucket", sig.substr(0, sig.find(':', 5))},
          {"class", cls},           {"count", count},
          {"first_seed", seed},     {"recipe", ""},
          {"found_at_seconds", at}, {"original", file},
          {"minimized", ""},        {"test", ""},
          {"detail", "d"}};
}

void write_shard(const fs::path& dir, int index, int shards, const std::string& status,
                 const std::vector<Json>& findings, const std::vector<uint64_t>& features,
                 const Json& timeline) {
  fs::create_directories(dir / "failures");
  Json j;
  j["schema_version"] = kReportSchemaVersion;
  j["status"] = status;
  j["seconds"] = 10.0 + index;
  j["programs"] = 100;
  j["workers_lost"] = 1;
  j["features"] = features.size();
  j["campaign"] = {
      {"first_seed", 1}, {"seeds", 0}, {"jobs", 2}, {"shard", index}, {"shards", shards}};
  j["buckets"] = {{"pass", 90}, {"fail:INV-6", 10}};
  j["findings"] = findings;
  j["timeline"] = timeline;
  for (const Json& f : findings) {
    write_atomically(dir / f["original"].get<std::string>(),
                     "# sfz 1\n# from shard " + std::to_string(index) + "\n");
  }
  write_atomically(dir / "features.txt", hash_list_text(features, '\n'));
  write_atomically(dir / "report.json", j.dump(2) + "\n");
}

TEST(Shards, MergeDeduplicatesBySignatureAndKeepsTheSmallestSeed) {
  fs::path root = fresh_dir("merge");
  Json tl0 = Json::array(
      {{{"seconds", 1.0}, {"programs", 40}, {"features", 5}, {"buckets", {{"pass", 40}}}},
       {{"seconds", 3.0}, {"programs", 100}, {"features", 7}, {"buckets", {{"pass", 90}}}}});
  Json tl1 = Json::array(
      {{{"seconds", 2.0}, {"programs", 60}, {"features", 6}, {"buckets", {{"pass", 60}}}}});
  write_shard(root / "s0", 0, 2, "finished",
              {finding("fail:INV-6: x", "failures", 9, 3, 2.0, "failures/a.sfz"),
               finding("fail:INV-6: y", "failures", 4, 1, 5.0, "failures/b.sfz")},
              {1, 2, 3}, tl0);
  write_shard(root / "s1", 1, 2, "running",
              {finding("fail:INV-6: x", "failures", 2, 5, 3.0, "failures/a.sfz"),
               finding("wrong-rejection:shape: z", "triage", 7, 1, 1.0, "triage/c.sfz")},
              {3, 4, uint64_t{1} << 63}, tl1);
  fs::create_directories(root / "s1" / "triage");
  write_atomically(root / "s1" / "triage/c.sfz", "# sfz 1\n");
  MergeOptions o;
  o.out_dir = root / "out";
  o.shard_dirs = {root / "s1", root / "s0"};  // in any order
  o.known = std::set<std::string>{"fail:INV-6: y"};
  MergeResult r = merge_shards(o);
  EXPECT_TRUE(r.problems.empty()) << r.problems[0];
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.shards_read, 2u);
  const Json& j = r.report;
  EXPECT_EQ(j["status"], "interrupted");  // shard 1 had not finished
  EXPECT_EQ(j["programs"], 200);
  EXPECT_EQ(j["workers_lost"], 2);
  EXPECT_EQ(j["seconds"], 11.0);
  EXPECT_EQ(j["buckets"]["pass"], 180);
  EXPECT_EQ(j["features"], 5);  // {1, 2, 3, 4, edge}
  EXPECT_EQ(j["edge_features"], 1);
  EXPECT_EQ(j["campaign"]["jobs"], 4);
  ASSERT_EQ(j["findings"].size(), 3u);
  // In the order first found: z (1.0), x (min of 2.0 and 3.0), y.
  EXPECT_EQ(j["findings"][0]["signature"], "wrong-rejection:shape: z");
  const Json& x = j["findings"][1];
  EXPECT_EQ(x["signature"], "fail:INV-6: x");
  EXPECT_EQ(x["count"], 8);
  EXPECT_EQ(x["first_seed"], 2);
  EXPECT_EQ(x["found_at_seconds"], 2.0);
  // x's file is shard 1's (seed 2), y's shard 0's; triage files come along too.
  EXPECT_EQ(read_text_file(o.out_dir / "failures/a.sfz"), "# sfz 1\n# from shard 1\n");
  EXPECT_EQ(read_text_file(o.out_dir / "failures/b.sfz"), "# sfz 1\n# from shard 0\n");
  EXPECT_TRUE(fs::exists(o.out_dir / "triage/c.sfz"));
  EXPECT_EQ(r.new_signatures, std::vector<std::string>{"fail:INV-6: x"});
  // The timeline: at each moment the sum of each shard's latest sample.
  ASSERT_EQ(j["timeline"].size(), 3u);
  EXPECT_EQ(j["timeline"][0]["programs"], 40);
  EXPECT_EQ(j["timeline"][1]["programs"], 100);
  EXPECT_EQ(j["timeline"][2]["programs"], 160);
  EXPECT_EQ(j["timeline"][2]["buckets"]["pass"], 150);
  EXPECT_EQ(j["timeline"][2]["features"], 7);
  // Written: the report (parses back), the page, the union of features.
  std::optional<std::string> text = read_text_file(o.out_dir / "report.json");
  ASSERT_TRUE(text);
  EXPECT_EQ(Json::parse(*text)["programs"], 200);
  EXPECT_TRUE(fs::exists(o.out_dir / "report.html"));
  EXPECT_EQ(parse_hash_list(*read_text_file(o.out_dir / "features.txt"), '\n')->size(), 5u);
}

TEST(Shards, MergeTellsMissingRepeatedAndForeignShards) {
  fs::path root = fresh_dir("merge_problems");
  Json none = Json::array();
  write_shard(root / "a", 0, 3, "finished", {}, {1}, none);
  write_shard(root / "b", 0, 3, "finished", {}, {1}, none);
  write_shard(root / "c", 1, 2, "finished", {}, {1}, none);
  MergeOptions o;
  o.out_dir = root / "out";
  o.shard_dirs = {root / "a", root / "b", root / "c", root / "nothing"};
  MergeResult r = merge_shards(o);
  std::string all;
  for (const std::string& p : r.problems) all += p + "\n";
  EXPECT_NE(all.find("nothing: no readable report.json"), std::string::npos) << all;
  EXPECT_NE(all.find("shard 0 given twice: left out"), std::string::npos) << all;
  EXPECT_NE(all.find("a shard of another campaign"), std::string::npos) << all;
  EXPECT_NE(all.find("shard 1/3 is missing"), std::string::npos) << all;
  EXPECT_NE(all.find("shard 2/3 is missing"), std::string::npos) << all;
  // The repeated and the foreign shard are left out of every count.
  EXPECT_EQ(r.shards_read, 1u);
  EXPECT_EQ(r.report["programs"], 100);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.report["complete"], false);
  EXPECT_EQ(r.report["status"], "interrupted");
  EXPECT_EQ(r.report["problems"].size(), r.problems.size());
}

TEST(Shards, MergeTakesIllTypedReportsAsProblemsNotCrashes) {
  fs::path root = fresh_dir("merge_ill_typed");
  Json none = Json::array();
  write_shard(root / "good", 0, 2, "finished", {}, {1}, none);
  auto mangled = [&](const std::string& name, const std::function<void(Json&)>& edit) {
    write_shard(
        root / name, 1, 2, "finished",
        {finding("fail:INV-6: x", "failures", 3, 1, 1.0, "failures/a.sfz")}, {2},
        Json::array(
            {{{"seconds", 1.0}, {"programs", 1}, {"features", 1}, {"buckets", {{"pass", 1}}}}}));
    Json j = Json::parse(*read_text_file(root / name / "report.json"));
    edit(j);
    write_atomically(root / name / "report.json", j.dump());
    return root / name;
  };
  std::vector<fs::path> bad = {
      mangled("programs_string", [](Json& j) { j["programs"] = "many"; }),
      mangled("schema_string", [](Json& j) { j["schema_version"] = "2"; }),
      mangled("no_count", [](Json& j) { j["findings"][0].erase("count"); }),
      mangled("negative", [](Json& j) { j["buckets"]["pass"] = -1; }),
      mangled("sample", [](Json& j) { j["timeline"][0].erase("seconds"); }),
      mangled("escape", [](Json& j) { j["findings"][0]["original"] = "../../etc/passwd"; }),
      mangled("absolute", [](Json& j) { j["findings"][0]["test"] = "/etc/passwd"; }),
      mangled("shard_range", [](Json& j) { j["campaign"]["shard"] = 7; }),
      mangled("not_object",
              [](Json& j) {
                j = Json::array({1, 2});
              }),
  };
  for (const fs::path& dir : bad) {
    MergeOptions o;
    o.out_dir = root / "out";
    o.shard_dirs = {root / "good", dir};
    MergeResult r;
    ASSERT_NO_THROW(r = merge_shards(o)) << dir;
    EXPECT_EQ(r.shards_read, 1u) << dir;
    ASSERT_FALSE(r.problems.empty()) << dir;
    EXPECT_NE(r.problems[0].find(dir.string() + "/report.json: "), std::string::npos)
        << r.problems[0];
    EXPECT_FALSE(r.complete);
  }
  // A named file that is missing: the finding stays, without the file, and it is told.
  fs::path lost = mangled("lost_file", [](Json&) {});
  fs::remove(lost / "failures/a.sfz");
  MergeOptions o;
  o.out_dir = root / "out2";
  o.shard_dirs = {root / "good", lost};
  MergeResult r = merge_shards(o);
  EXPECT_TRUE(r.complete);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("is named by its report but missing"), std::string::npos);
  EXPECT_EQ(r.report["findings"][0]["original"], "");
}

TEST(Shards, SummaryLineAndJUnit) {
  Json j;
  j["status"] = "finished";
  j["seconds"] = 2.0;
  j["programs"] = 10;
  j["features"] = 7;
  j["findings"] = {finding("fail:INV-6: x", "failures", 1, 2, 0, "failures/a.sfz"),
                   finding("wrong-rejection:shape: z", "triage", 1, 1, 0, "triage/c.sfz")};
  EXPECT_EQ(report_summary_line(j),
            "shapefuzz FAIL: finished, 10 programs in 2.0s (5/s), 1 failure and 0 crash "
            "signatures, 1 triage, 7 features");
  EXPECT_NE(report_summary_line(j, 0).find("shapefuzz PASS: "), std::string::npos);
  EXPECT_NE(report_summary_line(j, 0).find("(0 new)"), std::string::npos);
  std::vector<JUnitSuite> s = report_junit(j, std::nullopt);
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(s[0].cases.size(), 3u);
  EXPECT_EQ(s[0].cases[0].status, JUnitCase::Status::kPassed);
  EXPECT_EQ(s[0].cases[1].status, JUnitCase::Status::kFailed);
  EXPECT_EQ(s[0].cases[2].status, JUnitCase::Status::kSkipped);
  s = report_junit(j, std::set<std::string>{"fail:INV-6: x"});
  EXPECT_EQ(s[0].cases[1].status, JUnitCase::Status::kSkipped);
  EXPECT_EQ(s[0].failures(), 0);
}

TEST(Shards, DistilledCorpusKeepsEveryFeatureWithFewerEntries) {
  fs::path root = fresh_dir("distill");
  oracles::PipelineOptions pipeline;
  pipeline.oracles = oracles::OracleSet::structural_only();
  std::set<uint64_t> all;
  // Twelve programs, each twice: its seed in corpus a, and in corpus b a recipe that overrides a
  // decision the program never takes (another entry, the same program and features).
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    Recipe plain{seed, {}, 0}, same{seed, {{1000000, 1}}, 0};
    for (auto [r, dir] : {std::pair{plain, root / "a"}, std::pair{same, root / "b"}}) {
      fs::create_directories(dir);
      write_corpus_entry(dir.string(), r, generated_for_recipe(r).program);
      for (uint64_t f : recipe_features(r, pipeline)) all.insert(f);
    }
  }
  // Seed 3 in both corpora: read once.
  Recipe three{3, {}, 0};
  write_corpus_entry((root / "b").string(), three, generated_for_recipe(three).program);
  IsolationLimits limits;
  DistillResult d = distill_corpus({root / "a", root / "b"}, root / "out", pipeline, limits);
  EXPECT_EQ(d.read, 24u);
  EXPECT_EQ(d.crashed, 0u);
  EXPECT_EQ(d.features, all.size());
  EXPECT_LE(d.kept, 12u);
  std::vector<Recipe> kept = read_corpus((root / "out").string());
  ASSERT_EQ(kept.size(), d.kept);
  std::set<uint64_t> reached;
  for (const Recipe& r : kept) {
    for (uint64_t f : recipe_features(r, pipeline)) reached.insert(f);
  }
  EXPECT_EQ(reached, all);
  // Deterministic: again, the same entries.
  DistillResult again = distill_corpus({root / "b", root / "a"}, root / "out2", pipeline, limits);
  std::vector<Recipe> kept2 = read_corpus((root / "out2").string());
  ASSERT_EQ(kept2.size(), kept.size());
  for (size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(kept[i].str(), kept2[i].str());
  EXPECT_EQ(again.kept, d.kept);
}

}  // namespace
}  // namespace sf::fuzz
