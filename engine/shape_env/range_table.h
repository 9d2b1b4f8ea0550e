// ShapeEnv part: value ranges. Each symbol's range (only ever narrowed), which symbols are
// size-like, and the divisibility facts Mod(a, b) == 0 with the factor symbols they introduced
// (spec §1.4, §2.5). Carrying a narrowed range on to a replacement target is the facade's job.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "engine/sym/expr.h"
#include "engine/sym/interval.h"

namespace sf {

using sym::ExprRef;
using sym::ValueRange;

class RangeTable {
 public:
  // The symbol's range, or the unknown range of its kind when none was recorded.
  ValueRange get(const ExprRef& s) const;
  bool has(const ExprRef& s) const { return range_of_.count(s.get()) > 0; }
  size_t size() const { return range_of_.size(); }
  // Records vr for a new symbol, or intersects it into the existing range (an empty result
  // raises UserError(kValueRange)). A size-like int symbol keeps an upper bound >= 2, so
  // size-oblivious reasoning stays applicable. Returns whether the range changed.
  bool narrow(const ExprRef& s, ValueRange vr);
  // The initial range of a symbol just created (replaces any range recorded for it before).
  void init(const ExprRef& s, ValueRange vr) {
    range_of_.insert_or_assign(s.get(), Entry{s, vr});
    ordered_stale_ = true;
  }
  // A size-like symbol is read as >= 2 by size-oblivious reasoning.
  ValueRange size_oblivious(const ExprRef& s) const;

  bool is_size_like(const ExprRef& s) const { return size_like_ptrs_.count(s.get()) > 0; }
  void add_size_like(const ExprRef& s) {
    size_like_.insert(s);
    size_like_ptrs_.insert(s.get());
  }
  // Mod(a, b) == 0 is known (the Mod atom as the simplifier spells it). Returns whether new.
  bool add_divisible(const ExprRef& mod_atom) {
    divisible_ptrs_.insert(mod_atom.get());
    return divisible_.insert(mod_atom).second;
  }
  bool is_divisible(const ExprRef& mod_atom) const {
    return divisible_ptrs_.count(mod_atom.get()) > 0;
  }
  bool any_divisible() const { return !divisible_.empty(); }
  // i1 was made for i0 == d * i1 (the divisibility rewrite).
  void add_factor(const ExprRef& i1, const ExprRef& i0, int64_t d) {
    divisibility_factors_.emplace(i1, std::make_pair(i0, d));
  }

  // Closing a fact scope: `saved` again (this table as the scope opened), except for the symbols
  // `local` to the scope, which keep their entries as they are now (their ranges, size-likeness
  // and divisibility factors).
  void restore_scope(const RangeTable& saved, const std::function<bool(const ExprRef&)>& local);
  // Read-only views. The ranges in symbol order are built when asked for after a change.
  const std::map<ExprRef, ValueRange, sym::ExprLess>& ranges() const;
  // Each symbol with its range, in no particular order.
  template <typename F>
  void for_each_range(F&& f) const {
    for (const auto& [node, entry] : range_of_) f(entry.symbol, entry.range);
  }
  const std::set<ExprRef, sym::ExprLess>& size_like() const { return size_like_; }
  const std::set<ExprRef, sym::ExprLess>& divisible() const { return divisible_; }
  const std::map<ExprRef, std::pair<ExprRef, int64_t>, sym::ExprLess>& factors() const {
    return divisibility_factors_;
  }

 private:
  // Each symbol's range by node address (nodes are interned, so the address is the structure):
  // lookups without structural comparisons. An ordered map updated on every narrowing (a
  // dozen structural comparisons over cold nodes each) cost 4% of a 10,000-operation trace's
  // instructions, and more of its time.
  struct Entry {
    ExprRef symbol;  // keeps the node, and so the address, alive
    ValueRange range;
  };
  std::unordered_map<const sym::Expr*, Entry> range_of_;
  mutable std::map<ExprRef, ValueRange, sym::ExprLess> ordered_;  // ranges(), when not stale
  mutable bool ordered_stale_ = false;
  std::set<ExprRef, sym::ExprLess> size_like_;
  std::set<ExprRef, sym::ExprLess> divisible_;
  std::map<ExprRef, std::pair<ExprRef, int64_t>, sym::ExprLess> divisibility_factors_;
  // The sets by node address, likewise. The ordered containers keep printing deterministic.
  std::unordered_set<const sym::Expr*> size_like_ptrs_, divisible_ptrs_;
};

}  // namespace sf
