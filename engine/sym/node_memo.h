// A per-call memo keyed by node address, for the tree walkers: an inline array searched
// linearly while small (most expressions have a handful of nodes, and a hash map allocated per
// call cost more than the walk), a hash map once it grows.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <new>
#include <unordered_map>
#include <utility>

#include "engine/sym/expr.h"

namespace sf::sym {

template <typename V>
class NodeMemo {
 public:
  NodeMemo() = default;
  NodeMemo(const NodeMemo&) = delete;
  NodeMemo& operator=(const NodeMemo&) = delete;
  // Only the slots in use hold values: a memo is made per walk, and constructing and destroying
  // every inline value (a range is tens of bytes) cost more than the walks it served.
  ~NodeMemo() { std::destroy(values(), values() + used_); }

  // The value memoized for e, or null.
  V* find(const Expr* e) {
    if (!map_.empty()) {
      auto it = map_.find(e);
      return it == map_.end() ? nullptr : &it->second;
    }
    for (size_t i = 0; i < used_; ++i) {
      if (keys_[i] == e) return &values()[i];
    }
    return nullptr;
  }
  void emplace(const Expr* e, V v) {
    if (map_.empty() && used_ < kInline) {
      keys_[used_] = e;
      new (values() + used_) V(std::move(v));
      ++used_;
      return;
    }
    if (map_.empty()) {
      map_.reserve(4 * kInline);
      for (size_t i = 0; i < used_; ++i) map_.emplace(keys_[i], std::move(values()[i]));
      std::destroy(values(), values() + used_);
      used_ = 0;
    }
    map_.emplace(e, std::move(v));
  }

 private:
  static constexpr size_t kInline = 16;
  V* values() { return std::launder(reinterpret_cast<V*>(storage_)); }
  size_t used_ = 0;
  std::array<const Expr*, kInline> keys_;
  alignas(V) unsigned char storage_[kInline * sizeof(V)];
  std::unordered_map<const Expr*, V> map_;
};

}  // namespace sf::sym
