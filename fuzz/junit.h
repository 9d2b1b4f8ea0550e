// JUnit XML, the test-report format CI systems read (Jenkins, GitLab, GitHub annotations):
// suites of test cases, each passed, failed (with a message and details) or skipped.
#pragma once

#include <string>
#include <vector>

namespace sf::fuzz {

struct JUnitCase {
  std::string name;
  std::string classname;
  double seconds = 0;
  enum class Status { kPassed, kFailed, kSkipped } status = Status::kPassed;
  std::string message;  // kFailed / kSkipped: one line
  std::string details;  // kFailed: the body (a program, a verdict)
};

struct JUnitSuite {
  std::string name;
  std::vector<JUnitCase> cases;
  int failures() const;
  double seconds() const;
};

// The whole document: <testsuites> with one <testsuite> per suite; text is escaped, and bytes that
// XML 1.0 in UTF-8 cannot hold (control characters other than tab and newline, invalid UTF-8)
// become '?'.
std::string junit_xml(const std::string& name, const std::vector<JUnitSuite>& suites);

// One line for a CI log: "shapefuzz check PASS: corpus 12 cases, 0 failed; properties 5 cases,
// 0 failed (17 cases, 0 failed, 1 skipped)" for tool "check".
std::string junit_summary_line(const std::string& tool, const std::vector<JUnitSuite>& suites);

}  // namespace sf::fuzz
