// SHA-256 (FIPS 180-4): deterministic names for backed symbols and content keys for caches.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sf {

std::array<uint8_t, 32> sha256(std::string_view data);
std::string sha256_hex(std::string_view data);

}  // namespace sf
