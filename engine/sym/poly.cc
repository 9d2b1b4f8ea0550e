// Sum-of-products arithmetic: the "safe_expand" normal form every Add/Mul/Pow is kept in.
#include "engine/sym/poly.h"

#include <algorithm>
#include <string>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/sym/context.h"
#include "engine/sym/make.h"
#include "engine/sym/numeric.h"
#include "engine/sym/walk.h"

namespace sf::sym {

namespace {

[[noreturn]] void overflow(const char* op, int64_t a, int64_t b) {
  throw_user_error(UserErrorKind::kTooComplex, std::string("integer overflow folding constants: ") +
                                                   std::to_string(a) + " " + op + " " +
                                                   std::to_string(b));
}

ExprType type_of_args(const std::vector<ExprRef>& args) {
  for (const ExprRef& a : args) {
    if (a->is_float()) return ExprType::kFloat;
  }
  return ExprType::kInt;
}

// Merges two sorted term lists, summing coefficients and dropping zeros.
Terms merge_terms(const Terms& a, const Terms& b) {
  Terms out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int c = i == a.size() ? 1 : (j == b.size() ? -1 : compare(a[i].mono, b[j].mono));
    if (c < 0) {
      out.push_back(a[i++]);
    } else if (c > 0) {
      out.push_back(b[j++]);
    } else {
      Number sum = a[i].coef + b[j].coef;
      if (!sum.is_zero()) out.push_back(Term{a[i].mono, sum});
      ++i;
      ++j;
    }
  }
  return out;
}

Term term_of(const ExprRef& t) {
  if (t->is(ExprKind::kMul) && t->arg(0)->is_number()) {
    Number coef = Number::of_expr(t->arg(0));
    if (t->num_args() == 2) return Term{t->arg(1), coef};  // c*x: no list for the one factor
    std::vector<ExprRef> rest(t->args().begin() + 1, t->args().end());
    ExprType type = type_of_args(rest);
    return Term{Context::get().intern(ExprKind::kMul, type, 0, 0.0, std::move(rest)), coef};
  }
  return Term{t, Number::of(1)};
}

}  // namespace

Number Number::of_expr(const ExprRef& e) {
  if (e->is(ExprKind::kInteger)) return of(e->int_value());
  SF_CHECK(e->is(ExprKind::kFloat)) << "not a number: " << e->str();
  return of_float(e->float_value());
}

Number Number::operator+(const Number& o) const {
  if (is_float || o.is_float) return of_float(as_double() + o.as_double());
  int64_t r;
  if (!checked_add(i, o.i, &r)) overflow("+", i, o.i);
  return of(r);
}

Number Number::operator*(const Number& o) const {
  if (is_float || o.is_float) return of_float(as_double() * o.as_double());
  int64_t r;
  if (!checked_mul(i, o.i, &r)) overflow("*", i, o.i);
  return of(r);
}

Number Number::negated() const {
  if (is_float) return of_float(-f);
  int64_t r;
  if (!checked_neg(i, &r)) overflow("-", 0, i);
  return of(r);
}

ExprRef Number::to_expr() const {
  if (is_float) return Context::get().intern(ExprKind::kFloat, ExprType::kFloat, 0, f, {});
  return integer(i);  // the small ones are made once
}

bool Poly::has_float() const {
  if (constant.is_float) return true;
  for (const Term& t : terms) {
    if (t.coef.is_float || t.mono->is_float()) return true;
  }
  return false;
}

std::vector<Factor> factors_of(const ExprRef& mono) {
  std::vector<Factor> out;
  auto push = [&](const ExprRef& f) {
    if (f->is(ExprKind::kPow)) {
      out.push_back(Factor{f->arg(0), f->pow_exponent()});
    } else {
      out.push_back(Factor{f, 1});
    }
  };
  if (mono->is(ExprKind::kMul)) {
    for (const ExprRef& a : mono->args()) push(a);
  } else {
    push(mono);
  }
  return out;
}

ExprRef mono_of(const std::vector<Factor>& factors) {
  SF_CHECK(!factors.empty());
  std::vector<ExprRef> args;
  args.reserve(factors.size());
  for (const Factor& f : factors) {
    if (f.exp == 1) {
      args.push_back(f.base);
    } else {
      args.push_back(Context::get().intern(ExprKind::kPow, f.base->type(), f.exp, 0.0, {f.base}));
    }
  }
  if (args.size() == 1) return args[0];
  ExprType type = type_of_args(args);
  return Context::get().intern(ExprKind::kMul, type, 0, 0.0, std::move(args));
}

Poly poly_of(const ExprRef& e) {
  Poly p;
  if (e->is_number()) {
    p.constant = Number::of_expr(e);
    return p;
  }
  if (e->is(ExprKind::kAdd)) {
    for (const ExprRef& a : e->args()) {
      if (a->is_number()) {
        p.constant = Number::of_expr(a);
      } else {
        p.terms.push_back(term_of(a));
      }
    }
    return p;
  }
  p.terms.push_back(term_of(e));
  return p;
}

