// Value ranges: inclusive intervals with a distinct integer infinity (int_oo), float intervals
// with IEEE infinities (oo), and boolean ranges as [0, 1] subsets.
// Soundness contract: for every operation op, x ∈ A and y ∈ B imply op(x, y) ∈ op(A, B) wherever
// op(x, y) is defined; int64 overflow in a bound widens it to the matching infinity.
#pragma once

#include <cstdint>
#include <string>

namespace sf::sym {

// An int64 or ±int_oo. Arithmetic saturates: a finite result that overflows becomes infinite.
class ExtInt {
 public:
  constexpr ExtInt(int64_t v = 0) : inf_(0), v_(v) {}  // NOLINT: implicit from int64
  static constexpr ExtInt pos_inf() { return ExtInt(1, 0); }
  static constexpr ExtInt neg_inf() { return ExtInt(-1, 0); }
  bool is_finite() const { return inf_ == 0; }
  bool is_pos_inf() const { return inf_ > 0; }
  bool is_neg_inf() const { return inf_ < 0; }
  int64_t value() const { return v_; }  // only meaningful when finite
  int sign() const { return inf_ != 0 ? inf_ : (v_ > 0) - (v_ < 0); }
  double as_double() const;
  std::string str() const;

  friend bool operator==(ExtInt a, ExtInt b) { return a.inf_ == b.inf_ && a.v_ == b.v_; }
  friend bool operator!=(ExtInt a, ExtInt b) { return !(a == b); }
  friend bool operator<(ExtInt a, ExtInt b) {
    if (a.inf_ != b.inf_) return a.inf_ < b.inf_;
    return a.inf_ == 0 && a.v_ < b.v_;
  }
  friend bool operator<=(ExtInt a, ExtInt b) { return !(b < a); }
  friend bool operator>(ExtInt a, ExtInt b) { return b < a; }
  friend bool operator>=(ExtInt a, ExtInt b) { return !(a < b); }

  friend ExtInt operator+(ExtInt a, ExtInt b);  // +oo + -oo is an internal error
  friend ExtInt operator-(ExtInt a, ExtInt b);
  friend ExtInt operator*(ExtInt a, ExtInt b);  // 0 * oo == 0 (bounds of finite values)
  ExtInt operator-() const;
  // Python floor division of bounds; oo//c, c//oo follow limits (c//oo is 0 or -1).
  static ExtInt floordiv(ExtInt a, ExtInt b);

 private:
  constexpr ExtInt(int inf, int64_t v) : inf_(static_cast<int8_t>(inf)), v_(v) {}
  int8_t inf_;
  int64_t v_;
};

inline ExtInt ext_min(ExtInt a, ExtInt b) { return b < a ? b : a; }
inline ExtInt ext_max(ExtInt a, ExtInt b) { return a < b ? b : a; }

class ValueRange {
 public:
  enum class Kind : uint8_t { kInt, kFloat, kBool };

  static ValueRange unknown_int() { return ints(ExtInt::neg_inf(), ExtInt::pos_inf()); }
  static ValueRange unknown_float();
  static ValueRange unknown_bool() { return bools(true, true); }
  static ValueRange ints(ExtInt lo, ExtInt hi);  // SF_CHECK lo <= hi, lo != +oo, hi != -oo
  static ValueRange exact(int64_t v) { return ints(v, v); }
  static ValueRange floats(double lo, double hi);
  static ValueRange bools(bool can_be_false, bool can_be_true);
  static ValueRange exact_bool(bool v) { return bools(!v, v); }

  Kind kind() const { return kind_; }
  bool is_int() const { return kind_ == Kind::kInt; }
  bool is_float() const { return kind_ == Kind::kFloat; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  ExtInt lo() const { return lo_; }  // int and bool ranges (bool: 0 = False, 1 = True)
  ExtInt hi() const { return hi_; }
  double flo() const;  // any kind, as doubles (int_oo -> oo)
  double fhi() const;
  bool can_be_true() const { return hi_ == ExtInt(1); }
  bool can_be_false() const { return lo_ == ExtInt(0); }

  bool is_singleton() const;
  bool is_unknown() const;
  bool contains(int64_t v) const;
  bool contains_float(double v) const;
  bool issubset(const ValueRange& o) const;
  // Intersection; an empty result throws UserError(kValueRange) naming both ranges.
  ValueRange intersect(const ValueRange& o) const;
  ValueRange hull(const ValueRange& o) const;
  ValueRange as_float() const;
  bool operator==(const ValueRange& o) const;
  bool operator!=(const ValueRange& o) const { return !(*this == o); }
  std::string str() const;

 private:
  Kind kind_ = Kind::kInt;
  ExtInt lo_, hi_;
  double flo_ = 0, fhi_ = 0;
};

// Interval arithmetic, one function per expression node kind.
ValueRange vr_add(const ValueRange& a, const ValueRange& b);
ValueRange vr_mul(const ValueRange& a, const ValueRange& b);
ValueRange vr_neg(const ValueRange& a);
ValueRange vr_pow(const ValueRange& a, int64_t exp);
ValueRange vr_floordiv(const ValueRange& a, const ValueRange& b);
ValueRange vr_mod(const ValueRange& a, const ValueRange& b);
ValueRange vr_max(const ValueRange& a, const ValueRange& b);
ValueRange vr_min(const ValueRange& a, const ValueRange& b);
ValueRange vr_where(const ValueRange& c, const ValueRange& t, const ValueRange& f);
ValueRange vr_to_float(const ValueRange& a);
ValueRange vr_trunc_to_int(const ValueRange& a);
ValueRange vr_true_div(const ValueRange& a, const ValueRange& b);
ValueRange vr_eq(const ValueRange& a, const ValueRange& b);
ValueRange vr_ne(const ValueRange& a, const ValueRange& b);
ValueRange vr_lt(const ValueRange& a, const ValueRange& b);
ValueRange vr_le(const ValueRange& a, const ValueRange& b);
ValueRange vr_and(const ValueRange& a, const ValueRange& b);
ValueRange vr_or(const ValueRange& a, const ValueRange& b);
ValueRange vr_not(const ValueRange& a);

}  // namespace sf::sym
