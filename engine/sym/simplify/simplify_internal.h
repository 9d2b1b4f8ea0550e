// Internal to the simplifier: one Simplifier per call, with rules split by node family.
#pragma once

#include <optional>

#include "engine/sym/bound.h"
#include "engine/sym/expr.h"
#include "engine/sym/poly.h"
#include "engine/sym/simplify.h"

namespace sf::sym::detail {

SimplifyStats& mutable_stats();

class Simplifier {
 public:
  explicit Simplifier(const RangeEnv& env) : env_(env) {}
  // One bottom-up pass: children first, then the rule for the node's kind.
  ExprRef pass(const ExprRef& e);
  ExprRef apply_rule(const ExprRef& e);

  // Rules, each given a node whose children are already simplified (division.cc, min_max.cc,
  // relation.cc). They return the node itself when nothing applies.
  ExprRef floordiv(const ExprRef& e);
  ExprRef mod(const ExprRef& e);
  ExprRef minmax(const ExprRef& e);
  ExprRef relation(const ExprRef& e);
  // A relation ranges left open, decided by the RangeEnv's facts when they prove it.
  ExprRef by_facts(const ExprRef& e);
  ExprRef where(const ExprRef& e);
  ExprRef trunc_to_int(const ExprRef& e);
  ExprRef connective(const ExprRef& e);

  // Memoized for the whole call: every rule bounds its operands, so without the memo a
  // simplification would cost depth x size.
  ValueRange bound(const ExprRef& e) const { return bound_expr(e, env_, bounds_); }
  const RangeEnv& env() const { return env_; }
  ExprRef fired(const ExprRef& result) {
    ++mutable_stats().rules_fired;
    return result;
  }

 private:
  const RangeEnv& env_;
  mutable BoundMemo bounds_;
};

// True when a and b have a free symbol in common. When they have none, the bound of a - b is
// the difference of their bounds: the rules compare those instead of building a - b.
bool shares_symbol(const ExprRef& a, const ExprRef& b);

// a / b as polynomials when b is a single term dividing every term of a exactly.
std::optional<Poly> exact_divide(const Poly& a, const ExprRef& b);

}  // namespace sf::sym::detail
