// The single randomness interface every generator reads: libFuzzer bytes, a seed, or bytes
// drawn by RapidCheck. Generators never touch global random state (STYLE §13).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sf::fuzz {

// FNV-1a, 64 bits: a deterministic hash of bytes (seeds from inputs, crash-file names, feature
// ids). Pure and allocation-free, so a signal handler may call it.
inline uint64_t fnv1a(const uint8_t* data, size_t size) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ULL;
  return h;
}
inline uint64_t fnv1a(const std::string& s) {
  return fnv1a(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

class FuzzSource {
 public:
  virtual ~FuzzSource() = default;
  // Next 64 random bits; byte sources return zeros once exhausted (so decoding always ends).
  virtual uint64_t next_u64() = 0;
  virtual bool exhausted() const { return false; }
  // How many random bits one next_u64() carries (range() draws more for wider spans).
  virtual int bits_per_draw() const { return 64; }

  // Uniform-ish integer in [lo, hi] (inclusive).
  int64_t range(int64_t lo, int64_t hi);
  // Index in [0, n).
  size_t pick(size_t n) { return n <= 1 ? 0 : static_cast<size_t>(range(0, n - 1)); }
  // True with probability num/den.
  bool chance(uint32_t num, uint32_t den) { return range(0, den - 1) < num; }
  // Weighted choice: returns an index into weights (all >= 0, not all zero).
  size_t weighted(const std::vector<uint32_t>& weights);
};

// Reads bytes like libFuzzer's FuzzedDataProvider (front to back), zeros when exhausted.
class ByteSource : public FuzzSource {
 public:
  ByteSource(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  explicit ByteSource(const std::vector<uint8_t>& bytes) : ByteSource(bytes.data(), bytes.size()) {}
  uint64_t next_u64() override;
  bool exhausted() const override { return pos_ >= size_; }
  int bits_per_draw() const override { return 8; }
  size_t consumed() const { return pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// A deterministic PRNG stream (splitmix64) from a seed: same seed, same decisions everywhere.
class SeedSource : public FuzzSource {
 public:
  explicit SeedSource(uint64_t seed) : state_(seed) {}
  uint64_t next_u64() override;

 private:
  uint64_t state_;
};

}  // namespace sf::fuzz
