// The slot a hash picks in a power-of-two table (the intern table, the factory memo).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sf::sym {

// The top `bits` bits of hash * 2^64/phi (Fibonacci hashing). Node hashes end in a multiply, so
// their low bits see only the low bits of their inputs, and round float constants (1.0, 2.0,
// 0.25, ...) share them; the product's top bits depend on every bit of the hash. 0 < bits < 64.
inline size_t slot_index(uint64_t hash, int bits) {
  return static_cast<size_t>((hash * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

}  // namespace sf::sym
