// report.html: well-formed (every tag closed and nested, attributes quoted, text escaped) and
// naming every bucket and finding, with links to the reproducers; report.json is the data.
#include "fuzz/report_html.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

namespace sf::fuzz {
namespace {

// An XML well-formedness check small enough to trust: tags balance, attributes are quoted, and
// '&' only starts an entity. Returns "" or what is wrong.
std::string xml_problem(const std::string& doc) {
  std::vector<std::string> open;
  size_t i = 0;
  while (i < doc.size()) {
    if (doc[i] == '&') {
      size_t semi = doc.find(';', i);
      if (semi == std::string::npos || semi - i > 10 ||
          !std::regex_match(doc.substr(i + 1, semi - i - 1), std::regex("#?[a-zA-Z0-9]+"))) {
        return "bare & at " + std::to_string(i);
      }
      i = semi + 1;
      continue;
    }
    if (doc[i] != '<') {
      ++i;
      continue;
    }
    size_t end = doc.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = doc.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.rfind("!DOCTYPE", 0) == 0) continue;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '/') {
      std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) {
        return "</" + name + "> closes <" + (open.empty() ? "" : open.back()) + ">";
      }
      open.pop_back();
      continue;
    }
    bool self_closing = tag.back() == '/';
    std::string name = tag.substr(0, tag.find_first_of(" /"));
    // Attributes: name="value" pairs only.
    std::string attrs = tag.substr(name.size(), tag.size() - name.size() - (self_closing ? 1 : 0));
    std::string rest = std::regex_replace(attrs, std::regex("\\s+[a-zA-Z:-]+=\"[^\"<]*\""), "");
    if (rest.find_first_not_of(" \n") != std::string::npos) {
      return "bad attributes in <" + name + ">: " + rest;
    }
    if (!self_closing) open.push_back(name);
  }
  return open.empty() ? "" : "<" + open.back() + "> never closed";
}

nlohmann::ordered_json sample_report() {
  nlohmann::ordered_json r;
  r["schema_version"] = 2;
  r["status"] = "finished";
  r["seconds"] = 4.0;
  r["programs"] = 1000;
  r["programs_per_second"] = 250.0;
  r["workers_lost"] = 0;
  r["buckets"] = {{"pass", 900},
                  {"rejected:data_dependent_guard", 95},
                  {"fail:differential", 4},
                  {"wrong-rejection:index", 1}};
  r["findings"] = nlohmann::ordered_json::array();
  r["findings"].push_back({{"signature", "fail:differential: eager <a> & b \"q\""},
                           {"bucket", "fail:differential"},
                           {"class", "failures"},
                           {"count", 4},
                           {"first_seed", 17},
                           {"found_at_seconds", 0.5},
                           {"original", "failures/differential-1234abcd.sfz"},
                           {"minimized", "failures/differential-1234abcd.min.sfz"},
                           {"test", "failures/differential-1234abcd_test.cc"},
                           {"statements", 12},
                           {"minimized_statements", 3},
                           {"detail", "x < y && z\x01"}});
  r["findings"].push_back({{"signature", "wrong-rejection:index: select"},
                           {"bucket", "wrong-rejection:index"},
                           {"class", "triage"},
                           {"count", 1},
                           {"first_seed", 99},
                           {"original", "triage/index-00000000.sfz"},
                           {"minimized", ""},
                           {"test", ""},
                           {"statements", 8},
                           {"detail", "select: index 0"}});
  r["timeline"] = nlohmann::ordered_json::array();
  for (int t = 1; t <= 4; ++t) {
    r["timeline"].push_back({{"seconds", t},
                             {"programs", 250 * t},
                             {"buckets", {{"pass", 225 * t}, {"fail:differential", t}}}});
  }
  r["generator"] = {{"programs", 300},
                    {"reached_execution", 290},
                    {"data_dependent", 200},
                    {"ops", {{"nonzero", 60}, {"item", 80}}},
                    {"features", {{"check", 90}}},
                    {"keypath_kinds", {{"size(i)", 120}}}};
  return r;
}

