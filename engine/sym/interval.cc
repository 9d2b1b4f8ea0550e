// Interval arithmetic with a distinct integer infinity; every bound is sound (see interval.h).
#include "engine/sym/interval.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/sym/numeric.h"

namespace sf::sym {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

ExtInt saturate(bool overflow_positive) {
  return overflow_positive ? ExtInt::pos_inf() : ExtInt::neg_inf();
}
}  // namespace

double ExtInt::as_double() const {
  if (inf_ > 0) return kInf;
  if (inf_ < 0) return -kInf;
  return static_cast<double>(v_);
}

std::string ExtInt::str() const {
  if (inf_ > 0) return "int_oo";
  if (inf_ < 0) return "-int_oo";
  return std::to_string(v_);
}

ExtInt operator+(ExtInt a, ExtInt b) {
  SF_CHECK(!(a.inf_ != 0 && b.inf_ != 0 && a.inf_ != b.inf_)) << "int_oo + -int_oo";
  if (a.inf_ != 0) return a;
  if (b.inf_ != 0) return b;
  int64_t r;
  if (!checked_add(a.v_, b.v_, &r)) return saturate(a.v_ > 0);
  return ExtInt(r);
}

ExtInt ExtInt::operator-() const {
  if (inf_ != 0) return ExtInt(-inf_, 0);
  if (v_ == INT64_MIN) return pos_inf();
  return ExtInt(-v_);
}

ExtInt operator-(ExtInt a, ExtInt b) {
  if (a.inf_ == 0 && b.inf_ == 0) {
    int64_t r;
    if (!checked_sub(a.v_, b.v_, &r)) return saturate(a.v_ > b.v_);
    return ExtInt(r);
  }
  return a + (-b);
}

ExtInt operator*(ExtInt a, ExtInt b) {
  if (a.sign() == 0 || b.sign() == 0) return ExtInt(0);
  if (a.inf_ != 0 || b.inf_ != 0) return saturate(a.sign() * b.sign() > 0);
  int64_t r;
  if (!checked_mul(a.v_, b.v_, &r)) return saturate((a.v_ > 0) == (b.v_ > 0));
  return ExtInt(r);
}

ExtInt ExtInt::floordiv(ExtInt a, ExtInt b) {
  SF_CHECK(b.sign() != 0) << "floordiv bound by zero";
  if (a.inf_ != 0) return saturate(a.sign() * b.sign() > 0);
  if (b.inf_ != 0) {
    // a // b for |b| -> oo: tends to 0 from the side of a/b's sign; floor gives 0 or -1.
    if (a.v_ == 0) return ExtInt(0);
    return ExtInt((a.v_ > 0) == (b.inf_ > 0) ? 0 : -1);
  }
  int64_t q;
  if (!py_floordiv(a.v_, b.v_, &q)) return pos_inf();  // INT64_MIN // -1
  return ExtInt(q);
}

ValueRange ValueRange::unknown_float() { return floats(-kInf, kInf); }

ValueRange ValueRange::ints(ExtInt lo, ExtInt hi) {
  SF_CHECK(lo <= hi && !lo.is_pos_inf() && !hi.is_neg_inf())
      << "malformed range [" << lo.str() << ", " << hi.str() << "]";
  ValueRange r;
  r.kind_ = Kind::kInt;
  r.lo_ = lo;
  r.hi_ = hi;
  return r;
}

ValueRange ValueRange::floats(double lo, double hi) {
  SF_CHECK(lo <= hi) << "malformed float range " << lo << " " << hi;
  ValueRange r;
  r.kind_ = Kind::kFloat;
  r.flo_ = lo;
  r.fhi_ = hi;
  return r;
}

ValueRange ValueRange::bools(bool can_be_false, bool can_be_true) {
  SF_CHECK(can_be_false || can_be_true) << "empty bool range";
  ValueRange r;
  r.kind_ = Kind::kBool;
  r.lo_ = ExtInt(can_be_false ? 0 : 1);
  r.hi_ = ExtInt(can_be_true ? 1 : 0);
  return r;
}

double ValueRange::flo() const { return kind_ == Kind::kFloat ? flo_ : lo_.as_double(); }
double ValueRange::fhi() const { return kind_ == Kind::kFloat ? fhi_ : hi_.as_double(); }

bool ValueRange::is_singleton() const {
  return kind_ == Kind::kFloat ? flo_ == fhi_ : (lo_ == hi_ && lo_.is_finite());
}

