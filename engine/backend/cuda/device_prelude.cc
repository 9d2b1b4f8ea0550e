// The device half of the element semantics: CUDA C mirrors of engine/program/elementwise.cc
// (wrapping i64 arithmetic, Python floor division and modulo, NaN-propagating max/min, x86
// float -> i64) and the error record kernels report runtime errors through.
#include "engine/backend/cuda/codegen.h"

namespace sf::backend::cuda {

const char* device_prelude() {
  return R"(typedef long long sf_i64;
typedef unsigned long long sf_u64;

// The first runtime error of a plan run: the earliest launch (seq) that failed and, within it,
// the smallest key (error-capable node ordinal << 44 | linear iteration index): the error the
// column-wise CPU interpreter would raise first. Writers hold `lock` and publish `code` last,
// after a fence, so a reader that sees code != 0 (then fences) sees that writer's seq and key.
struct SfError {
  unsigned int lock;
  int code;
  int aux;
  int seq;
  sf_u64 key;
  sf_i64 value;
};

__device__ __noinline__ void sf_fail(SfError* e, int seq, int code, int aux, sf_u64 key,
                                     sf_i64 value) {
  volatile SfError* v = e;
  // Lock-free early out: seq is fixed once code is set and key only decreases, so a recorded
  // error of another launch or with a key <= ours is a real one that precedes ours.
  if (v->code != 0) {
    __threadfence();
    if (v->seq != seq || v->key <= key) return;
  }
  while (atomicCAS(&e->lock, 0u, 1u) != 0u) {
  }
  __threadfence();
  if (v->code == 0 || (v->seq == seq && key < v->key)) {
    v->aux = aux;
    v->seq = seq;
    v->key = key;
    v->value = value;
    __threadfence();
    v->code = code;
  }
  __threadfence();
  atomicExch(&e->lock, 0u);
}

// A thread's first error (smallest key) until it reports it with sf_fail.
struct SfLocalError {
  int code;
  int aux;
  sf_u64 key;
  sf_i64 value;
};

__device__ __forceinline__ void sf_note(SfLocalError& e, int code, int aux, sf_u64 key,
                                        sf_i64 value) {
  if (e.code == 0 || key < e.key) {
    e.code = code;
    e.aux = aux;
    e.key = key;
    e.value = value;
  }
}

__device__ __forceinline__ sf_u64 sf_key(int ordinal, sf_i64 linear) {
  return ((sf_u64)ordinal << 44) | ((sf_u64)linear & ((1ull << 44) - 1));
}

__device__ __forceinline__ sf_i64 sf_add(sf_i64 x, sf_i64 y) { return (sf_i64)((sf_u64)x + (sf_u64)y); }
__device__ __forceinline__ sf_i64 sf_sub(sf_i64 x, sf_i64 y) { return (sf_i64)((sf_u64)x - (sf_u64)y); }
__device__ __forceinline__ sf_i64 sf_mul(sf_i64 x, sf_i64 y) { return (sf_i64)((sf_u64)x * (sf_u64)y); }
// y != 0 (the caller reports a zero divisor); INT64_MIN // -1 wraps to INT64_MIN.
__device__ __forceinline__ sf_i64 sf_floordiv(sf_i64 x, sf_i64 y) {
  if (y == -1) return (sf_i64)(0ull - (sf_u64)x);
  sf_i64 q = x / y;
  return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}
__device__ __forceinline__ sf_i64 sf_remainder(sf_i64 x, sf_i64 y) {
  if (y == -1) return 0;
  sf_i64 r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}
__device__ __forceinline__ sf_i64 sf_imax(sf_i64 x, sf_i64 y) { return x < y ? y : x; }
__device__ __forceinline__ sf_i64 sf_imin(sf_i64 x, sf_i64 y) { return y < x ? y : x; }
__device__ __forceinline__ sf_i64 sf_ineg(sf_i64 x) { return (sf_i64)(0ull - (sf_u64)x); }
__device__ __forceinline__ sf_i64 sf_iabs(sf_i64 x) { return x < 0 ? (sf_i64)(0ull - (sf_u64)x) : x; }

__device__ __forceinline__ bool sf_isnan(float x) { return x != x; }
__device__ __forceinline__ float sf_fmax(float x, float y) {
  if (sf_isnan(x) || sf_isnan(y)) return sf_isnan(x) ? x : y;
  return x < y ? y : x;
}
__device__ __forceinline__ float sf_fmin(float x, float y) {
  if (sf_isnan(x) || sf_isnan(y)) return sf_isnan(x) ? x : y;
  return y < x ? y : x;
}
// Every step rounds to float, as on the host (no fused multiply-add: -fmad=false as well).
// floordiv and remainder of floats as PyTorch (and the host): from the exact fmod.
__device__ __forceinline__ float sf_ffloordiv(float x, float y) {
  if (y == 0.0f) return __fdiv_rn(x, y);
  float mod = fmodf(x, y);
  float div = __fdiv_rn(__fsub_rn(x, mod), y);
  if (mod != 0.0f && (y < 0.0f) != (mod < 0.0f)) div = __fsub_rn(div, 1.0f);
  if (div == 0.0f) return copysignf(0.0f, __fdiv_rn(x, y));
  float floordiv = floorf(div);
  if (__fsub_rn(div, floordiv) > 0.5f) floordiv = __fadd_rn(floordiv, 1.0f);
  return floordiv;
}
__device__ __forceinline__ float sf_fremainder(float x, float y) {
  float mod = fmodf(x, y);
  if (mod != 0.0f && (y < 0.0f) != (mod < 0.0f)) mod = __fadd_rn(mod, y);
  return mod;
}
// float -> i64 as x86's cvttss2si: NaN, +-inf and out-of-range values give INT64_MIN.
__device__ __forceinline__ sf_i64 sf_f2i(float f) {
  double v = (double)f;
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return (sf_i64)(1ull << 63);
  return (sf_i64)v;
}
)";
}

}  // namespace sf::backend::cuda
