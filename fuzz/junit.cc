// JUnit XML writer (see junit.h).
#include "fuzz/junit.h"

#include <cstdio>

#include "fuzz/xml_text.h"

namespace sf::fuzz {

namespace {

std::string seconds_str(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

}  // namespace

int JUnitSuite::failures() const {
  int n = 0;
  for (const JUnitCase& c : cases) n += c.status == JUnitCase::Status::kFailed;
  return n;
}

double JUnitSuite::seconds() const {
  double t = 0;
  for (const JUnitCase& c : cases) t += c.seconds;
  return t;
}

std::string junit_xml(const std::string& name, const std::vector<JUnitSuite>& suites) {
  int tests = 0, failures = 0;
  double seconds = 0;
  for (const JUnitSuite& s : suites) {
    tests += static_cast<int>(s.cases.size());
    failures += s.failures();
    seconds += s.seconds();
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"" + xml_escape(name) + "\" tests=\"" + std::to_string(tests) +
         "\" failures=\"" + std::to_string(failures) + "\" time=\"" + seconds_str(seconds) +
         "\">\n";
  for (const JUnitSuite& s : suites) {
    int skipped = 0;
    for (const JUnitCase& c : s.cases) skipped += c.status == JUnitCase::Status::kSkipped;
    out += "  <testsuite name=\"" + xml_escape(s.name) + "\" tests=\"" +
           std::to_string(s.cases.size()) + "\" failures=\"" + std::to_string(s.failures()) +
           "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
           seconds_str(s.seconds()) + "\">\n";
    for (const JUnitCase& c : s.cases) {
      out += "    <testcase classname=\"" + xml_escape(c.classname) + "\" name=\"" +
             xml_escape(c.name) + "\" time=\"" + seconds_str(c.seconds) + "\"";
      switch (c.status) {
        case JUnitCase::Status::kPassed:
          out += "/>\n";
          break;
        case JUnitCase::Status::kFailed:
          out += ">\n      <failure message=\"" + xml_escape(c.message) + "\">" +
                 xml_escape(c.details) + "</failure>\n    </testcase>\n";
          break;
        case JUnitCase::Status::kSkipped:
          out += ">\n      <skipped message=\"" + xml_escape(c.message) + "\"/>\n    </testcase>\n";
          break;
      }
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

std::string junit_summary_line(const std::string& tool, const std::vector<JUnitSuite>& suites) {
  size_t cases = 0, skipped = 0;
  int failures = 0;
  std::string parts;
  for (const JUnitSuite& s : suites) {
    failures += s.failures();
    cases += s.cases.size();
    for (const JUnitCase& c : s.cases) skipped += c.status == JUnitCase::Status::kSkipped ? 1 : 0;
    parts += (parts.empty() ? "" : "; ") + s.name + " " + std::to_string(s.cases.size()) +
             " cases, " + std::to_string(s.failures()) + " failed";
  }
  return "shapefuzz " + tool + (failures ? " FAIL: " : " PASS: ") + parts + " (" +
         std::to_string(cases) + " cases, " + std::to_string(failures) + " failed, " +
         std::to_string(skipped) + " skipped)";
}

}  // namespace sf::fuzz
