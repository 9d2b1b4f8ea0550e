// Difference constraints between atoms (y - x <= k), read off the relations the checks, guards
// and asserts made true and closed under transitivity, so simplification and static evaluation
// can use facts together: 0 <= u0, u0 <= u1, u1 <= n prove u0 <= n and Max(0, u1 - u0) = u1 - u0.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/sym/bound.h"
#include "engine/sym/expr.h"

namespace sf {

class FactGraph {
 public:
  // Beyond this many atoms the closure (cubic) is not built and nothing is proved.
  static constexpr size_t kMaxAtoms = 96;

  FactGraph() = default;
  // `relations`: (relation in its current form, its known value).
  explicit FactGraph(const std::vector<std::pair<sym::ExprRef, bool>>& relations);

  // True when the facts, with the ranges of the atoms of d, prove d >= 0 for the integer
  // expression d; false when they do not (or contradict each other, where proving anything
  // would be vacuous).
  bool proves_nonnegative(const sym::ExprRef& d, const sym::RangeEnv& ranges) const;
  bool empty() const { return !has_edges_; }
  // Whether o closes the same facts (the answers of both are the same for the same ranges).
  bool same_facts(const FactGraph& o) const;
  // Whether s occurs in an atom of the graph: its range then takes part in the answers.
  bool mentions(const sym::ExprRef& s) const { return symbols_.count(s) > 0; }

 private:
  // Node 0 is the constant zero; atoms are numbered from 1.
  int node_of(const sym::ExprRef& atom);
  std::optional<int> find_node(const sym::ExprRef& atom) const;
  // to - from <= k.
  void constrain(int from, int to, int64_t k);
  // p >= 0 for a polynomial p of at most two unit terms: its difference constraint.
  void add_nonnegative(const sym::ExprRef& p);

  std::unordered_map<sym::ExprRef, int, sym::ExprHash> index_;
  std::unordered_set<sym::ExprRef, sym::ExprHash> symbols_;  // of the atoms
  std::vector<std::vector<std::optional<int64_t>>> dist_;
  bool has_edges_ = false;
  bool consistent_ = true;
  bool too_large_ = false;
};

}  // namespace sf
