// Numbers <-> text for the .sfz format: shortest round-tripping floats in Python repr style and
// overflow-checked integer and float literals.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sf::program {

// The shortest text that reads back as exactly `v`, spelled like Python's repr: "1.0", "0.1",
// "-0.0", "1e-05", "1.5e+16". It always has a '.' or an exponent, so it never reads as an int.
// Non-finite values print as "inf", "-inf", "nan", which the parser rejects (no such literals).
std::string format_double(double v);

// The value of a decimal digit string with an optional minus sign; nullopt when it does not fit
// in int64 (so "-9223372036854775808" fits and "9223372036854775808" does not).
std::optional<int64_t> int_from_digits(std::string_view digits, bool negative);

// The correctly rounded value of a decimal float literal (digits, optional fraction, optional
// exponent); nullopt when it overflows to infinity or underflows to zero from a nonzero value.
std::optional<double> double_from_text(std::string_view text);

}  // namespace sf::program