bool ValueRange::is_unknown() const {
  switch (kind_) {
    case Kind::kInt:
      return lo_.is_neg_inf() && hi_.is_pos_inf();
    case Kind::kFloat:
      return flo_ == -kInf && fhi_ == kInf;
    case Kind::kBool:
      return can_be_false() && can_be_true();
  }
  return false;
}

bool ValueRange::contains(int64_t v) const {
  if (kind_ == Kind::kFloat) return contains_float(static_cast<double>(v));
  return lo_ <= ExtInt(v) && ExtInt(v) <= hi_;
}

bool ValueRange::contains_float(double v) const {
  if (std::isnan(v)) return kind_ == Kind::kFloat && is_unknown();
  return flo() <= v && v <= fhi();
}

bool ValueRange::issubset(const ValueRange& o) const {
  if (kind_ == Kind::kFloat || o.kind_ == Kind::kFloat) return o.flo() <= flo() && fhi() <= o.fhi();
  return o.lo_ <= lo_ && hi_ <= o.hi_;
}

ValueRange ValueRange::intersect(const ValueRange& o) const {
  auto empty = [&]() -> ValueRange {
    throw_user_error(UserErrorKind::kValueRange,
                     "contradictory value ranges: " + str() + " & " + o.str() + " is empty");
  };
  if (kind_ == Kind::kFloat || o.kind_ == Kind::kFloat) {
    double lo = std::max(flo(), o.flo()), hi = std::min(fhi(), o.fhi());
    if (lo > hi) return empty();
    if (kind_ == Kind::kFloat && o.kind_ == Kind::kFloat) return floats(lo, hi);
    // int ∩ float: keep the integer kind, rounding inward
    ExtInt ilo = std::isinf(lo) ? ExtInt::neg_inf() : ExtInt(static_cast<int64_t>(std::ceil(lo)));
    ExtInt ihi = std::isinf(hi) ? ExtInt::pos_inf() : ExtInt(static_cast<int64_t>(std::floor(hi)));
    if (ilo > ihi) return empty();
    return ints(ilo, ihi);
  }
  ExtInt lo = ext_max(lo_, o.lo_), hi = ext_min(hi_, o.hi_);
  if (lo > hi) return empty();
  ValueRange r = ints(lo, hi);
  r.kind_ = (kind_ == Kind::kBool && o.kind_ == Kind::kBool) ? Kind::kBool : Kind::kInt;
  if (kind_ != o.kind_) r.kind_ = kind_;
  return r;
}

ValueRange ValueRange::hull(const ValueRange& o) const {
  if (kind_ == Kind::kFloat || o.kind_ == Kind::kFloat) {
    return floats(std::min(flo(), o.flo()), std::max(fhi(), o.fhi()));
  }
  ValueRange r = ints(ext_min(lo_, o.lo_), ext_max(hi_, o.hi_));
  r.kind_ = kind_;
  return r;
}

ValueRange ValueRange::as_float() const {
  if (kind_ == Kind::kFloat) return *this;
  return floats(flo(), fhi());
}

bool ValueRange::operator==(const ValueRange& o) const {
  if (kind_ != o.kind_) return false;
  if (kind_ == Kind::kFloat) return flo_ == o.flo_ && fhi_ == o.fhi_;
  return lo_ == o.lo_ && hi_ == o.hi_;
}

std::string ValueRange::str() const {
  auto fs = [](double v) {
    if (v == kInf) return std::string("oo");
    if (v == -kInf) return std::string("-oo");
    std::string s = std::to_string(v);
    return s;
  };
  switch (kind_) {
    case Kind::kInt:
      return "[" + lo_.str() + ", " + hi_.str() + "]";
    case Kind::kFloat:
      return "[" + fs(flo_) + ", " + fs(fhi_) + "]";
    case Kind::kBool:
      if (is_singleton()) return can_be_true() ? "{True}" : "{False}";
      return "{False, True}";
  }
  return "?";
}

// ---- arithmetic ----

namespace {

bool any_float(const ValueRange& a, const ValueRange& b) { return a.is_float() || b.is_float(); }

ValueRange float_result(double lo, double hi) {
  if (std::isnan(lo) || std::isnan(hi) || hi < lo) return ValueRange::unknown_float();
  return ValueRange::floats(lo, hi);
}

// An interval from saturated bounds. When every value overflows the same way (lo == +oo or
// hi == -oo) no value is defined, so any range is sound; keep it well-formed at the int64 edge.
ValueRange int_result(ExtInt lo, ExtInt hi) {
  if (lo.is_pos_inf()) lo = ExtInt(INT64_MAX);
  if (hi.is_neg_inf()) hi = ExtInt(INT64_MIN);
  if (hi < lo) std::swap(lo, hi);
  return ValueRange::ints(lo, hi);
}

ValueRange int_corners(ExtInt a, ExtInt b, ExtInt c, ExtInt d) {
  return int_result(ext_min(ext_min(a, b), ext_min(c, d)), ext_max(ext_max(a, b), ext_max(c, d)));
}

double fmul(double x, double y) {
  if (x == 0 || y == 0) return 0.0;
  return x * y;
}

}  // namespace

