// The encoding follows the evaluator (engine/sym/eval.cc) node by node; the property test in
// tests/smt compares the two on random expressions and assignments.
#include "oracles/smt/encoding.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "engine/base/check.h"

namespace sf::smt {

using sym::ExprKind;
using sym::ExprRef;
using sym::ExprType;

// Called once per symbol: encode() memoizes the hash-consed symbol node.
z3::expr Encoder::constant(const ExprRef& s) {
  std::string name = s->str();
  return s->is_float() ? ctx_.real_const(name.c_str()) : ctx_.int_const(name.c_str());
}

// A double as the exact rational it denotes: glibc prints a double's exact decimal expansion
// (it always terminates). Infinities and NaN have no real counterpart: undefined.
Term Encoder::real_constant(double x) const {
  if (!std::isfinite(x)) return {ctx_.real_val(0), ctx_.bool_val(false)};
  std::vector<char> buf(1500);
  std::snprintf(buf.data(), buf.size(), "%.1100f", x);
  return {ctx_.real_val(buf.data()), ctx_.bool_val(true)};
}

z3::expr Encoder::real(const z3::expr& x) const {
  if (x.is_real()) return x;
  if (x.is_bool()) return z3::ite(x, ctx_.real_val(1), ctx_.real_val(0));
  return z3::to_real(x);
}

z3::expr Encoder::integer(const z3::expr& x) const {
  if (x.is_bool()) return z3::ite(x, ctx_.int_val(1), ctx_.int_val(0));
  return x;
}

// Python's a // b rounds toward -inf. Z3's integer div is Euclidean (remainder >= 0), which
// agrees for b > 0; for b < 0, a // b == (-a) // (-b) with a positive divisor.
z3::expr Encoder::floordiv(const z3::expr& a, const z3::expr& b) const {
  return z3::ite(b > 0, a / b, (-a) / (-b));
}

Term Encoder::encode(const ExprRef& e) {
  auto it = memo_.find(e.get());
  if (it != memo_.end()) return it->second.second;
  Term t = encode_uncached(e);
  memo_.emplace(e.get(), std::make_pair(e, t));
  return t;
}

Term Encoder::encode_uncached(const ExprRef& e) {
  z3::expr yes = ctx_.bool_val(true);
  switch (e->kind()) {
    case ExprKind::kInteger:
      return {ctx_.int_val(static_cast<int64_t>(e->int_value())), yes};
    case ExprKind::kFloat:
      return real_constant(e->float_value());
    case ExprKind::kBoolConst:
      return {ctx_.bool_val(e->bool_value()), yes};
    case ExprKind::kSymbol:
      return {constant(e), yes};
    case ExprKind::kWhere: {
      Term c = encode(e->arg(0)), t = encode(e->arg(1)), f = encode(e->arg(2));
      z3::expr tv = e->is_float() ? real(t.value) : t.value;
      z3::expr fv = e->is_float() ? real(f.value) : f.value;
      // Lazy, like the evaluator: only the chosen branch must be defined.
      return {z3::ite(c.value, tv, fv), c.defined && z3::ite(c.value, t.defined, f.defined)};
    }
    case ExprKind::kAdd:
    case ExprKind::kMul:
    case ExprKind::kPow:
    case ExprKind::kFloorDiv:
    case ExprKind::kMod:
    case ExprKind::kCleanDiv:
    case ExprKind::kMax:
    case ExprKind::kMin:
    case ExprKind::kToFloat:
    case ExprKind::kTruncToInt:
    case ExprKind::kTrueDiv:
    case ExprKind::kEq:
    case ExprKind::kNe:
    case ExprKind::kLt:
    case ExprKind::kLe:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
      break;
  }
  std::vector<z3::expr> v;
  z3::expr defined = yes;
  bool any_real = false;
  for (const ExprRef& a : e->args()) {
    Term t = encode(a);
    any_real = any_real || t.value.is_real();
    v.push_back(t.value);
    defined = defined && t.defined;
  }
  // Arithmetic over mixed ints and floats is done in the reals (the evaluator uses doubles).
  auto numeric = [&](size_t i) { return any_real ? real(v[i]) : integer(v[i]); };
  switch (e->kind()) {
    case ExprKind::kAdd:
    case ExprKind::kMul: {
      bool is_add = e->is(ExprKind::kAdd);
      z3::expr acc = numeric(0);
      for (size_t i = 1; i < v.size(); ++i) acc = is_add ? acc + numeric(i) : acc * numeric(i);
      return {acc, defined};
    }
    case ExprKind::kPow: {
      z3::expr base = numeric(0);
      z3::expr acc = base.is_real() ? ctx_.real_val(1) : ctx_.int_val(1);
      for (int64_t k = 0; k < e->pow_exponent(); ++k) acc = acc * base;
      return {acc, defined};
    }
    case ExprKind::kFloorDiv:
    case ExprKind::kCleanDiv: {
      z3::expr a = integer(v[0]), b = integer(v[1]);
      return {floordiv(a, b), defined && b != 0};
    }
    case ExprKind::kMod: {
      z3::expr a = integer(v[0]), b = integer(v[1]);
      return {a - b * floordiv(a, b), defined && b != 0};
    }
    case ExprKind::kMax:
    case ExprKind::kMin: {
      bool is_max = e->is(ExprKind::kMax);
      z3::expr acc = numeric(0);
      for (size_t i = 1; i < v.size(); ++i) {
        z3::expr x = numeric(i);
        acc = is_max ? z3::ite(x > acc, x, acc) : z3::ite(x < acc, x, acc);
      }
      return {acc, defined};
    }
    case ExprKind::kToFloat:
      return {real(v[0]), defined};
    case ExprKind::kTruncToInt: {
      z3::expr x = real(v[0]);
      auto floor = [&](const z3::expr& r) { return z3::expr(ctx_, Z3_mk_real2int(ctx_, r)); };
      return {z3::ite(x >= 0, floor(x), -floor(-x)), defined};
    }
    case ExprKind::kTrueDiv: {
      z3::expr a = real(v[0]), b = real(v[1]);
      return {a / b, defined && b != 0};
    }
    case ExprKind::kEq:
    case ExprKind::kNe:
    case ExprKind::kLt:
    case ExprKind::kLe: {
      z3::expr a = v[0], b = v[1];
      if (!(a.is_bool() && b.is_bool() && (e->is(ExprKind::kEq) || e->is(ExprKind::kNe)))) {
        a = numeric(0);
        b = numeric(1);
      }
      z3::expr r = e->is(ExprKind::kEq)   ? a == b
                   : e->is(ExprKind::kNe) ? a != b
                   : e->is(ExprKind::kLt) ? a < b
                                          : a <= b;
      return {r, defined};
    }
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      z3::expr_vector xs(ctx_);
      for (const z3::expr& x : v) xs.push_back(x);
      return {e->is(ExprKind::kAnd) ? z3::mk_and(xs) : z3::mk_or(xs), defined};
    }
    case ExprKind::kNot:
      return {!v[0], defined};
    case ExprKind::kInteger:
    case ExprKind::kFloat:
    case ExprKind::kBoolConst:
    case ExprKind::kSymbol:
    case ExprKind::kWhere:
      break;
  }
  SF_UNREACHABLE() << e->str();
}

}  // namespace sf::smt
