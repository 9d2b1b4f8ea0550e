// Rules for relations, connectives and Piecewise: decide by the range of the canonical
// difference (rhs - lhs), which cancels shared terms that interval arithmetic cannot.
#include "engine/sym/make.h"
#include "engine/sym/simplify/simplify_internal.h"

namespace sf::sym::detail {

ExprRef Simplifier::relation(const ExprRef& e) {
  const ExprRef &lhs = e->arg(0), &rhs = e->arg(1);
  ValueRange d = lhs->is_int() && rhs->is_int() && !shares_symbol(lhs, rhs)
                     ? vr_add(bound(rhs), vr_neg(bound(lhs)))
                     : bound(relation_difference(e));
  bool is_float = d.is_float();
  double flo = d.flo(), fhi = d.fhi();
  auto decided = [&](bool v) { return fired(boolean(v)); };
  switch (e->kind()) {
    case ExprKind::kLe:
      if (flo >= 0) return decided(true);
      if (fhi < 0) return decided(false);
      break;
    case ExprKind::kLt:
      if (flo > 0) return decided(true);
      if (fhi <= 0) return decided(false);
      break;
    case ExprKind::kEq:
    case ExprKind::kNe: {
      bool is_eq = e->is(ExprKind::kEq);
      if (d.is_singleton() && flo == 0) return decided(is_eq);
      if (is_float ? !d.contains_float(0.0) : !d.contains(0)) return decided(!is_eq);
      break;
    }
    case ExprKind::kInteger:
    case ExprKind::kFloat:
    case ExprKind::kBoolConst:
    case ExprKind::kSymbol:
    case ExprKind::kAdd:
    case ExprKind::kMul:
    case ExprKind::kPow:
    case ExprKind::kFloorDiv:
    case ExprKind::kMod:
    case ExprKind::kCleanDiv:
    case ExprKind::kMax:
    case ExprKind::kMin:
    case ExprKind::kWhere:
    case ExprKind::kToFloat:
    case ExprKind::kTruncToInt:
    case ExprKind::kTrueDiv:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
      break;
  }
  return by_facts(e);
}

ExprRef Simplifier::by_facts(const ExprRef& e) {
  // Ranges left it open: the facts may decide it (over the integers, with d = rhs - lhs, a <= b
  // is d >= 0 and its negation d <= -1; a < b is d >= 1 and its negation d <= 0).
  // Facts that mention none of its symbols relate none of its atoms: the atoms' own ranges,
  // which left it open, are all they could use.
  if (!e->arg(0)->is_int() || !e->arg(1)->is_int() || !env().has_facts_about(e)) return e;
  FactBounds d = env().fact_bounds_of_difference(e);
  auto at_least = [&](int64_t k) { return d.lo && *d.lo >= k; };
  auto at_most = [&](int64_t k) { return d.hi && *d.hi <= k; };
  if (e->is(ExprKind::kLe)) {
    if (at_least(0)) return fired(boolean(true));
    if (at_most(-1)) return fired(boolean(false));
  } else if (e->is(ExprKind::kLt)) {
    if (at_least(1)) return fired(boolean(true));
    if (at_most(0)) return fired(boolean(false));
  } else {
    bool is_eq = e->is(ExprKind::kEq);
    if (at_least(0) && at_most(0)) return fired(boolean(is_eq));
    if (at_least(1) || at_most(-1)) return fired(boolean(!is_eq));
  }
  return e;
}

ExprRef Simplifier::connective(const ExprRef& e) {
  ValueRange r = bound(e);
  if (r.is_singleton()) return fired(boolean(r.can_be_true()));
  return e;
}

ExprRef Simplifier::where(const ExprRef& e) {
  ValueRange c = bound(e->arg(0));
  auto keep_type = [&](const ExprRef& x) { return e->is_float() ? to_float(x) : x; };
  if (!c.can_be_false()) return fired(keep_type(e->arg(1)));
  if (!c.can_be_true()) return fired(keep_type(e->arg(2)));
  return e;
}

}  // namespace sf::sym::detail