ValueRange vr_add(const ValueRange& a, const ValueRange& b) {
  if (any_float(a, b)) return float_result(a.flo() + b.flo(), a.fhi() + b.fhi());
  return int_result(a.lo() + b.lo(), a.hi() + b.hi());
}

ValueRange vr_neg(const ValueRange& a) {
  if (a.is_float()) return ValueRange::floats(-a.fhi(), -a.flo());
  return int_result(-a.hi(), -a.lo());
}

ValueRange vr_mul(const ValueRange& a, const ValueRange& b) {
  if (any_float(a, b)) {
    double c[4] = {fmul(a.flo(), b.flo()), fmul(a.flo(), b.fhi()), fmul(a.fhi(), b.flo()),
                   fmul(a.fhi(), b.fhi())};
    return float_result(*std::min_element(c, c + 4), *std::max_element(c, c + 4));
  }
  return int_corners(a.lo() * b.lo(), a.lo() * b.hi(), a.hi() * b.lo(), a.hi() * b.hi());
}

ValueRange vr_pow(const ValueRange& a, int64_t exp) {
  SF_CHECK(exp >= 0);
  if (exp == 0) return a.is_float() ? ValueRange::floats(1, 1) : ValueRange::exact(1);
  ValueRange r = a;
  for (int64_t i = 1; i < exp; ++i) r = vr_mul(r, a);
  if (exp % 2 == 0) {  // even powers are non-negative
    if (r.is_float()) return ValueRange::floats(std::max(0.0, r.flo()), r.fhi());
    return int_result(ext_max(ExtInt(0), r.lo()), r.hi());
  }
  return r;
}

ValueRange vr_floordiv(const ValueRange& a, const ValueRange& b) {
  if (any_float(a, b)) return ValueRange::unknown_float();
  if (b.contains(0)) {
    // Split the divisor at zero: values where b == 0 are undefined and contribute nothing.
    bool has_neg = b.lo()<ExtInt(0), has_pos = b.hi()> ExtInt(0);
    if (!has_neg && !has_pos) return ValueRange::unknown_int();  // b == 0 exactly: undefined
    ValueRange out = ValueRange::unknown_int();
    bool first = true;
    if (has_neg) {
      out = vr_floordiv(a, ValueRange::ints(b.lo(), ExtInt(-1)));
      first = false;
    }
    if (has_pos) {
      ValueRange p = vr_floordiv(a, ValueRange::ints(ExtInt(1), b.hi()));
      out = first ? p : out.hull(p);
    }
    return out;
  }
  return int_corners(ExtInt::floordiv(a.lo(), b.lo()), ExtInt::floordiv(a.lo(), b.hi()),
                     ExtInt::floordiv(a.hi(), b.lo()), ExtInt::floordiv(a.hi(), b.hi()));
}

ValueRange vr_mod(const ValueRange& a, const ValueRange& b) {
  if (any_float(a, b)) return ValueRange::unknown_float();
  if (b.is_singleton() && a.lo().is_finite() && a.hi().is_finite()) {
    int64_t c = b.lo().value(), qlo, qhi, rlo, rhi;
    if (c != 0 && py_floordiv(a.lo().value(), c, &qlo) && py_floordiv(a.hi().value(), c, &qhi) &&
        qlo == qhi && py_mod(a.lo().value(), c, &rlo) && py_mod(a.hi().value(), c, &rhi)) {
      return ValueRange::ints(std::min(rlo, rhi), std::max(rlo, rhi));  // no wrap-around
    }
  }
  if (b.lo() > ExtInt(0)) {
    ExtInt hi = b.hi() - ExtInt(1);
    if (a.lo() >= ExtInt(0)) hi = ext_min(hi, a.hi());
    return ValueRange::ints(ExtInt(0), hi);
  }
  if (b.hi() < ExtInt(0)) {
    ExtInt lo = b.lo() + ExtInt(1);
    if (a.hi() <= ExtInt(0)) lo = ext_max(lo, a.lo());
    return ValueRange::ints(lo, ExtInt(0));
  }
  ExtInt lo = ext_min(ExtInt(0), b.lo() + ExtInt(1));
  ExtInt hi = ext_max(ExtInt(0), b.hi() - ExtInt(1));
  return ValueRange::ints(lo, hi);
}