ExprRef expr_of(const Poly& p) {
  // The sum's arguments are built in place: slot 0 is kept for the constant, dropped if unused.
  std::vector<ExprRef> args;
  args.reserve(p.terms.size() + 1);
  args.emplace_back();
  bool terms_float = false;
  for (const Term& t : p.terms) {
    if (t.coef.is_one() && !(t.coef.is_float && !t.mono->is_float())) {
      args.push_back(t.mono);
    } else {
      std::vector<ExprRef> margs;
      margs.reserve(t.mono->is(ExprKind::kMul) ? t.mono->num_args() + 1 : 2);
      margs.push_back(t.coef.to_expr());
      if (t.mono->is(ExprKind::kMul)) {
        margs.insert(margs.end(), t.mono->args().begin(), t.mono->args().end());
      } else {
        margs.push_back(t.mono);
      }
      ExprType type = type_of_args(margs);
      args.push_back(Context::get().intern(ExprKind::kMul, type, 0, 0.0, std::move(margs)));
    }
    terms_float = terms_float || args.back()->is_float();
  }
  size_t num_terms = args.size() - 1;
  // A float zero constant is kept when it alone makes the sum float-typed.
  bool keep_constant =
      !p.constant.is_zero() || num_terms == 0 || (p.constant.is_float && !terms_float);
  if (!keep_constant && num_terms == 1) return args[1];
  if (keep_constant) {
    args[0] = p.constant.to_expr();
    if (num_terms == 0) return args[0];
  } else {
    args.erase(args.begin());
  }
  bool any_float = terms_float || p.constant.is_float;
  return Context::get().intern(ExprKind::kAdd, any_float ? ExprType::kFloat : ExprType::kInt, 0,
                               0.0, std::move(args));
}

Poly poly_add(const Poly& a, const Poly& b) {
  Poly out;
  out.constant = a.constant + b.constant;
  out.terms = merge_terms(a.terms, b.terms);
  if (out.terms.size() > kMaxPolyTerms) {
    throw_user_error(UserErrorKind::kTooComplex, "symbolic sum has too many terms");
  }
  return out;
}

Poly poly_scale(const Poly& a, const Number& k) {
  Poly out;
  if (k.is_zero()) {
    out.constant = k.is_float || a.has_float() ? Number::of_float(0.0) : Number::of(0);
    return out;
  }
  out.constant = a.constant * k;
  for (const Term& t : a.terms) out.terms.push_back(Term{t.mono, t.coef * k});
  return out;
}

namespace {

ExprRef mono_mul(const ExprRef& a, const ExprRef& b) {
  std::vector<Factor> fa = factors_of(a), fb = factors_of(b), out;
  size_t i = 0, j = 0;
  while (i < fa.size() || j < fb.size()) {
    int c = i == fa.size() ? 1 : (j == fb.size() ? -1 : compare(fa[i].base, fb[j].base));
    if (c < 0) {
      out.push_back(fa[i++]);
    } else if (c > 0) {
      out.push_back(fb[j++]);
    } else {
      int64_t e;
      if (!checked_add(fa[i].exp, fb[j].exp, &e)) overflow("+", fa[i].exp, fb[j].exp);
      out.push_back(Factor{fa[i].base, e});
      ++i;
      ++j;
    }
  }
  return mono_of(out);
}

}  // namespace

Poly poly_mul(const Poly& a, const Poly& b) {
  if (a.terms.size() * b.terms.size() > kMaxPolyTerms * 4) {
    throw_user_error(UserErrorKind::kTooComplex, "symbolic product expands to too many terms");
  }
  Poly out = poly_scale(b, a.constant);
  Poly rest = poly_scale(a, b.constant);
  rest.constant = Number::of(0);
  out = poly_add(out, rest);
  for (const Term& ta : a.terms) {
    std::vector<Term> row;
    row.reserve(b.terms.size());
    for (const Term& tb : b.terms)
      row.push_back(Term{mono_mul(ta.mono, tb.mono), ta.coef * tb.coef});
    std::sort(row.begin(), row.end(),
              [](const Term& x, const Term& y) { return compare(x.mono, y.mono) < 0; });
    // Products of distinct monomials can coincide (x*y and y*x never do after sorting factors,
    // but x*(x*y) and (x*x)*y do); fold duplicates before merging.
    Terms folded;
    for (Term& t : row) {
      if (!folded.empty() && folded.back().mono == t.mono) {
        folded.back().coef = folded.back().coef + t.coef;
        if (folded.back().coef.is_zero()) folded.pop_back();
      } else {
        folded.push_back(std::move(t));
      }
    }
    Poly row_poly;
    row_poly.terms = std::move(folded);
    out = poly_add(out, row_poly);
  }
  return out;
}

std::optional<std::pair<int64_t, ExprRef>> linear_in(const ExprRef& e, const ExprRef& x) {
  Poly p = poly_of(e);
  std::optional<int64_t> a;
  Poly rest;
  rest.constant = p.constant;
  for (const Term& t : p.terms) {
    if (t.mono == x && !t.coef.is_float) {
      a = t.coef.i;
      continue;
    }
    for (const ExprRef& s : free_symbols(t.mono)) {
      if (s == x) return std::nullopt;  // x inside a product, a power or a call
    }
    rest.terms.push_back(t);
  }
  if (!a || *a == 0) return std::nullopt;
  return std::make_pair(*a, expr_of(rest));
}

}  // namespace sf::sym
