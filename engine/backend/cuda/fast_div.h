// Unsigned 32-bit division by a divisor fixed per launch, for the extern kernels: a multiply-high,
// an add and a shift instead of a division (Granlund-Montgomery with the round-up multiplier).
// Exact for dividends below 2^31 and divisors 1..2^31; the host mirror exists for tests.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define SF_HOST_DEVICE __host__ __device__
#else
#define SF_HOST_DEVICE
#endif

namespace sf::backend::cuda {

struct FastDiv {
  unsigned d = 1, m = 1, s = 0;
};

// s = ceil(log2 d), m = floor(2^32 (2^s - d) / d) + 1 (fits 32 bits: 2^s < 2d).
inline FastDiv fast_div(unsigned d) {
  unsigned s = 0;
  while ((uint64_t{1} << s) < d) ++s;
  auto m = static_cast<unsigned>(((uint64_t{1} << 32) * ((uint64_t{1} << s) - d)) / d + 1);
  return FastDiv{d, m, s};
}

// x / f.d for x < 2^31 (the add cannot wrap: the high product is below x).
SF_HOST_DEVICE inline unsigned div_by(const FastDiv& f, unsigned x) {
#ifdef __CUDA_ARCH__
  return (__umulhi(x, f.m) + x) >> f.s;
#else
  return (static_cast<unsigned>((uint64_t{x} * f.m) >> 32) + x) >> f.s;
#endif
}

}  // namespace sf::backend::cuda

#undef SF_HOST_DEVICE
