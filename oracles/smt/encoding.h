// Sym expressions as Z3 terms (only oracles/smt includes z3++.h): ints as Int, floats as Real,
// bools as Bool, with Python floor division and modulo, and a definedness condition per term
// (division or modulo by zero is undefined, as in engine/sym's evaluator).
#pragma once

#include <z3++.h>

#include <unordered_map>
#include <utility>

#include "engine/sym/expr.h"

namespace sf::smt {

struct Term {
  z3::expr value;
  z3::expr defined;  // Bool: the value is meaningful only where this holds
};

class Encoder {
 public:
  explicit Encoder(z3::context& ctx) : ctx_(ctx) {}
  Term encode(const sym::ExprRef& e);

 private:
  Term encode_uncached(const sym::ExprRef& e);
  z3::expr constant(const sym::ExprRef& s);
  Term real_constant(double x) const;
  z3::expr real(const z3::expr& x) const;     // Int or Bool coerced to Real
  z3::expr integer(const z3::expr& x) const;  // Bool coerced to Int
  z3::expr floordiv(const z3::expr& a, const z3::expr& b) const;

  z3::context& ctx_;
  // Keyed by node: expressions are hash-consed, and the ExprRef in the value keeps the key alive.
  std::unordered_map<const sym::Expr*, std::pair<sym::ExprRef, Term>> memo_;
};

}  // namespace sf::smt
