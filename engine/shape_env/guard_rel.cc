// Learning from relations known to hold (spec §2.13–§2.14): range refinement, replacements for
// trivially solvable equalities (never "time travel" to later unbacked symbols), divisibility.
#include <algorithm>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/make.h"
#include "engine/sym/numeric.h"
#include "engine/sym/poly.h"

namespace sf {

using sym::ExprKind;
using sym::ExtInt;

namespace {

// The coefficient of x when x occurs in `d` exactly once, as a plain degree-1 term.
bool linear_coefficient(const sym::Poly& d, const ExprRef& x, int64_t* coef) {
  bool found = false;
  for (const sym::Term& t : d.terms) {
    if (t.mono == x) {
      *coef = t.coef.i;
      found = true;
    } else if (sym::has_symbol(t.mono, x)) {
      return false;
    }
  }
  return found;
}

ExtInt ceil_div(ExtInt a, int64_t c) {  // c > 0
  if (!a.is_finite()) return a;
  int64_t q = 0;
  sym::py_floordiv(-a.value(), c, &q);
  return -ExtInt(q);
}

ExtInt floor_div(ExtInt a, int64_t c) {  // c > 0
  if (!a.is_finite()) return a;
  int64_t q = 0;
  sym::py_floordiv(a.value(), c, &q);
  return ExtInt(q);
}

}  // namespace

std::optional<ExprRef> ShapeEnv::solve_linear(const ExprRef& rel, const ExprRef& x) const {
  sym::Poly d = sym::poly_of(sym::relation_difference(rel));
  if (d.has_float()) return std::nullopt;
  int64_t c = 0;
  if (!linear_coefficient(d, x, &c) || c == 0) return std::nullopt;
  sym::Poly rest;
  rest.constant = d.constant;
  for (const sym::Term& t : d.terms) {
    if (t.mono == x) continue;
    if (t.coef.i % c != 0) return std::nullopt;  // solution would not be an integer polynomial
    rest.terms.push_back(sym::Term{t.mono, sym::Number::of(-t.coef.i / c)});
  }
  if (rest.constant.i % c != 0) return std::nullopt;
  rest.constant = sym::Number::of(-rest.constant.i / c);
  return sym::expr_of(rest);
}

void ShapeEnv::refine_ranges(const ExprRef& expr) {
  ExprRef e = simplify(expr);
  if (e->is(ExprKind::kBoolConst) && !e->bool_value()) {
    throw_user_error(UserErrorKind::kValueRange,
                     expr->str() + " is known to hold but is false for every allowed value");
  }
  if (!(e->is(ExprKind::kLe) || e->is(ExprKind::kEq))) return;
  sym::Poly d = sym::poly_of(sym::relation_difference(e));
  if (d.has_float()) return;
  for (const sym::Term& term : d.terms) {
    const ExprRef& x = term.mono;
    if (!x->is(ExprKind::kSymbol) || !x->is_int()) continue;
    int64_t c = 0;
    if (!linear_coefficient(d, x, &c)) continue;
    sym::Poly rest_poly = d;
    rest_poly.terms.erase(std::remove_if(rest_poly.terms.begin(), rest_poly.terms.end(),
                                         [&](const sym::Term& t) { return t.mono == x; }),
                          rest_poly.terms.end());
    ValueRange rr = bound(sym::expr_of(rest_poly));
    // c*x + rest >= 0 (Le) or == 0 (Eq), with rest in [rlo, rhi].
    ExtInt lo = ExtInt::neg_inf(), hi = ExtInt::pos_inf();
    if (c > 0) {
      if (!rr.hi().is_pos_inf()) lo = ceil_div(-rr.hi(), c);
      if (fault_on(Fault::kRefineRangesOffByOne) && !e->is(ExprKind::kEq) && lo.is_finite()) {
        lo = lo + ExtInt(1);
      }
      if (e->is(ExprKind::kEq) && !rr.lo().is_neg_inf()) hi = floor_div(-rr.lo(), c);
    } else {
      int64_t m = -c;
      if (!rr.hi().is_pos_inf()) hi = floor_div(rr.hi(), m);
      if (e->is(ExprKind::kEq) && !rr.lo().is_neg_inf()) lo = ceil_div(rr.lo(), m);
    }
    if (lo.is_neg_inf() && hi.is_pos_inf()) continue;
    if (hi < lo) {
      throw_user_error(UserErrorKind::kValueRange, expr->str() + " cannot hold: it needs " +
                                                       x->str() + " in [" + lo.str() + ", " +
                                                       hi.str() + "]");
    }
    std::optional<int64_t> hint = symbols_.hint(x);
    if (hint && !ValueRange::ints(lo, hi).contains(*hint)) {
      // A fact over data-dependent values that the example inputs already violate.
      throw_user_error(UserErrorKind::kValueRange,
                       expr->str() + " needs " + x->str() + " in [" + lo.str() + ", " + hi.str() +
                           "], but the input gives " + x->str() + " = " + std::to_string(*hint));
    }
    ValueRange before = var_range(x);
    update_var_to_range(x, ValueRange::ints(lo, hi));
    ValueRange after = var_range(x);
    if (after != before && after.is_singleton() && !replacements_.is_replaced(x)) {
      set_replacement(x, sym::integer(after.lo().value()), "range_refined_to_singleton");
    }
  }
}

void ShapeEnv::divisibility_rewrite(const ExprRef& m) {
  // Mod(c*i0, q) == 0 with numbers c, q and unbacked i0: i0 = d*i1 with d = q / gcd(q, c).
  const ExprRef& x = m->arg(0);
  const ExprRef& q = m->arg(1);
  if (!q->is(ExprKind::kInteger) || q->int_value() <= 0) return;
  sym::Poly p = sym::poly_of(x);
  if (p.terms.size() != 1 || !p.constant.is_zero()) return;
  const ExprRef& i0 = p.terms[0].mono;
  if (!is_unbacked_symint(i0) || replacements_.is_replaced(i0)) return;
  int64_t c = p.terms[0].coef.i;
  int64_t d = q->int_value() / sym::gcd_i64(q->int_value(), c);
  if (d <= 1) return;
  ExprRef i1 = new_unbacked_symbol(sym::SymKind::kUnbackedInt, false);  // enters pending
  ValueRange r0 = var_range(i0);
  ExtInt lo = ceil_div(r0.lo(), d), hi = floor_div(r0.hi(), d);
  if (lo > hi) lo = hi;
  update_var_to_range(i1, ValueRange::ints(lo, hi));
  if (std::optional<int64_t> real = symbols_.real_value(i0)) {
    int64_t v;
    sym::py_floordiv(*real, d, &v);
    symbols_.set_real_value(i1, v);
  }
  if (ranges_.is_size_like(i0)) mark_size_like(i1);
  ranges_.add_factor(i1, i0, d);
  set_replacement(i0, sym::mul(sym::integer(d), i1), "divisibility");
}

void ShapeEnv::maybe_guard_rel(const ExprRef& raw) {
  // Learn about the current representatives: facts stated over replaced symbols must not
  // re-replace them (that would drop what the existing replacement encodes).
  ExprRef expr = simplify(raw);
  if (expr->is(ExprKind::kAnd)) {
    for (const ExprRef& a : expr->args()) maybe_guard_rel(a);
    return;
  }
  if (!expr->is_relation() || expr->is(ExprKind::kNe)) return;
  std::vector<ExprRef> fs = sym::free_symbols(expr);
  if (fs.size() > 5) return;
  // Solve for the "newest" symbol: unbacked first (newest index first), then backed by hint.
  std::sort(fs.begin(), fs.end(), [this](const ExprRef& a, const ExprRef& b) {
    bool ba = is_backed(a), bb = is_backed(b);
    if (ba != bb) return !ba;
    if (ba) {
      int64_t ha = *symbols_.hint(a), hb = *symbols_.hint(b);
      if (ha != hb) return ha > hb;
    }
    return sym::compare(a, b) > 0;
  });
  refine_ranges(expr);
  if (!expr->is(ExprKind::kEq) || fs.empty()) return;
  const ExprRef& lhs = expr->arg(0);
  const ExprRef& rhs = expr->arg(1);
  if (!sym::contains_kind(expr, ExprKind::kMod)) {
    if (sym::contains_kind(expr, ExprKind::kFloorDiv)) return;
    auto non_input_unbacked = [this](const ExprRef& e) {
      for (const ExprRef& s : sym::free_unbacked_symbols(e)) {
        if (!symbols_.unbacked_inputs().count(s)) return true;
      }
      return false;
    };
    auto trivial = [&](const ExprRef& l, const ExprRef& r) {
      if (!l->is(ExprKind::kSymbol)) return false;
      if (l->is_unbacked_symbol() &&
          (!non_input_unbacked(r) || fault_on(Fault::kReplacementTimeTravel))) {
        return true;
      }
      return l->is_backed_symbol() && l->is_float();
    };
    if (trivial(lhs, rhs)) {
      set_replacement(lhs, find(rhs), "trivial_lhs");
    } else if (trivial(rhs, lhs)) {
      set_replacement(rhs, find(lhs), "trivial_rhs");
    } else if (std::optional<ExprRef> sol = solve_linear(expr, fs[0])) {
      if (!sym::has_free_unbacked_symbols(replace(*sol))) set_replacement(fs[0], *sol, "solve");
    }
    return;
  }
  // Mod(...) == 0: remember the divisibility; maybe rewrite the symbol as a multiple.
  const ExprRef* mod_atom = nullptr;
  if (lhs->is(ExprKind::kMod) && rhs->is(ExprKind::kInteger) && rhs->int_value() == 0) {
    mod_atom = &lhs;
  } else if (rhs->is(ExprKind::kMod) && lhs->is(ExprKind::kInteger) && lhs->int_value() == 0) {
    mod_atom = &rhs;
  }
  if (!mod_atom) return;
  if (!ranges_.add_divisible(*mod_atom)) {
    divisibility_rewrite(*mod_atom);
    return;
  }
  on_state_change();
  std::vector<ExprRef> symbols = sym::free_symbols(*mod_atom);
  // Every symbol first: re-simplifying the axioms must not read a stale cached simplification.
  for (const ExprRef& s : symbols) symbol_changed(s);
  // A rewrite i0 = d*i1 re-simplifies the axioms over i0 (which then mention i1 instead) with
  // the divisibility already known; doing it first spares simplifying those axioms twice.
  divisibility_rewrite(*mod_atom);
  // FloorDiv forms may now simplify to CleanDiv: refresh the axioms over the dividend's symbols.
  for (const ExprRef& s : symbols) reindex_axioms_mentioning(s);
}

}  // namespace sf
