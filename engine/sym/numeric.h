// Overflow-checked int64 arithmetic with Python semantics for floor division and modulo.
// Each helper returns false when the result is undefined (overflow or division by zero).
#pragma once

#include <cstdint>

namespace sf::sym {

inline bool checked_add(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
inline bool checked_sub(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_sub_overflow(a, b, out);
}
inline bool checked_mul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool checked_neg(int64_t a, int64_t* out) { return checked_sub(0, a, out); }

// Python a // b: rounds toward negative infinity.
inline bool py_floordiv(int64_t a, int64_t b, int64_t* out) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return false;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  *out = q;
  return true;
}

// Python a % b: the result has the sign of the divisor.
inline bool py_mod(int64_t a, int64_t b, int64_t* out) {
  if (b == 0) return false;
  if (b == -1) {
    *out = 0;
    return true;
  }
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  *out = r;
  return true;
}

// Integer power with overflow detection; exponent must be >= 0.
inline bool checked_pow(int64_t base, int64_t exp, int64_t* out) {
  int64_t result = 1;
  for (int64_t i = 0; i < exp; ++i) {
    if (!checked_mul(result, base, &result)) return false;
    if (result == 0 || result == 1) break;
  }
  if (exp > 0 && base == -1) result = (exp % 2 == 0) ? 1 : -1;
  *out = result;
  return true;
}

inline int64_t gcd_i64(int64_t a, int64_t b) {
  // Works on magnitudes; gcd(0, 0) == 0. INT64_MIN is avoided by callers (constants are bounded).
  uint64_t x = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
  uint64_t y = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
  while (y != 0) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return static_cast<int64_t>(x);
}

}  // namespace sf::sym