ValueRange vr_max(const ValueRange& a, const ValueRange& b) {
  if (any_float(a, b)) {
    return ValueRange::floats(std::max(a.flo(), b.flo()), std::max(a.fhi(), b.fhi()));
  }
  return ValueRange::ints(ext_max(a.lo(), b.lo()), ext_max(a.hi(), b.hi()));
}

ValueRange vr_min(const ValueRange& a, const ValueRange& b) {
  if (any_float(a, b)) {
    return ValueRange::floats(std::min(a.flo(), b.flo()), std::min(a.fhi(), b.fhi()));
  }
  return ValueRange::ints(ext_min(a.lo(), b.lo()), ext_min(a.hi(), b.hi()));
}

ValueRange vr_where(const ValueRange& c, const ValueRange& t, const ValueRange& f) {
  if (!c.can_be_false()) return t;
  if (!c.can_be_true()) return f;
  return t.hull(f);
}

ValueRange vr_to_float(const ValueRange& a) { return a.as_float(); }

ValueRange vr_trunc_to_int(const ValueRange& a) {
  double lo = std::trunc(a.flo()), hi = std::trunc(a.fhi());
  auto to_ext = [](double v, bool is_lo) -> ExtInt {
    if (std::isnan(v)) return is_lo ? ExtInt::neg_inf() : ExtInt::pos_inf();
    if (v <= -9.2233720368547758e18) return ExtInt::neg_inf();
    if (v >= 9.2233720368547758e18) return ExtInt::pos_inf();
    return ExtInt(static_cast<int64_t>(v));
  };
  return int_result(to_ext(lo, true), to_ext(hi, false));
}

ValueRange vr_true_div(const ValueRange& a, const ValueRange& b) {
  if (b.contains_float(0.0) || b.flo() == 0.0 || b.fhi() == 0.0) return ValueRange::unknown_float();
  double c[4] = {a.flo() / b.flo(), a.flo() / b.fhi(), a.fhi() / b.flo(), a.fhi() / b.fhi()};
  for (double& v : c) {
    if (std::isnan(v)) return ValueRange::unknown_float();
  }
  return float_result(*std::min_element(c, c + 4), *std::max_element(c, c + 4));
}

ValueRange vr_lt(const ValueRange& a, const ValueRange& b) {
  if (any_float(a, b)) {
    if (a.fhi() < b.flo()) return ValueRange::exact_bool(true);
    if (a.flo() >= b.fhi()) return ValueRange::exact_bool(false);
    return ValueRange::unknown_bool();
  }
  if (a.hi() < b.lo()) return ValueRange::exact_bool(true);
  if (a.lo() >= b.hi()) return ValueRange::exact_bool(false);
  return ValueRange::unknown_bool();
}

ValueRange vr_le(const ValueRange& a, const ValueRange& b) {
  if (any_float(a, b)) {
    if (a.fhi() <= b.flo()) return ValueRange::exact_bool(true);
    if (a.flo() > b.fhi()) return ValueRange::exact_bool(false);
    return ValueRange::unknown_bool();
  }
  if (a.hi() <= b.lo()) return ValueRange::exact_bool(true);
  if (a.lo() > b.hi()) return ValueRange::exact_bool(false);
  return ValueRange::unknown_bool();
}

ValueRange vr_eq(const ValueRange& a, const ValueRange& b) {
  if (a.is_singleton() && b.is_singleton()) {
    bool same = any_float(a, b) ? a.flo() == b.flo() : a.lo() == b.lo();
    return ValueRange::exact_bool(same);
  }
  bool disjoint = any_float(a, b) ? (a.fhi() < b.flo() || b.fhi() < a.flo())
                                  : (a.hi() < b.lo() || b.hi() < a.lo());
  if (disjoint) return ValueRange::exact_bool(false);
  return ValueRange::unknown_bool();
}

ValueRange vr_ne(const ValueRange& a, const ValueRange& b) { return vr_not(vr_eq(a, b)); }

ValueRange vr_and(const ValueRange& a, const ValueRange& b) {
  return ValueRange::bools(a.can_be_false() || b.can_be_false(),
                           a.can_be_true() && b.can_be_true());
}

ValueRange vr_or(const ValueRange& a, const ValueRange& b) {
  return ValueRange::bools(a.can_be_false() && b.can_be_false(),
                           a.can_be_true() || b.can_be_true());
}

ValueRange vr_not(const ValueRange& a) {
  return ValueRange::bools(a.can_be_true(), a.can_be_false());
}

}  // namespace sf::sym
