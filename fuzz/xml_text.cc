// XML text escaping (see xml_text.h).
#include "fuzz/xml_text.h"

#include "fuzz/utf8.h"

namespace sf::fuzz {

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {  // kept when valid UTF-8, else '?'
      uint32_t cp = 0;
      size_t n = utf8_char_length(s, i, &cp);
      if (n == 0 || cp == 0xFFFE || cp == 0xFFFF) {  // (XML 1.0 excludes those two as well)
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

}  // namespace sf::fuzz
