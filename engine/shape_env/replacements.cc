// Replacements: the single writer (spec §2.9) with range checks, find/replace with eager path
// compression (so static queries never write), cached simplification, renaming and elimination.
#include <cmath>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/make.h"
#include "engine/sym/numeric.h"
#include "engine/sym/poly.h"
#include "engine/sym/simplify.h"

namespace sf {

using sym::ExprKind;
using sym::ExtInt;

namespace {

// A Symbol, or a 2-argument Add/Mul of a supported equivalence and an Integer.
bool supported_equivalence(const ExprRef& e) {
  if (e->is(ExprKind::kSymbol)) return true;
  if ((e->is(ExprKind::kAdd) || e->is(ExprKind::kMul)) && e->num_args() == 2) {
    return e->arg(0)->is(ExprKind::kInteger) && supported_equivalence(e->arg(1));
  }
  return false;
}

ExtInt ceil_div(ExtInt a, int64_t c) {  // ceil(a / c) for c > 0
  if (!a.is_finite()) return a;
  int64_t q = 0;
  sym::py_floordiv(-a.value(), c, &q);
  return ExtInt(-q);
}

ExtInt floor_div(ExtInt a, int64_t c) {  // floor(a / c) for c > 0
  if (!a.is_finite()) return a;
  int64_t q = 0;
  sym::py_floordiv(a.value(), c, &q);
  return ExtInt(q);
}

}  // namespace

bool ShapeEnv::set_replacement(const ExprRef& a, const ExprRef& raw_tgt, const std::string& why) {
  Event ev{EventKind::kSetReplacement};
  ev.exprs = {a, raw_tgt};
  ev.strings = {why};
  EventScope scope(this, ev);
  SF_CHECK(a->is(ExprKind::kSymbol)) << "replacement for non-symbol " << a->str();
  ExprRef tgt = replace(raw_tgt);
  auto existing = replacements_.find(a);
  if (existing != replacements_.end() && existing->second == tgt) return true;
  if (sym::has_symbol(tgt, a)) return false;
  if (settings_.prefer_deferred_runtime_asserts_over_guards && !supported_equivalence(tgt)) {
    return false;
  }
  if (var_to_range_.count(a)) {
    ValueRange tgt_bound = bound(tgt);
    update_var_to_range(a, tgt_bound);  // a == tgt, so a lies in tgt's range: always sound
    ValueRange src_bound = var_range(a);
    std::vector<ExprRef> fs = sym::free_symbols(tgt);
    if (!tgt_bound.issubset(src_bound) && fs.size() == 1 && tgt->is_int()) {
      // Univariate and linear (tgt = c*b + k): refine b from a's range, rounding inward.
      const ExprRef& b = fs[0];
      sym::Poly p = sym::poly_of(tgt);
      if (p.terms.size() == 1 && p.terms[0].mono == b && !p.has_float()) {
        int64_t c = p.terms[0].coef.i, k = p.constant.i;
        ExtInt lo = src_bound.lo() - ExtInt(k), hi = src_bound.hi() - ExtInt(k);
        if (c < 0) {
          std::swap(lo, hi);
          lo = -lo;
          hi = -hi;
          c = -c;
        }
        ExtInt blo = ceil_div(lo, c), bhi = floor_div(hi, c);
        if (blo <= bhi) {
          update_var_to_range(b, ValueRange::ints(blo, bhi));
          tgt_bound = bound(tgt);
        }
      }
    }
    if (tgt->is(ExprKind::kSymbol)) {  // size-likeness crosses plain symbol equality only
      if (size_like_.count(a) && !size_like_.count(tgt)) {
        size_like_.insert(tgt);
        update_var_to_range(tgt, ValueRange::ints(0, ExtInt::pos_inf()));
      }
      if (size_like_.count(tgt) && !size_like_.count(a)) {
        size_like_.insert(a);
        update_var_to_range(a, ValueRange::ints(0, ExtInt::pos_inf()));
      }
    }
    if (!tgt_bound.issubset(var_range(a))) return false;
    if (size_like_.count(a)) {
      ValueRange so_tgt = bound(tgt, /*size_oblivious=*/true);
      ValueRange so_a = Ranges(*this, true).symbol_range(a);
      if (!so_tgt.issubset(so_a)) return false;
    }
  }
  replacements_[a] = tgt;
  replacement_reasons_.emplace(a, why);
  // Eager path compression: every target stays fully resolved, so find() is one lookup.
  sym::ExprMap subst{{a, tgt}};
  for (auto& [k, v] : replacements_) {
    if (k != a && sym::has_symbol(v, a)) v = sym::xreplace(v, subst);
  }
  on_state_change();
  return true;
}

ExprRef ShapeEnv::find(const ExprRef& s) const {
  auto it = replacements_.find(s);
  return it == replacements_.end() ? s : it->second;
}

ExprRef ShapeEnv::replace(const ExprRef& e) const {
  if (replacements_.empty() || e->is_ground()) return e;
  return sym::substitute_symbols(e, [this](const ExprRef& s) { return find(s); });
}

ExprRef ShapeEnv::simplify(const ExprRef& e, bool size_oblivious) const {
  if (e->is_ground()) return e;
  if (cached_generation_ != cache_generation_) {
    simplify_cache_[0].clear();
    simplify_cache_[1].clear();
    axiom_rewrites_.clear();
    cached_generation_ = cache_generation_;
  }
  auto& cache = simplify_cache_[size_oblivious ? 1 : 0];
  auto it = cache.find(e);
  if (it != cache.end()) return it->second;
  ExprRef out = sym::simplify(replace(e), Ranges(*this, size_oblivious));
  cache.emplace(e, out);
  return out;
}

void ShapeEnv::rename_unbacked_to(const ExprRef& orig, const ExprRef& dest) {
  Event ev{EventKind::kRenameUnbackedTo};
  ev.exprs = {orig, dest};
  EventScope scope(this, ev);
  SF_CHECK(orig->is_unbacked_symbol() && dest->is_unbacked_symbol())
      << "rename_unbacked_to(" << orig->str() << ", " << dest->str() << ") needs two unbacked symbols";
  auto old = replacements_.find(orig);
  std::optional<ExprRef> carried;
  if (old != replacements_.end()) carried = old->second;
  set_replacement(orig, dest, "rename_unbacked_to");
  unbacked_renamings_[orig] = dest;  // unconditional, even if the replacement was declined
  // The historical bug: the fresh symbol's replacement was clobbered. Carry it to the old name.
  if (carried && *carried != dest) set_replacement(dest, *carried, "rename_unbacked_to_dest");
  on_state_change();
}

void ShapeEnv::eliminate_unbacked(const ExprRef& orig, const ExprRef& dest) {
  Event ev{EventKind::kEliminateUnbacked};
  ev.exprs = {orig, dest};
  EventScope scope(this, ev);
  set_replacement(orig, dest, "eliminate_unbacked");
}

}  // namespace sf
