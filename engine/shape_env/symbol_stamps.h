// When each symbol last changed in ways that change simplification (its range, replacement,
// size-likeness or a divisibility fact over it), so the ShapeEnv's caches can drop only what a
// change touches instead of everything on every range update.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/sym/expr.h"

namespace sf {

class SymbolStamps {
 public:
  // The stamp a result computed now carries.
  uint64_t now() const { return clock_; }
  // `s` changed: results that read it are stale.
  void touch(const sym::ExprRef& s) { changed_at_[s.get()] = ++clock_; }
  // True when none of `symbols` changed after `stamp`.
  bool unchanged_since(const std::vector<sym::ExprRef>& symbols, uint64_t stamp) const {
    if (stamp == clock_) return true;
    for (const sym::ExprRef& s : symbols) {
      auto it = changed_at_.find(s.get());
      if (it != changed_at_.end() && it->second > stamp) return false;
    }
    return true;
  }

 private:
  uint64_t clock_ = 0;
  // Symbols are interned and the ShapeEnv's tables keep them alive, so addresses are stable.
  std::unordered_map<const sym::Expr*, uint64_t> changed_at_;
};

}  // namespace sf
