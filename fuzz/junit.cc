// JUnit XML writer (see junit.h). CI parsers reject a whole file for one bad byte, so text is
// reduced to what XML 1.0 in UTF-8 can hold.
#include "fuzz/junit.h"

#include <cstdio>

namespace sf::fuzz {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
size_t utf8_length(const std::string& s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

std::string escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {  // kept when valid UTF-8, else '?'
      size_t n = utf8_length(s, i);
      if (n == 0) {
        out += '?';
      } else {
        out.append(s, i, n);
        i += n - 1;
      }
      continue;
    }
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += (u < 0x20 && c != '\n' && c != '\t') ? '?' : c;
    }
  }
  return out;
}

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
  out += "<testsuites name=\"" + escape(name) + "\" tests=\"" + std::to_string(tests) +
         "\" failures=\"" + std::to_string(failures) + "\" time=\"" + seconds_str(seconds) +
         "\">\n";
  for (const JUnitSuite& s : suites) {
    int skipped = 0;
    for (const JUnitCase& c : s.cases) skipped += c.status == JUnitCase::Status::kSkipped;
    out += "  <testsuite name=\"" + escape(s.name) + "\" tests=\"" +
           std::to_string(s.cases.size()) + "\" failures=\"" + std::to_string(s.failures()) +
           "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
           seconds_str(s.seconds()) + "\">\n";
    for (const JUnitCase& c : s.cases) {
      out += "    <testcase classname=\"" + escape(c.classname) + "\" name=\"" + escape(c.name) +
             "\" time=\"" + seconds_str(c.seconds) + "\"";
      switch (c.status) {
        case JUnitCase::Status::kPassed:
          out += "/>\n";
          break;
        case JUnitCase::Status::kFailed:
          out += ">\n      <failure message=\"" + escape(c.message) + "\">" + escape(c.details) +
                 "</failure>\n    </testcase>\n";
          break;
        case JUnitCase::Status::kSkipped:
          out += ">\n      <skipped message=\"" + escape(c.message) + "\"/>\n    </testcase>\n";
          break;
      }
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace sf::fuzz
