// Rules for Max and Min: drop arguments that ranges, or the facts the RangeEnv knows, prove
// dominated.
#include <vector>

#include "engine/sym/make.h"
#include "engine/sym/simplify/simplify_internal.h"

namespace sf::sym::detail {

ExprRef Simplifier::minmax(const ExprRef& e) {
  bool is_max = e->is(ExprKind::kMax);
  // x is dominated (for Max) by y when y - x >= 0 over all ranges. When the two share no
  // symbol, the bound of y - x is the difference of their bounds, so compare those instead of
  // building y - x (most Max nodes are Max(1, size) of the contiguous strides).
  auto dominates = [&](const ExprRef& y, const ExprRef& x) {
    if (y->is_int() && x->is_int() && !shares_symbol(y, x)) {
      ValueRange by = bound(y), bx = bound(x);
      if (by.is_int() && bx.is_int()) {
        if (is_max ? by.lo() >= bx.hi() : bx.lo() >= by.hi()) return true;
        return env().has_facts() && env().fact_nonnegative(is_max ? sub(y, x) : sub(x, y));
      }
    }
    ExprRef diff = is_max ? sub(y, x) : sub(x, y);
    ValueRange d = bound(diff);
    if (d.is_float() ? d.flo() >= 0.0 : d.lo() >= ExtInt(0)) return true;
    return diff->is_int() && env().has_facts() && env().fact_nonnegative(diff);
  };
  std::vector<ExprRef> kept;
  for (const ExprRef& x : e->args()) {
    bool dominated = false;
    for (const ExprRef& y : kept) {
      if (dominates(y, x)) {
        dominated = true;
        break;
      }
    }
    if (dominated) continue;
    std::vector<ExprRef> next;
    for (const ExprRef& y : kept) {
      if (!dominates(x, y)) next.push_back(y);
    }
    next.push_back(x);
    kept = std::move(next);
  }
  if (kept.size() == e->num_args()) return e;
  ExprRef out = is_max ? max(kept) : min(kept);
  return fired(e->is_float() ? to_float(out) : out);  // never change the expression's type
}

}  // namespace sf::sym::detail
