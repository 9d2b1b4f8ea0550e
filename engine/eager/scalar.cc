// Scalar arithmetic with Python semantics (bool < int < float; `//` floors, `%` takes the divisor's
// sign, any division by zero raises) and the scalar-valued tensor queries size/stride/numel.
#include <cmath>

#include "engine/base/check.h"
#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"

namespace sf::eager::internal {

namespace {

bool is_float(const Value& v) { return v.kind == Value::Kind::kFloat; }
int64_t as_int(const Value& v) { return v.kind == Value::Kind::kBool ? v.b : v.i; }
double as_double(const Value& v) { return is_float(v) ? v.f : static_cast<double>(as_int(v)); }
// Exact for every int64 and every double (x86-64's 80-bit long double), as Python compares.
long double as_exact(const Value& v) {
  return is_float(v) ? static_cast<long double>(v.f) : static_cast<long double>(as_int(v));
}
bool truth(const Value& v) { return is_float(v) ? v.f != 0.0 : as_int(v) != 0; }

// CPython's float floor division and modulo (floatobject.c _float_div_mod).
void python_divmod(double x, double y, double* floordiv, double* mod) {
  double m = std::fmod(x, y);
  double div = (x - m) / y;
  if (m != 0.0) {
    if ((y < 0) != (m < 0)) {
      m += y;
      div -= 1.0;
    }
  } else {
    m = std::copysign(0.0, y);
  }
  if (div != 0.0) {
    *floordiv = std::floor(div);
    if (div - *floordiv > 0.5) *floordiv += 1.0;
  } else {
    *floordiv = std::copysign(0.0, x / y);
  }
  *mod = m;
}

double float_max_min(BinaryOp op, double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) ? x : y;  // NaN propagates
  if (op == BinaryOp::kMaximum) return x < y ? y : x;
  return y < x ? y : x;
}

}  // namespace

Value scalar_binary(const Call& c, BinaryOp op, const Value& a, const Value& b) {
  auto what = [&] {
    return a.describe() + " " + program::binary_op_python(op) + " " + b.describe();
  };
  auto overflow = [&]() -> Value {
    c.fail(UserErrorKind::kTooComplex, "integer overflow: " + what() + " does not fit in int64");
  };
  bool floating = is_float(a) || is_float(b);
  bool divides = op == BinaryOp::kDiv || op == BinaryOp::kFloorDiv || op == BinaryOp::kRemainder;
  if (divides && !truth(b)) c.fail(UserErrorKind::kZeroDivision, "division by zero: " + what());
  int64_t x = as_int(a), y = as_int(b), r = 0;
  switch (op) {
    case BinaryOp::kAdd:
      if (floating) return Value::of_float(as_double(a) + as_double(b));
      return __builtin_add_overflow(x, y, &r) ? overflow() : Value::of_int(r);
    case BinaryOp::kSub:
      if (floating) return Value::of_float(as_double(a) - as_double(b));
      return __builtin_sub_overflow(x, y, &r) ? overflow() : Value::of_int(r);
    case BinaryOp::kMul:
      if (floating) return Value::of_float(as_double(a) * as_double(b));
      return __builtin_mul_overflow(x, y, &r) ? overflow() : Value::of_int(r);
    case BinaryOp::kDiv:
      return Value::of_float(as_double(a) / as_double(b));
    case BinaryOp::kFloorDiv:
    case BinaryOp::kRemainder: {
      if (floating) {
        double q, m;
        python_divmod(as_double(a), as_double(b), &q, &m);
        return Value::of_float(op == BinaryOp::kFloorDiv ? q : m);
      }
      if (x == INT64_MIN && y == -1) {
        return op == BinaryOp::kFloorDiv ? overflow() : Value::of_int(0);
      }
      int64_t q = x / y, m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) {
        q -= 1;
        m += y;
      }
      return Value::of_int(op == BinaryOp::kFloorDiv ? q : m);
    }
    case BinaryOp::kMaximum:
    case BinaryOp::kMinimum: {
      bool max = op == BinaryOp::kMaximum;
      if (a.kind == Value::Kind::kBool && b.kind == Value::Kind::kBool) {
        return Value::of_bool(max ? (a.b || b.b) : (a.b && b.b));
      }
      if (floating) return Value::of_float(float_max_min(op, as_double(a), as_double(b)));
      return Value::of_int(max ? std::max(x, y) : std::min(x, y));
    }
    case BinaryOp::kEq:
      return Value::of_bool(as_exact(a) == as_exact(b));
    case BinaryOp::kNe:
      return Value::of_bool(as_exact(a) != as_exact(b));
    case BinaryOp::kLt:
      return Value::of_bool(as_exact(a) < as_exact(b));
    case BinaryOp::kLe:
      return Value::of_bool(as_exact(a) <= as_exact(b));
    case BinaryOp::kGt:
      return Value::of_bool(as_exact(a) > as_exact(b));
    case BinaryOp::kGe:
      return Value::of_bool(as_exact(a) >= as_exact(b));
    case BinaryOp::kLogicalAnd:
      return Value::of_bool(truth(a) && truth(b));
    case BinaryOp::kLogicalOr:
      return Value::of_bool(truth(a) || truth(b));
  }
  SF_UNREACHABLE();
}

Value scalar_unary(const Call& c, UnaryOp op, const Value& a) {
  switch (op) {
    case UnaryOp::kLogicalNot:
      return Value::of_bool(!truth(a));
    case UnaryOp::kNeg:
    case UnaryOp::kAbs: {
      if (is_float(a)) return Value::of_float(op == UnaryOp::kNeg ? -a.f : std::fabs(a.f));
      int64_t x = as_int(a);  // Python: -True == -1, abs(True) == 1
      if (op == UnaryOp::kAbs && x >= 0) return Value::of_int(x);
      if (x == INT64_MIN) {
        c.fail(UserErrorKind::kTooComplex,
               "integer overflow: negating " + a.describe() + " does not fit in int64");
      }
      return Value::of_int(-x);
    }
  }
  SF_UNREACHABLE();
}

Value size(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t d = wrap_dim(c, c.integer(1), static_cast<int64_t>(t.sizes.size()), false);
  return Value::of_int(t.sizes[d]);
}

Value stride(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t d = wrap_dim(c, c.integer(1), static_cast<int64_t>(t.sizes.size()), false);
  return Value::of_int(strides_of(c.arg(0))[d]);
}

Value numel(const Call& c) { return Value::of_int(c.tensor(0).numel()); }

}  // namespace sf::eager::internal
