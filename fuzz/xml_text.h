// Text inside XML or HTML markup (JUnit XML, report.html): escaped, and reduced to what XML 1.0
// in UTF-8 can hold, since CI parsers and browsers reject or garble a document for one bad byte.
#pragma once

#include <string>

namespace sf::fuzz {

// &, <, >, " and ' as entities; well-formed UTF-8 kept; each byte of malformed UTF-8, U+FFFE,
// U+FFFF and control characters other than tab and newline as '?'.
std::string xml_escape(const std::string& s);

}  // namespace sf::fuzz
