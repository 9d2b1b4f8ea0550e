// Well-formed UTF-8 (see utf8.h).
#include "fuzz/utf8.h"

namespace sf::fuzz {

size_t utf8_char_length(std::string_view s, size_t i, uint32_t* code_point) {
  unsigned char lead = static_cast<unsigned char>(s[i]);
  if (lead < 0x80) {
    if (code_point) *code_point = lead;
    return 1;
  }
  // The lead byte gives the length and its payload bits; C0, C1 and F5..FF never lead.
  size_t n = 0;
  uint32_t cp = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2, cp = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3, cp = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4, cp = lead & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    unsigned char c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  // The shortest form only, no UTF-16 surrogate, nothing past the last code point.
  static constexpr uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kLeast[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  if (code_point) *code_point = cp;
  return n;
}

std::string valid_utf8(std::string_view s, char replacement) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_char_length(s, i);
    if (n == 0) {
      out += replacement;
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

std::string utf8_prefix(const std::string& s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // a continuation byte
  return s.substr(0, n);
}

}  // namespace sf::fuzz
