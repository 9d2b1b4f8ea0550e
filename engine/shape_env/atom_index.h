// The fact graph's lookup tables, flat: atom -> node number, and the set of the atoms' symbols.
// A rebuild numbers every atom again, and node-based hash maps made that an allocation per atom.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/base/check.h"
#include "engine/sym/expr.h"

namespace sf {

// Node numbers of interned atoms, over the graph's own list of them (atoms[node]): each slot
// holds node + 1 (0: empty), so the table is 256 bytes, copied and compared as a block.
class AtomIndex {
 public:
  static constexpr size_t kMaxNodes = 128;  // well under the slots: short probes

  std::optional<int> find(const sym::Expr* atom, const std::vector<sym::ExprRef>& atoms) const {
    for (size_t s = atom->hash() & kMask;; s = (s + 1) & kMask) {
      if (slots_[s] == 0) return std::nullopt;
      if (atoms[slots_[s] - 1].get() == atom) return slots_[s] - 1;
    }
  }
  // Records that atom (not yet in the index) is node `node`.
  void insert(const sym::Expr* atom, int node) {
    SF_CHECK(node >= 0 && static_cast<size_t>(node) < kMaxNodes)
        << "an atom index of more than " << kMaxNodes << " nodes";
    size_t s = atom->hash() & kMask;
    while (slots_[s] != 0) s = (s + 1) & kMask;
    slots_[s] = static_cast<uint8_t>(node + 1);
  }

 private:
  static constexpr size_t kSlots = 256, kMask = kSlots - 1;
  std::array<uint8_t, kSlots> slots_{};
};

// A set of interned expressions by address (the symbols the graph's atoms mention): open
// addressing, grown at half full. The atoms keep the expressions alive.
class ExprPtrSet {
 public:
  bool contains(const sym::Expr* e) const {
    if (slots_.empty()) return false;
    for (size_t s = e->hash() & mask(); slots_[s]; s = (s + 1) & mask()) {
      if (slots_[s] == e) return true;
    }
    return false;
  }
  void insert(const sym::Expr* e) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    size_t s = e->hash() & mask();
    for (; slots_[s]; s = (s + 1) & mask()) {
      if (slots_[s] == e) return;
    }
    slots_[s] = e;
    ++size_;
  }
  size_t size() const { return size_; }
  void reserve(size_t n) {
    while (2 * n > slots_.size()) grow();
  }

 private:
  size_t mask() const { return slots_.size() - 1; }
  void grow() {
    std::vector<const sym::Expr*> old(slots_.empty() ? 32 : 2 * slots_.size(), nullptr);
    old.swap(slots_);
    size_ = 0;
    for (const sym::Expr* e : old) {
      if (e) insert(e);
    }
  }

  std::vector<const sym::Expr*> slots_;
  size_t size_ = 0;
};

}  // namespace sf
