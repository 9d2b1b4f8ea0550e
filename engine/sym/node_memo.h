// A per-call memo keyed by node address, for the tree walkers: a flat vector searched linearly
// while small (most expressions have a handful of nodes, and a hash map allocated per call cost
// more than the walk), a hash map once it grows.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/sym/expr.h"

namespace sf::sym {

template <typename V>
class NodeMemo {
 public:
  // The value memoized for e, or null.
  V* find(const Expr* e) {
    if (!map_.empty()) {
      auto it = map_.find(e);
      return it == map_.end() ? nullptr : &it->second;
    }
    for (auto& [k, v] : flat_) {
      if (k == e) return &v;
    }
    return nullptr;
  }
  void emplace(const Expr* e, V v) {
    if (map_.empty() && flat_.size() < kFlatLimit) {
      flat_.emplace_back(e, std::move(v));
      return;
    }
    if (map_.empty()) {
      map_.reserve(2 * kFlatLimit);
      for (auto& [k, fv] : flat_) map_.emplace(k, std::move(fv));
      flat_.clear();
    }
    map_.emplace(e, std::move(v));
  }

 private:
  static constexpr size_t kFlatLimit = 16;
  std::vector<std::pair<const Expr*, V>> flat_;
  std::unordered_map<const Expr*, V> map_;
};

}  // namespace sf::sym
