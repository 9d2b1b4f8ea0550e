// Replacements: the single writer (spec §2.9) with range checks, find/replace with eager path
// compression (so static queries never write), cached simplification, renaming and elimination.
#include <cmath>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
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
  return recorded<event::SetReplacement>(std::tie(a, raw_tgt, why), [&]() -> bool {
    SF_CHECK(a->is(ExprKind::kSymbol)) << "replacement for non-symbol " << a->str();
    ExprRef tgt = replace(raw_tgt);
    if (std::optional<ExprRef> existing = replacements_.target(a)) {
      // a already stands for something: a == tgt means that something equals tgt (union-find);
      // overwriting would silently drop what earlier facts taught us about a.
      if (*existing != tgt) unify(*existing, tgt, why);
      return replace(a) == replace(tgt);
    }
    if (sym::has_symbol(tgt, a)) return false;
    if (settings_.prefer_deferred_runtime_asserts_over_guards && !supported_equivalence(tgt)) {
      return false;
    }
    if (ranges_.has(a)) {
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
      // Size-likeness crosses plain symbol equality only (judged on the target as given, before
      // it is resolved through existing replacements).
      const ExprRef& peer = raw_tgt->is(ExprKind::kSymbol) ? raw_tgt : tgt;
      if (peer->is(ExprKind::kSymbol) && peer->is_int()) {
        if (ranges_.is_size_like(a)) mark_size_like(peer);
        if (ranges_.is_size_like(peer)) mark_size_like(a);
      }
      if (!tgt_bound.issubset(var_range(a))) return false;
      if (ranges_.is_size_like(a)) {
        ValueRange so_tgt = bound(tgt, /*size_oblivious=*/true);
        ValueRange so_a = Ranges(*this, true).symbol_range(a);
        if (!so_tgt.issubset(so_a)) return false;
      }
    }
    install_replacement(a, tgt, why);
    return true;
  });
}

void ShapeEnv::install_replacement(const ExprRef& a, const ExprRef& tgt, const std::string& why) {
  std::vector<ExprRef> rewritten = replacements_.install(a, tgt, why);
  on_state_change();
  symbol_changed(a);
  for (const ExprRef& k : rewritten) symbol_changed(k);
  reindex_axioms_mentioning(a);
  // As upstream's write-back through _set_replacement: a shortened chain narrows the range.
  for (const ExprRef& k : rewritten) update_var_to_range(k, bound(replacements_.find(k)));
}

ExprRef ShapeEnv::find(const ExprRef& s) const { return replacements_.find(s); }

ExprRef ShapeEnv::replace(const ExprRef& e) const { return replacements_.replace(e); }

ExprRef ShapeEnv::simplify(const ExprRef& e, bool size_oblivious) const {
  if (e->is_ground()) return e;
  auto& cache = simplify_cache_[size_oblivious ? 1 : 0];
  auto it = cache.find(e);
  if (it != cache.end() && still_valid(it->second)) return it->second.out;
  ExprRef replaced = replace(e);
  Ranges ranges(*this, size_oblivious);
  Simplified entry{sym::simplify(replaced, ranges), stamps_.now(), sym::free_symbols(e),
                   state_changes_};
  if (ranges.consulted_facts()) entry.facts_version = facts_version();
  if (replaced != e) {
    for (const ExprRef& s : sym::free_symbols(replaced)) entry.read.push_back(s);
  }
  ExprRef out = entry.out;
  if (!size_oblivious && fact_scopes_.empty() && out != e) {
    CachedSimplification logged{e, false, out, state_changes_};
    if (simplification_log_.size() < kSimplificationLogSize) {
      simplification_log_.push_back(std::move(logged));
    } else {
      simplification_log_[simplification_log_next_] = std::move(logged);
      simplification_log_next_ = (simplification_log_next_ + 1) % kSimplificationLogSize;
    }
  }
  if (it != cache.end()) {
    it->second = std::move(entry);
  } else {
    cache.emplace(e, std::move(entry));
  }
  return out;
}

bool ShapeEnv::still_valid(const Simplified& entry) const {
  if (entry.facts_version && *entry.facts_version != facts_version()) return false;
  return stamps_.unchanged_since(entry.read, entry.stamp);
}

std::vector<ShapeEnv::CachedSimplification> ShapeEnv::cached_simplifications() const {
  std::vector<CachedSimplification> out;
  for (int so = 0; so < 2; ++so) {
    for (const auto& [e, entry] : simplify_cache_[so]) {
      if (!still_valid(entry)) continue;  // stale: never returned
      out.push_back({e, so == 1, entry.out, entry.changes_before});
    }
  }
  return out;
}

void ShapeEnv::symbol_changed(const ExprRef& s) {
  stamps_.touch(s);
  if (facts_.mentions(s)) ++facts_version_;  // answers through the facts read its range
}

