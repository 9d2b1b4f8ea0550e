// The JUnit XML writer: counts, escaping, and the three statuses.
#include "fuzz/junit.h"

#include <gtest/gtest.h>

namespace sf::fuzz {
namespace {

TEST(JUnitTest, CountsFailuresAndEscapesText) {
  JUnitSuite corpus{"corpus", {}};
  corpus.cases.push_back({"a.sfz", "corpus.program", 0.5, JUnitCase::Status::kPassed, "", ""});
  corpus.cases.push_back({"b<&>.sfz", "corpus.program", 0.25, JUnitCase::Status::kFailed,
                          "expected 'ok', got \"FAIL\"", "line1\nline2 \x01 end"});
  JUnitSuite campaign{"campaign", {}};
  campaign.cases.push_back(
      {"wrong-rejection:x", "campaign", 0, JUnitCase::Status::kSkipped, "triage", ""});
  std::string xml = junit_xml("shapefuzz check", {corpus, campaign});
  EXPECT_NE(xml.find("<testsuites name=\"shapefuzz check\" tests=\"3\" failures=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testsuite name=\"corpus\" tests=\"2\" failures=\"1\" errors=\"0\" "
                     "skipped=\"0\" time=\"0.750\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"b&lt;&amp;&gt;.sfz\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"expected &apos;ok&apos;, got &quot;FAIL&quot;\">"
                     "line1\nline2 ? end</failure>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("skipped=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"triage\"/>"), std::string::npos) << xml;
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
}

TEST(JUnitTest, KeepsValidUtf8AndReplacesInvalidBytes) {
  JUnitSuite s{"s", {}};
  s.cases.push_back({"σ ∧ \xff\xfe cut \xe2\x88", "c", 0, JUnitCase::Status::kFailed, "m", ""});
  std::string xml = junit_xml("n", {s});
  EXPECT_NE(xml.find("name=\"σ ∧ ?? cut ??\""), std::string::npos) << xml;
}

TEST(JUnitTest, ReplacesUtf8ThatLooksWellFormedButIsNot) {
  // Overlong '/', a surrogate, past U+10FFFF, and U+FFFF (UTF-8, but not an XML character).
  JUnitSuite s{"s", {}};
  s.cases.push_back({"a\xc0\xaf b\xed\xa0\x80 c\xf4\x90\x80\x80 d\xef\xbf\xbf", "c", 0,
                     JUnitCase::Status::kFailed, "m", ""});
  std::string xml = junit_xml("n", {s});
  EXPECT_NE(xml.find("name=\"a?? b??? c???? d???\""), std::string::npos) << xml;
}

}  // namespace
}  // namespace sf::fuzz

namespace sf::fuzz {
namespace {

TEST(JUnitTest, SummaryLineCountsEverySuite) {
  JUnitCase ok{"a", "corpus"}, bad{"b", "campaign"}, skip{"c", "campaign"};
  bad.status = JUnitCase::Status::kFailed;
  skip.status = JUnitCase::Status::kSkipped;
  EXPECT_EQ(junit_summary_line("check", {{"corpus", {ok}}, {"campaign", {bad, skip}}}),
            "shapefuzz check FAIL: corpus 1 cases, 0 failed; campaign 2 cases, 1 failed (3 "
            "cases, 1 failed, 1 skipped)");
  EXPECT_EQ(junit_summary_line("check", {{"corpus", {ok}}}),
            "shapefuzz check PASS: corpus 1 cases, 0 failed (1 cases, 0 failed, 0 skipped)");
}

}  // namespace
}  // namespace sf::fuzz
