// XML text escaping (see xml_text.h).
#include "fuzz/xml_text.h"

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

}  // namespace

std::string xml_escape(const std::string& s) {
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

}  // namespace sf::fuzz
