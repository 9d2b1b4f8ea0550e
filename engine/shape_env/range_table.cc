// Range narrowing with the size-like upper-bound rule, and the size-oblivious reading.
#include "engine/shape_env/range_table.h"

#include "engine/base/check.h"
#include "engine/base/faults.h"
#include "engine/sym/bound.h"

namespace sf {

using sym::ExtInt;

ValueRange RangeTable::get(const ExprRef& s) const {
  auto it = range_of_.find(s.get());
  return it == range_of_.end() ? sym::unknown_range_of(s) : it->second.range;
}

const std::map<ExprRef, ValueRange, sym::ExprLess>& RangeTable::ranges() const {
  if (ordered_stale_) {
    ordered_.clear();
    for (const auto& [node, entry] : range_of_) ordered_.emplace(entry.symbol, entry.range);
    ordered_stale_ = false;
  }
  return ordered_;
}

bool RangeTable::narrow(const ExprRef& s, ValueRange vr) {
  SF_CHECK(s->is(sym::ExprKind::kSymbol)) << "range of non-symbol " << s->str();
  // Size-like symbols may never be learned to be 0/1: keep their upper bound at least 2.
  if (!vr.is_float() && is_size_like(s) && vr.hi() < ExtInt(2) &&
      !fault_on(Fault::kSizeLikeUpperBelowTwo)) {
    vr = ValueRange::ints(vr.lo(), ExtInt(2));
  }
  auto it = range_of_.find(s.get());
  if (it == range_of_.end()) {
    init(s, vr);
    return true;
  }
  ValueRange updated = it->second.range.intersect(vr);  // throws kValueRange when empty
  if (updated == it->second.range) return false;
  it->second.range = updated;
  ordered_stale_ = true;
  return true;
}

ValueRange RangeTable::size_oblivious(const ExprRef& s) const {
  ValueRange vr = get(s);
  if (is_size_like(s) && !vr.is_float()) {
    ExtInt lo = sym::ext_max(ExtInt(2), vr.lo());
    if (lo <= vr.hi()) return ValueRange::ints(lo, vr.hi());
  }
  return vr;
}

void RangeTable::restore_scope(const RangeTable& saved,
                               const std::function<bool(const ExprRef&)>& local) {
  RangeTable out = saved;
  for (const auto& [node, entry] : range_of_) {  // (any order: out is keyed by symbol)
    if (!local(entry.symbol)) continue;
    out.init(entry.symbol, entry.range);
    if (is_size_like(entry.symbol)) out.add_size_like(entry.symbol);
  }
  for (const auto& [i1, factor] : divisibility_factors_) {
    if (local(i1)) out.divisibility_factors_.insert_or_assign(i1, factor);
  }
  *this = std::move(out);
}

}  // namespace sf
