// bound_expr: interval evaluation of an expression given the ranges of its symbols
// (PyTorch's bound_sympy), and the RangeEnv interface the simplifier consults.
#pragma once

#include <optional>
#include <unordered_map>
#include <utility>

#include "engine/sym/expr.h"
#include "engine/sym/interval.h"
#include "engine/sym/node_memo.h"

namespace sf::sym {

// Bounds recorded facts prove on an integer expression: lo <= it <= hi (absent: none).
struct FactBounds {
  std::optional<int64_t> lo, hi;
};

// What the simplifier may assume about symbols.
class RangeEnv {
 public:
  virtual ~RangeEnv() = default;
  // Sound range of a symbol; the default is the unknown range of its type.
  virtual ValueRange symbol_range(const ExprRef& sym) const;
  // True when Mod(a, b) == 0 is known (lets FloorDiv(a, b) become CleanDiv(a, b)).
  virtual bool known_divisible(const ExprRef& a, const ExprRef& b) const;
  // True when recorded facts (beyond the symbols' own ranges) prove the integer expression d
  // >= 0: relations between symbols that ranges cannot hold (u0 <= u1). None by default.
  virtual bool fact_nonnegative(const ExprRef& d) const;
  // What recorded facts prove about rhs - lhs of an integer relation (each bound as tight as
  // fact_nonnegative proves it, asked once for the relation). None by default.
  virtual FactBounds fact_bounds_of_difference(const ExprRef& rel) const;
  // False when there are no such facts (callers skip building the differences to ask about).
  virtual bool has_facts() const;
  // False when no such fact mentions a symbol of e: then the facts decide nothing about e that
  // its atoms' own ranges do not. By default, has_facts().
  virtual bool has_facts_about(const ExprRef& e) const;
};

// The unknown range of an expression's type.
ValueRange unknown_range_of(const ExprRef& e);

// A RangeEnv backed by a map (symbols not in the map are unknown).
class MapRangeEnv : public RangeEnv {
 public:
  std::unordered_map<ExprRef, ValueRange, ExprHash> ranges;
  ValueRange symbol_range(const ExprRef& sym) const override;
};

ValueRange bound_expr(const ExprRef& e, const RangeEnv& env);

// bound_expr's results for one RangeEnv, kept across calls: a caller that bounds every subtree
// of an expression (the simplifier does) would otherwise pay depth x size. The memo holds its
// expressions, so no key's address is reused while the memo lives.
using BoundMemo = NodeMemo<std::pair<ExprRef, ValueRange>>;
ValueRange bound_expr(const ExprRef& e, const RangeEnv& env, BoundMemo& memo);

}  // namespace sf::sym
