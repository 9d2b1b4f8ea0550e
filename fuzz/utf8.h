// Well-formed UTF-8 (RFC 3629) for everything the harness writes from untrusted text: a program's
// bytes end up in JUnit XML, report.html and signatures, and one bad byte breaks their parsers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sf::fuzz {

// The length of the well-formed UTF-8 character starting at s[i] (1 to 4), with its code point
// in *code_point, or 0 when the bytes there are not one: a stray continuation byte, a truncated
// sequence, an overlong form (C0 AF), a surrogate (ED A0 80) or a code point past U+10FFFF.
size_t utf8_char_length(std::string_view s, size_t i, uint32_t* code_point = nullptr);

// s with every byte that does not start a well-formed character replaced by `replacement`.
std::string valid_utf8(std::string_view s, char replacement = '?');

// The longest prefix of at most `max_bytes` that does not split a UTF-8 character.
std::string utf8_prefix(const std::string& s, size_t max_bytes);

}  // namespace sf::fuzz
