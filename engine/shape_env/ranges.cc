// Value-range bookkeeping: size-like constraints, monotone range refinement, and the range view
// (optionally size-oblivious) that the simplifier consults (spec §1.4, §2.5).
#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/make.h"

namespace sf {

using sym::ExtInt;

void ShapeEnv::constrain_range_for_size(const ExprRef& s, std::optional<int64_t> min,
                                        std::optional<int64_t> max) {
  Event ev{EventKind::kConstrainRangeForSize};
  ev.exprs = {s};
  ev.ints = {min.value_or(0), max.value_or(0)};
  ev.flags = {min.has_value(), max.has_value()};
  EventScope scope(this, ev);
  if (!s->is(sym::ExprKind::kSymbol) || !s->is_int()) {
    throw_user_error(UserErrorKind::kValue,
                     "constrain_range_for_size expects an integer symbol, got " + s->str());
  }
  int64_t lo = min.value_or(0);
  ExtInt hi = max ? ExtInt(*max) : ExtInt::pos_inf();
  if (hi < ExtInt(lo)) {
    throw_user_error(UserErrorKind::kValue, "constrain_range_for_size(" + s->str() + "): max " +
                                                hi.str() + " < min " + std::to_string(lo));
  }
  constrain_symbol_range(s, lo, hi);
  mark_size_like(s);
}

bool ShapeEnv::mark_size_like(const ExprRef& s) {
  if (size_like_.count(s)) return true;
  // Size-likeness is only advice for size-oblivious reasoning ("assume >= 2"). Upstream marks a
  // symbol even when its range is [0, 0] or [0, 1], where that reasoning is skipped anyway; we do
  // not, so every size-like symbol keeps an upper bound >= 2 (INV-9b) while ranges only shrink.
  if (var_range(s).hi() < ExtInt(2)) return false;
  update_var_to_range(s, ValueRange::ints(0, ExtInt::pos_inf()));
  size_like_.insert(s);
  on_state_change();
  return true;
}

void ShapeEnv::constrain_symbol_range(const ExprRef& s, ExtInt min, ExtInt max) {
  Event ev{EventKind::kConstrainSymbolRange};
  ev.exprs = {s};
  ev.ints = {min.is_finite() ? min.value() : 0, max.is_finite() ? max.value() : 0};
  ev.flags = {!min.is_finite(), !max.is_finite()};
  EventScope scope(this, ev);
  if (max < min) {
    throw_user_error(UserErrorKind::kValue, "constrain_symbol_range(" + s->str() + "): max " +
                                                max.str() + " < min " + min.str());
  }
  update_var_to_range(s, ValueRange::ints(min, max));
}

void ShapeEnv::update_var_to_range(const ExprRef& s, ValueRange vr, bool is_constraint) {
  SF_CHECK(s->is(sym::ExprKind::kSymbol)) << "range of non-symbol " << s->str();
  // Size-like symbols may never be learned to be 0/1: keep their upper bound at least 2.
  if (!vr.is_float() && size_like_.count(s) && vr.hi() < ExtInt(2)) {
    vr = ValueRange::ints(vr.lo(), ExtInt(2));
  }
  auto it = var_to_range_.find(s);
  if (it == var_to_range_.end()) {
    var_to_range_.emplace(s, vr);
    on_state_change();
  } else {
    ValueRange updated = it->second.intersect(vr);  // throws kValueRange when empty
    if (updated != it->second) {
      it->second = updated;
      on_state_change();
    }
  }
  // A replaced symbol stands for its target: carry the new bounds over to the target's symbols,
  // or the knowledge is lost as soon as expressions are replaced.
  auto rep = replacements_.find(s);
  if (rep != replacements_.end() && !rep->second->is_ground() && rep->second->is_int()) {
    ExprRef target = rep->second;
    const ValueRange& now = var_to_range_.at(s);
    if (now.lo().is_finite()) refine_ranges(sym::le(sym::integer(now.lo().value()), target));
    if (now.hi().is_finite()) refine_ranges(sym::le(target, sym::integer(now.hi().value())));
  }
  auto hint = var_to_val_.find(s);
  if (hint != var_to_val_.end() && !is_constraint) {
    SF_CHECK(var_to_range_.at(s).contains(hint->second))
        << "hint " << hint->second << " of " << s->str() << " outside its range "
        << var_to_range_.at(s).str();
  }
}

ValueRange ShapeEnv::var_range(const ExprRef& s) const {
  auto it = var_to_range_.find(s);
  return it == var_to_range_.end() ? sym::unknown_range_of(s) : it->second;
}

ValueRange ShapeEnv::Ranges::symbol_range(const ExprRef& s) const {
  ValueRange vr = env_.var_range(s);
  if (size_oblivious_ && env_.is_size_like(s) && !vr.is_float()) {
    // Size-oblivious reasoning: a size-like symbol is assumed to be at least 2.
    ExtInt lo = sym::ext_max(ExtInt(2), vr.lo());
    if (lo <= vr.hi()) return ValueRange::ints(lo, vr.hi());
  }
  return vr;
}

bool ShapeEnv::Ranges::known_divisible(const ExprRef& a, const ExprRef& b) const {
  if (env_.divisible_.empty()) return false;
  return env_.divisible_.count(sym::mod(a, b)) > 0;
}

ValueRange ShapeEnv::bound(const ExprRef& e, bool size_oblivious) const {
  return sym::bound_expr(replace(e), Ranges(*this, size_oblivious));
}

}  // namespace sf
