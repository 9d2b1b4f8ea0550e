// Float formatting uses std::to_chars (shortest round trip) and re-spells the digits the way
// Python's repr does, so corpus files read naturally and never depend on the C locale.
#include "engine/program/number_text.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace sf::program {

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // e.g. "-1.2345e+02": shortest digits, one before the point
  std::string out;
  if (sci[0] == '-') {
    out = "-";
    sci.erase(0, 1);
  }
  size_t epos = sci.find('e');
  std::string mantissa = sci.substr(0, epos);
  int exp = std::atoi(sci.c_str() + epos + 1);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  // value = 0.DIGITS * 10^decpt; Python switches to exponent form outside (-4, 16].
  int decpt = exp + 1;
  int n = static_cast<int>(digits.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0." + std::string(-decpt, '0') + digits;
    } else if (decpt >= n) {
      out += digits + std::string(decpt - n, '0') + ".0";
    } else {
      out += digits.substr(0, decpt) + "." + digits.substr(decpt);
    }
    return out;
  }
  out += digits[0];
  if (n > 1) out += "." + digits.substr(1);
  out += exp < 0 ? "e-" : "e+";
  int mag = exp < 0 ? -exp : exp;
  if (mag < 10) out += '0';
  out += std::to_string(mag);
  return out;
}

std::optional<int64_t> int_from_digits(std::string_view digits, bool negative) {
  if (digits.empty()) return std::nullopt;
  const uint64_t limit = negative ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
  uint64_t mag = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (mag > (limit - d) / 10) return std::nullopt;
    mag = mag * 10 + d;
  }
  // Two's complement negation in uint64 keeps INT64_MIN exact.
  return static_cast<int64_t>(negative ? ~mag + 1 : mag);
}

std::optional<double> double_from_text(std::string_view text) {
  double v = 0;
  auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size()) return std::nullopt;
  if (std::isinf(v)) return std::nullopt;
  return v;
}

}  // namespace sf::program
