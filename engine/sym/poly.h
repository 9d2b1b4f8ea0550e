// Internal: the sum-of-products normal form behind Add/Mul/Pow factories and relation
// canonicalization. A Poly is constant + sum(coef * monomial), monomials unique and sorted.
#pragma once

#include <vector>

#include "engine/sym/expr.h"
#include "engine/sym/small_vector.h"

namespace sf::sym {

// A numeric coefficient: int64 unless a float took part. Int overflow throws kTooComplex.
struct Number {
  bool is_float = false;
  int64_t i = 0;
  double f = 0.0;

  static Number of(int64_t v) { return Number{false, v, 0.0}; }
  static Number of_float(double v) { return Number{true, 0, v}; }
  static Number of_expr(const ExprRef& e);  // e must be Integer or Float
  double as_double() const { return is_float ? f : static_cast<double>(i); }
  bool is_zero() const { return is_float ? f == 0.0 : i == 0; }
  bool is_one() const { return is_float ? f == 1.0 : i == 1; }
  bool is_negative() const { return is_float ? f < 0.0 : i < 0; }
  Number operator+(const Number& o) const;
  Number operator*(const Number& o) const;
  Number negated() const;
  ExprRef to_expr() const;
};

struct Factor {
  ExprRef base;
  int64_t exp;
};

struct Term {
  ExprRef mono;  // an atom, Pow(atom, k) or a coefficient-free Mul of those
  Number coef;
};

// Most polynomials have at most four terms: those live inline.
using Terms = SmallVector<Term, 4>;

struct Poly {
  Number constant;
  Terms terms;
  bool is_constant() const { return terms.empty(); }
  bool has_float() const;
};

Poly poly_of(const ExprRef& e);
ExprRef expr_of(const Poly& p);
Poly poly_add(const Poly& a, const Poly& b);
Poly poly_mul(const Poly& a, const Poly& b);
Poly poly_scale(const Poly& a, const Number& k);

// Factor lists of monomials, sorted by base.
std::vector<Factor> factors_of(const ExprRef& mono);
ExprRef mono_of(const std::vector<Factor>& factors);

// Largest number of terms a product may expand to before we give up with kTooComplex.
constexpr size_t kMaxPolyTerms = 512;

}  // namespace sf::sym