void ShapeEnv::rename_unbacked_to(const ExprRef& orig, const ExprRef& dest) {
  return recorded<event::RenameUnbackedTo>(std::tie(orig, dest), [&]() -> void {
    SF_CHECK(orig->is_unbacked_symbol() && dest->is_unbacked_symbol())
        << "rename_unbacked_to(" << orig->str() << ", " << dest->str()
        << ") needs two unbacked symbols";
    std::optional<ExprRef> carried = replacements_.target(orig);
    if (fault_on(Fault::kRenameClobbersReplacement)) {  // #124394 part 3: orig -> dest, forced
      install_replacement(orig, dest, "rename_unbacked_to");
      replacements_.record_renaming(orig, dest);
      on_state_change();
      symbol_changed(orig);
      symbol_changed(dest);
      return;
    }
    // Upstream lets the range checks decline here and leaves renaming and replacement diverged
    // (INV-7 iii). The fresh symbol is the old one re-derived, so the equality is certain: unify.
    // The fault: the replacement is declined (as upstream's range checks may) and the renaming
    // is recorded anyway, so the two disagree.
    if (!fault_on(Fault::kRenameReplacementDeclined)) unify(orig, dest, "rename_unbacked_to");
    replacements_.record_renaming(orig, dest);  // unconditional, as upstream
    // The historical bug: the fresh symbol's replacement was clobbered. Carry it to the old name.
    if (carried && *carried != dest) unify(dest, *carried, "rename_unbacked_to_dest");
    on_state_change();
    symbol_changed(orig);
    symbol_changed(dest);
  });
}

void ShapeEnv::unify(const ExprRef& x, const ExprRef& y, const std::string& why) {
  ExprRef rx = replace(x), ry = replace(y);
  if (rx == ry) return;
  // Prefer replacing the symbol by the other side; force it if the range checks decline, after
  // narrowing the symbol's range to the other side's bound (which may expose a contradiction).
  // Replace an unbacked symbol before a backed one, and never a backed symbol by an expression
  // over unbacked symbols (guards must stay over backed symbols, INV-10).
  bool prefer_y = ry->is_unbacked_symbol() && !rx->is_unbacked_symbol();
  for (int attempt = 0; attempt < 2; ++attempt) {
    int side = prefer_y ? 1 - attempt : attempt;
    const ExprRef& s = side == 0 ? rx : ry;
    const ExprRef& t = side == 0 ? ry : rx;
    const ExprRef& t_raw = side == 0 ? y : x;  // as given, so size-likeness can cross symbols
    if (!s->is(ExprKind::kSymbol) || sym::has_symbol(t, s)) continue;
    if (s->is_backed_symbol() && sym::has_free_unbacked_symbols(t)) continue;
    if (set_replacement(s, t_raw, why)) return;
    // Forced: the ranges must still be compatible (without the size-like clamp hiding a
    // contradiction), and s's range is carried over to the symbols of its new target.
    ValueRange sr = var_range(s);
    sr.intersect(bound(t));  // throws kValueRange when the two sides cannot be equal
    install_replacement(s, replace(t), why + "_unify");
    if (sr.lo().is_finite()) refine_ranges(sym::le(sym::integer(sr.lo().value()), replace(s)));
    if (sr.hi().is_finite()) refine_ranges(sym::le(replace(s), sym::integer(sr.hi().value())));
    return;
  }
  // Two compound expressions: normalize the equation; if a side becomes a lone symbol
  // (Eq(5*u4, 5*u5) is Eq(u4, u5)), unify those; otherwise record the equality as a fact.
  ExprRef fact = sym::eq(rx, ry);
  ExprRef simple = simplify(fact);
  if (simple->is(ExprKind::kEq) &&
      (simple->arg(0)->is(ExprKind::kSymbol) || simple->arg(1)->is(ExprKind::kSymbol)) &&
      !(simple->arg(0) == rx && simple->arg(1) == ry) &&
      !(simple->arg(0) == ry && simple->arg(1) == rx)) {
    unify(simple->arg(0), simple->arg(1), why);
    return;
  }
  if (!guard_or_defer_runtime_assert(fact, why)) {
    throw_user_error(UserErrorKind::kValueRange, why + ": " + x->str() + " == " + y->str() +
                                                     " contradicts what is known (" + rx->str() +
                                                     " vs " + ry->str() + ")");
  }
}

void ShapeEnv::eliminate_unbacked(const ExprRef& orig, const ExprRef& dest) {
  return recorded<event::EliminateUnbacked>(
      std::tie(orig, dest), [&]() -> void { set_replacement(orig, dest, "eliminate_unbacked"); });
}

}  // namespace sf
