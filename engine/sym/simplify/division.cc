// Rules for FloorDiv, CleanDiv and Mod (Python semantics): split off multiples of the divisor,
// reduce by common factors, nest constant divisions, and decide by ranges.
#include "engine/base/check.h"
#include "engine/base/faults.h"
#include "engine/sym/make.h"
#include "engine/sym/numeric.h"
#include "engine/sym/simplify/simplify_internal.h"

namespace sf::sym::detail {

namespace {

// Divides monomial `a` by monomial `b` (factor lists), or returns null if b does not divide a.
ExprRef divide_mono(const ExprRef& a, const ExprRef& b) {
  std::vector<Factor> fa = factors_of(a), fb = factors_of(b), out;
  size_t j = 0;
  for (const Factor& f : fa) {
    if (j < fb.size() && f.base == fb[j].base) {
      if (f.exp < fb[j].exp) return ExprRef();
      if (f.exp > fb[j].exp) out.push_back(Factor{f.base, f.exp - fb[j].exp});
      ++j;
    } else {
      out.push_back(f);
    }
  }
  if (j != fb.size()) return ExprRef();
  return out.empty() ? integer(1) : mono_of(out);
}

// Splits integer polynomial p by constant c > 0 into p = c*q + r, where r keeps the terms whose
// coefficients c does not divide and a constant in [0, c).
void split_multiples(const Poly& p, int64_t c, Poly* q, Poly* r) {
  for (const Term& t : p.terms) {
    if (t.coef.i % c == 0) {
      q->terms.push_back(Term{t.mono, Number::of(t.coef.i / c)});
    } else {
      r->terms.push_back(t);
    }
  }
  int64_t k = p.constant.i, qk = 0, rk = 0;
  py_floordiv(k, c, &qk);
  py_mod(k, c, &rk);
  q->constant = Number::of(qk);
  r->constant = Number::of(rk);
}

int64_t content_gcd(const Poly& r, int64_t c) {
  int64_t g = gcd_i64(c, r.constant.i);
  for (const Term& t : r.terms) g = gcd_i64(g, t.coef.i);
  return g;
}

Poly divide_exact_const(const Poly& r, int64_t g) {
  Poly out;
  out.constant = Number::of(r.constant.i / g);
  for (const Term& t : r.terms) out.terms.push_back(Term{t.mono, Number::of(t.coef.i / g)});
  return out;
}

bool finite_quotient(const ValueRange& r, int64_t c, int64_t* q) {
  if (!r.lo().is_finite() || !r.hi().is_finite()) return false;
  int64_t q1, q2;
  if (!py_floordiv(r.lo().value(), c, &q1) || !py_floordiv(r.hi().value(), c, &q2)) return false;
  *q = q1;
  return q1 == q2;
}

}  // namespace

std::optional<Poly> exact_divide(const Poly& a, const ExprRef& b) {
  if (a.has_float() || b->is_float()) return std::nullopt;
  Poly pb = poly_of(b);
  if (pb.terms.size() != 1 || !pb.constant.is_zero()) return std::nullopt;
  const Term& d = pb.terms[0];
  if (d.coef.i == 0 || !a.constant.is_zero()) return std::nullopt;
  Poly out;
  for (const Term& t : a.terms) {
    if (t.coef.i % d.coef.i != 0) return std::nullopt;
    ExprRef m = divide_mono(t.mono, d.mono);
    if (!m) return std::nullopt;
    Poly term = poly_of(m);
    out = poly_add(out, poly_scale(term, Number::of(t.coef.i / d.coef.i)));
  }
  return out;
}

ExprRef Simplifier::floordiv(const ExprRef& e) {
  const ExprRef& a = e->arg(0);
  const ExprRef& b = e->arg(1);
  bool clean = e->is(ExprKind::kCleanDiv);
  auto make_div = [&](const ExprRef& x, const ExprRef& y) {
    if (clean || env_.known_divisible(x, y)) return clean_div(x, y);
    return sym::floordiv(x, y);
  };
  if (b->is(ExprKind::kInteger)) {
    int64_t c = b->int_value();
    if (c < 0) {  // floor(a / c) == floor(-a / -c) (evaluation is 128-bit: -a cannot overflow)
      if (c == INT64_MIN) return e;
      return fired(make_div(neg(a), integer(-c)));
    }
    Poly q, r;
    split_multiples(poly_of(a), c, &q, &r);
    ExprRef inner;
    if (r.is_constant() && r.constant.i == 0) {
      inner = integer(0);
    } else {
      int64_t g = content_gcd(r, c);
      if (g > 1) {
        r = divide_exact_const(r, g);
        c /= g;
      }
      ExprRef rest = expr_of(r);
      int64_t fixed;
      if (c == 1) {
        inner = rest;
      } else if (finite_quotient(bound(rest), c, &fixed)) {
        inner = integer(fixed);
      } else if ((rest->is(ExprKind::kFloorDiv) || rest->is(ExprKind::kCleanDiv)) &&
                 rest->arg(1)->is(ExprKind::kInteger) && rest->arg(1)->int_value() > 0) {
        // FloorDiv(FloorDiv(x, c1), c) == FloorDiv(x, c1 * c) for positive divisors. The result
        // is exact only if both divisions were (CleanDiv(FloorDiv(7, 2), 3) is not).
        int64_t c1c;
        if (!checked_mul(rest->arg(1)->int_value(), c, &c1c)) return e;
        bool exact = clean && rest->is(ExprKind::kCleanDiv);
        inner = exact ? clean_div(rest->arg(0), integer(c1c))
                      : (env_.known_divisible(rest->arg(0), integer(c1c))
                             ? clean_div(rest->arg(0), integer(c1c))
                             : sym::floordiv(rest->arg(0), integer(c1c)));
      } else {
        inner = make_div(rest, integer(c));
      }
    }
    ExprRef out = add(expr_of(q), inner);
    return out == e ? e : fired(out);
  }
  if (std::optional<Poly> quotient = exact_divide(poly_of(a), b)) {
    return fired(expr_of(*quotient));
  }
  ValueRange ba = bound(a), bb = bound(b);
  // Bug zoo (PR #190966): the dividend's sign was not asked.
  bool nonnegative = ba.lo() >= ExtInt(0) || fault_on(Fault::kDivisionIgnoresDividendSign);
  if (nonnegative && bb.lo() > ExtInt(0) && bound(sub(b, a)).lo() >= ExtInt(1)) {
    return fired(integer(0));  // 0 <= a < b
  }
  if (!clean && env_.known_divisible(a, b)) return fired(clean_div(a, b));
  return e;
}

ExprRef Simplifier::mod(const ExprRef& e) {
  const ExprRef& a = e->arg(0);
  const ExprRef& b = e->arg(1);
  if (b->is(ExprKind::kInteger)) {
    int64_t c = b->int_value();
    if (c < 0) {  // a % c == -((-a) % (-c)) in Python
      if (c == INT64_MIN) return e;
      return fired(neg(sym::mod(neg(a), integer(-c))));
    }
    Poly q, r;
    split_multiples(poly_of(a), c, &q, &r);
    if (r.is_constant()) return fired(expr_of(r));
    int64_t g = content_gcd(r, c);
    if (g > 1) {  // (g*x) % (g*c) == g * (x % c)
      r = divide_exact_const(r, g);
      c /= g;
    }
    ExprRef rest = expr_of(r);
    ExprRef inner;
    int64_t fixed;
    if (finite_quotient(bound(rest), c, &fixed)) {
      inner = sub(rest, integer(fixed * c));  // no wrap-around inside the range
    } else if (rest->is(ExprKind::kMod) && rest->arg(1)->is(ExprKind::kInteger) &&
               rest->arg(1)->int_value() > 0 && rest->arg(1)->int_value() % c == 0) {
      inner = sym::mod(rest->arg(0), integer(c));  // (x % (k*c)) % c == x % c
    } else {
      inner = sym::mod(rest, integer(c));
    }
    ExprRef out = mul(integer(g > 1 ? g : 1), inner);
    return out == e ? e : fired(out);
  }
  if (exact_divide(poly_of(a), b)) return fired(integer(0));
  ValueRange ba = bound(a);
  bool nonnegative = ba.lo() >= ExtInt(0) || fault_on(Fault::kDivisionIgnoresDividendSign);
  if (nonnegative && bound(sub(b, a)).lo() >= ExtInt(1)) return fired(a);  // 0 <= a < b
  return e;
}

ExprRef Simplifier::trunc_to_int(const ExprRef& e) {
  const ExprRef& x = e->arg(0);
  if (!x->is(ExprKind::kTrueDiv)) return e;
  const ExprRef& num = x->arg(0);
  const ExprRef& den = x->arg(1);
  if (!num->is(ExprKind::kToFloat) || !den->is(ExprKind::kToFloat)) return e;
  const ExprRef& a = num->arg(0);
  const ExprRef& b = den->arg(0);
  if (!a->is_int() || !b->is_int()) return e;
  // The input divides in doubles: the integer rewrite is only exact while both operands are
  // exactly representable (|x| <= 2^53).
  constexpr int64_t kExact = int64_t{1} << 53;
  ValueRange ra = bound(a), rb = bound(b);
  if (ra.lo() < ExtInt(-kExact) || ra.hi() > ExtInt(kExact) || rb.lo() < ExtInt(-kExact) ||
      rb.hi() > ExtInt(kExact)) {
    return e;
  }
  if (std::optional<Poly> q = exact_divide(poly_of(a), b)) return fired(expr_of(*q));
  // trunc == floor when the quotient is non-negative
  if (ra.lo() >= ExtInt(0) && rb.lo() > ExtInt(0)) {
    return fired(env_.known_divisible(a, b) ? clean_div(a, b) : sym::floordiv(a, b));
  }
  return e;
}

}  // namespace sf::sym::detail
