// engine/sym/interval.h soundness sweep (Halide's constant_interval property): for many small and
// half-infinite ranges, x ∈ A and y ∈ B imply op(x, y) ∈ vr_op(A, B) for every vr_* operation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/sym/interval.h"
#include "engine/sym/numeric.h"
#include "tests/sym/range_literals.h"

namespace sf::sym {
namespace {

using namespace test;  // NOLINT: range literals

// All sub-intervals of [-4, 4], plus half-infinite and unknown ranges.
std::vector<ValueRange> SweepRanges() {
  std::vector<ValueRange> out;
  for (int lo = -4; lo <= 4; ++lo) {
    for (int hi = lo; hi <= 4; ++hi) out.push_back(R(lo, hi));
  }
  for (int k : {-2, 0, 2}) {
    out.push_back(R(kNegOo, k));
    out.push_back(R(k, kOo));
  }
  out.push_back(ValueRange::unknown_int());
  return out;
}

// Concrete members of r: r ∩ [-6, 6] plus far values on infinite sides (the sampling clip).
std::vector<int64_t> Samples(const ValueRange& r) {
  std::vector<int64_t> out;
  for (int64_t v = -6; v <= 6; ++v) {
    if (r.contains(v)) out.push_back(v);
  }
  for (int64_t v : {int64_t{37}, int64_t{1000}, int64_t{1} << 40, kMax}) {
    if (r.contains(v)) out.push_back(v);
    if (r.contains(-v)) out.push_back(-v);
  }
  if (r.contains(kMin)) out.push_back(kMin);
  return out;
}

using IntFn = std::function<bool(int64_t, int64_t, int64_t*)>;  // false = undefined
using RangeFn = std::function<ValueRange(const ValueRange&, const ValueRange&)>;

void SweepBinary(const char* name, const RangeFn& vr, const IntFn& concrete) {
  std::vector<ValueRange> ranges = SweepRanges();
  int failures = 0;
  std::string first;
  for (const ValueRange& a : ranges) {
    for (const ValueRange& b : ranges) {
      ValueRange out = vr(a, b);
      for (int64_t x : Samples(a)) {
        for (int64_t y : Samples(b)) {
          int64_t z;
          if (!concrete(x, y, &z) || out.contains(z)) continue;
          if (failures++ == 0) {
            first = std::string("\nInput:    ") + name + "(" + a.str() + ", " + b.str() +
                    ") at x=" + std::to_string(x) + ", y=" + std::to_string(y) +
                    "\nOutput:   " + out.str() + "\nExpected: a range containing " +
                    std::to_string(z);
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0) << first;
}

TEST(IntervalSoundnessTest, IntegerBinaryOps) {
  auto rel = [](bool (*cmp)(int64_t, int64_t)) {
    return [cmp](int64_t x, int64_t y, int64_t* z) { return (*z = cmp(x, y)), true; };
  };
  SweepBinary("vr_add", vr_add, checked_add);
  SweepBinary("vr_mul", vr_mul, checked_mul);
  SweepBinary("vr_floordiv", vr_floordiv, py_floordiv);
  SweepBinary("vr_mod", vr_mod, py_mod);
  SweepBinary("vr_max", vr_max,
              [](int64_t x, int64_t y, int64_t* z) { return (*z = std::max(x, y)), true; });
  SweepBinary("vr_min", vr_min,
              [](int64_t x, int64_t y, int64_t* z) { return (*z = std::min(x, y)), true; });
  SweepBinary("vr_lt", vr_lt, rel([](int64_t x, int64_t y) { return x < y; }));
  SweepBinary("vr_le", vr_le, rel([](int64_t x, int64_t y) { return x <= y; }));
  SweepBinary("vr_eq", vr_eq, rel([](int64_t x, int64_t y) { return x == y; }));
  SweepBinary("vr_ne", vr_ne, rel([](int64_t x, int64_t y) { return x != y; }));
  // Unary ops and where, through the same driver (y ignored / y selects the branch).
  SweepBinary(
      "vr_neg", [](auto& a, auto&) { return vr_neg(a); },
      [](int64_t x, int64_t, int64_t* z) { return checked_neg(x, z); });
  SweepBinary(
      "vr_pow2", [](auto& a, auto&) { return vr_pow(a, 2); },
      [](int64_t x, int64_t, int64_t* z) { return checked_pow(x, 2, z); });
  SweepBinary(
      "vr_pow3", [](auto& a, auto&) { return vr_pow(a, 3); },
      [](int64_t x, int64_t, int64_t* z) { return checked_pow(x, 3, z); });
  for (const ValueRange& c : {kTrue, kFalse, kEither}) {
    SweepBinary(
        "vr_where", [&](auto& a, auto& b) { return vr_where(c, a, b); },
        [&](int64_t x, int64_t y, int64_t* z) {
          if (c.can_be_true()) *z = x;
          if (c.can_be_false() && (!c.can_be_true() || y % 2 == 0)) *z = y;
          return true;
        });
  }
}

TEST(IntervalSoundnessTest, FloatOps) {
  std::vector<ValueRange> ranges = {
      F(-2.5, 3.75), F(0.25, 0.75), F(-kInf, -1.5), F(1.5, kInf), ValueRange::unknown_float(),
      F(-0.5, 0.5),  F(2, 2),       R(-3, 3),       R(1, 4),      R(1, kOo)};
  auto samples = [](const ValueRange& r) {
    std::vector<double> out;
    for (double v : {-1e6, -3.5, -2.0, -1.25, -0.5, 0.0, 0.5, 1.0, 1.75, 3.0, 1e6, r.flo(), r.fhi(),
                     (r.flo() + r.fhi()) / 2}) {
      if (std::isfinite(v) && r.contains_float(v) && (r.is_float() || v == std::floor(v))) {
        out.push_back(v);
      }
    }
    return out;
  };
  int failures = 0;
  std::string first;
  auto check = [&](const char* op, const ValueRange& a, const ValueRange& b, double x, double y,
                   const ValueRange& out, double z) {
    if (std::isnan(z) || out.contains_float(z)) return;
    if (failures++ == 0) {
      first = std::string("\nInput:    ") + op + "(" + a.str() + ", " + b.str() +
              ") at x=" + std::to_string(x) + ", y=" + std::to_string(y) +
              "\nOutput:   " + out.str() + "\nExpected: a range containing " + std::to_string(z);
    }
  };
  for (const ValueRange& a : ranges) {
    for (double x : samples(a)) {
      double t = std::trunc(x);
      if (std::fabs(t) < 9e18) check("vr_trunc_to_int", a, a, x, x, vr_trunc_to_int(a), t);
      check("vr_to_float", a, a, x, x, vr_to_float(a), x);
    }
    for (const ValueRange& b : ranges) {
      for (double x : samples(a)) {
        for (double y : samples(b)) {
          check("vr_add", a, b, x, y, vr_add(a, b), x + y);
          check("vr_mul", a, b, x, y, vr_mul(a, b), x * y);
          if (y != 0) check("vr_true_div", a, b, x, y, vr_true_div(a, b), x / y);
          check("vr_max", a, b, x, y, vr_max(a, b), std::fmax(x, y));
          check("vr_min", a, b, x, y, vr_min(a, b), std::fmin(x, y));
          check("vr_lt", a, b, x, y, vr_lt(a, b), x < y);
          check("vr_le", a, b, x, y, vr_le(a, b), x <= y);
          check("vr_eq", a, b, x, y, vr_eq(a, b), x == y);
        }
      }
    }
  }
  EXPECT_EQ(failures, 0) << first;
}

TEST(IntervalSoundnessTest, BoolOps) {
  for (const ValueRange& a : {kTrue, kFalse, kEither}) {
    for (const ValueRange& b : {kTrue, kFalse, kEither}) {
      for (int x = 0; x <= 1; ++x) {
        for (int y = 0; y <= 1; ++y) {
          if (!a.contains(x) || !b.contains(y)) continue;
          std::string in = "(" + a.str() + ", " + b.str() + ") at " + std::to_string(x) + ", " +
                           std::to_string(y);
          EXPECT_TRUE(vr_and(a, b).contains(x && y)) << "\nInput:    vr_and" << in;
          EXPECT_TRUE(vr_or(a, b).contains(x || y)) << "\nInput:    vr_or" << in;
          EXPECT_TRUE(vr_not(a).contains(!x)) << "\nInput:    vr_not" << in;
        }
      }
    }
  }
}

}  // namespace
}  // namespace sf::sym
