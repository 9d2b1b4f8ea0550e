// fuzz/zoo.h: fault selection, one real hunt (a zoo fault found, shrunk, and passing with the
// fault off), the median time to detection and zoo.json.
#include "fuzz/zoo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "fuzz/files.h"

namespace sf::fuzz {
namespace {

namespace fs = std::filesystem;

const FaultInfo& fault_named(const std::string& name) {
  std::string error;
  std::vector<const FaultInfo*> f = select_faults(name, &error);
  EXPECT_EQ(f.size(), 1u) << error;
  return *f.at(0);
}

TEST(Zoo, SelectFaultsByCommaList) {
  std::string error;
  EXPECT_EQ(select_faults("", &error).size(), all_faults().size());
  std::vector<const FaultInfo*> two =
      select_faults("memo_ignores_version,range_asserts_skipped", &error);
  ASSERT_EQ(two.size(), 2u);
  // In faults.def order, not the list's.
  EXPECT_EQ(std::string(two[0]->name), "range_asserts_skipped");
  EXPECT_EQ(std::string(two[1]->name), "memo_ignores_version");
  // A name must match whole: a prefix selects nothing.
  EXPECT_TRUE(select_faults("memo_ignores", &error).empty());
  EXPECT_NE(error.find("no fault matches 'memo_ignores'"), std::string::npos) << error;
}

TEST(Zoo, MedianCountsAnUndetectedFaultAsNever) {
  auto row = [](bool detected, double s) {
    ZooRow r;
    r.detected = detected;
    r.seconds = s;
    return r;
  };
  EXPECT_DOUBLE_EQ(median_seconds_to_detection({row(true, 3), row(true, 1), row(false, 0)}), 3);
  EXPECT_DOUBLE_EQ(
      median_seconds_to_detection({row(true, 5), row(true, 1), row(true, 2), row(true, 4)}), 3);
  EXPECT_TRUE(std::isinf(median_seconds_to_detection({row(true, 1), row(false, 0)})));
  EXPECT_TRUE(std::isinf(median_seconds_to_detection({})));
}

TEST(Zoo, HuntFindsTheFaultShrinksItAndTheReproducerPassesWithTheFaultOff) {
  fs::path dir = fs::path(testing::TempDir()) / "zoo_hunt";
  fs::remove_all(dir);
  fs::create_directories(dir);
  oracles::PipelineOptions base;
  base.oracles = oracles::OracleSet::all();
  const FaultInfo& f = fault_named("range_asserts_skipped");
  ZooRow row = hunt_fault(f, 60, 1, base, dir);
  ASSERT_TRUE(row.detected) << "after " << row.programs << " programs";
  EXPECT_EQ(row.bucket, "fail:tv");
  EXPECT_EQ(row.fault_off_bucket, "pass");
  EXPECT_GT(row.programs, 0u);
  EXPECT_LE(row.lines_after, row.lines_before);
  EXPECT_FALSE(fault_on(f.fault)) << "the process's fault switches are off after a hunt";
  ASSERT_EQ(row.file, (dir / "range_asserts_skipped.sfz").string());
  std::optional<std::string> text = read_text_file(row.file);
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("# faults: range_asserts_skipped"), std::string::npos) << *text;
  EXPECT_NE(text->find("# reproduces: fail:tv"), std::string::npos) << *text;

  nlohmann::json json = nlohmann::json::parse(zoo_json({row}, 60));
  EXPECT_EQ(json["seconds_per_fault"], 60);
  ASSERT_EQ(json["faults"].size(), 1u);
  EXPECT_EQ(json["faults"][0]["fault"], "range_asserts_skipped");
  EXPECT_EQ(json["faults"][0]["pr"], f.pr);
  EXPECT_EQ(json["faults"][0]["detected"], true);
  EXPECT_EQ(json["faults"][0]["fault_off_bucket"], "pass");
  EXPECT_EQ(json["faults"][0]["reproducer"], row.file);
}

}  // namespace
}  // namespace sf::fuzz