TEST(ReportHtmlTest, WellFormedAndNamesEveryBucketAndFinding) {
  std::string html = report_html(sample_report());
  EXPECT_EQ(xml_problem(html), "") << html;
  for (const char* bucket :
       {"pass", "rejected:data_dependent_guard", "fail:differential", "wrong-rejection:index"}) {
    EXPECT_NE(html.find(std::string(">") + bucket + "<"), std::string::npos) << bucket;
  }
  EXPECT_NE(html.find("href=\"failures/differential-1234abcd.min.sfz\""), std::string::npos);
  EXPECT_NE(html.find("href=\"failures/differential-1234abcd_test.cc\""), std::string::npos);
  EXPECT_NE(html.find("href=\"triage/index-00000000.sfz\""), std::string::npos);
  EXPECT_NE(html.find("eager &lt;a&gt; &amp; b &quot;q&quot;"), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos);  // the charts
  EXPECT_NE(html.find(">nonzero<"), std::string::npos);  // the op histogram
  // Self-contained: nothing is loaded (xmlns URIs are names, not fetches).
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(ReportHtmlTest, ALongResumedCampaignShowsItsMilestonesAndNights) {
  nlohmann::ordered_json r = sample_report();
  r["timeline"] = nlohmann::ordered_json::array();
  for (int t : {30, 60, 300, 600, 900}) {  // features 1000 at a minute, 1500 at ten
    r["timeline"].push_back(
        {{"seconds", t}, {"programs", 100 * t}, {"features", t < 600 ? 1000 : 1500}});
  }
  r["nights"] = nlohmann::ordered_json::array();
  r["nights"].push_back({{"first_seed", 1},
                         {"seconds", 900.0},
                         {"programs", 90000},
                         {"features", 1500},
                         {"new_features", 1500},
                         {"findings", 1},
                         {"corpus", nullptr}});
  r["nights"].push_back({{"first_seed", 90001},
                         {"seconds", 900.0},
                         {"programs", 80000},
                         {"features", 1600},
                         {"new_features", 100},
                         {"findings", 0},
                         {"corpus", {{"read", 400}, {"kept", 120}}}});
  std::string html = report_html(r);
  EXPECT_EQ(xml_problem(html), "") << html;
  EXPECT_NE(html.find("1 min: 1000; 10 min: 1500 (1.50&#215;)"), std::string::npos) << html;
  EXPECT_EQ(html.find("60 min:"), std::string::npos);  // not reached
  EXPECT_NE(html.find("<h2>Nights</h2>"), std::string::npos);
  EXPECT_NE(html.find(">90001<"), std::string::npos);
  EXPECT_NE(html.find("400 &#8594; 120"), std::string::npos);
  r["nights"].erase(1);  // one night: no table
  EXPECT_EQ(report_html(r).find("<h2>Nights</h2>"), std::string::npos);
}

TEST(ReportHtmlTest, ARunningReportWithNothingYetIsWellFormed) {
  nlohmann::ordered_json r;
  r["status"] = "running";
  std::string html = report_html(r);
  EXPECT_EQ(xml_problem(html), "") << html;
  EXPECT_NE(html.find("still running"), std::string::npos);
}

TEST(ReportHtmlTest, TheCheckerFiresOnBrokenMarkup) {
  EXPECT_NE(xml_problem("<a><b></a></b>"), "");
  EXPECT_NE(xml_problem("<a href=x></a>"), "");
  EXPECT_NE(xml_problem("<p>a & b</p>"), "");
  EXPECT_NE(xml_problem("<p>"), "");
  EXPECT_EQ(xml_problem("<p class=\"x\">a &amp; b<br/></p>"), "");
}

}  // namespace
}  // namespace sf::fuzz
