// Randomness sources: byte streams and seeded splitmix64.
#include "fuzz/fuzz_source.h"

namespace sf::fuzz {

int64_t FuzzSource::range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  uint64_t r = next_u64();
  // A byte source gives 8 bits per draw: a span wider than that takes more bytes, else a draw
  // among weights summing past 255 could only ever land in the first 256 units.
  const int bits = bits_per_draw();
  for (int have = bits; have < 64 && (span >> have) != 0; have += bits)
    r = (r << bits) | next_u64();
  if (span == UINT64_MAX) return static_cast<int64_t>(r);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + r % (span + 1));
}

size_t FuzzSource::weighted(const std::vector<uint32_t>& weights) {
  uint64_t total = 0;
  for (uint32_t w : weights) total += w;
  if (total == 0) return 0;
  uint64_t r = static_cast<uint64_t>(range(0, static_cast<int64_t>(total) - 1));
  for (size_t i = 0; i < weights.size(); ++i) {
    if (r < weights[i]) return i;
    r -= weights[i];
  }
  return weights.size() - 1;
}

uint64_t ByteSource::next_u64() {
  // One byte per decision keeps inputs short and lets shrinking bytes shrink choices.
  if (pos_ >= size_) return 0;
  return data_[pos_++];
}

uint64_t SeedSource::next_u64() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace sf::fuzz
