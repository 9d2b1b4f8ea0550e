// Difference constraints between atoms (y - x <= k), read off the relations the checks, guards
// and asserts made true and closed under transitivity, so simplification and static evaluation
// can use facts together: 0 <= u0, u0 <= u1, u1 <= n prove u0 <= n and Max(0, u1 - u0) = u1 - u0.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
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
  // Adds relations to the closed graph: each difference constraint that tightens a bound updates
  // every pair of atoms through it (O(atoms^2) per new edge, where closing again costs
  // O(atoms^3) and re-reading every relation O(relations)). The same answers as building the
  // graph of all the relations at once. Returns whether a bound changed (answers may differ).
  bool extend(const std::vector<std::pair<sym::ExprRef, bool>>& relations);
  // Whether a relation with this value can constrain the graph at all (most axioms bound one
  // symbol by a number, or are not differences of unit terms: those never do).
  static bool contributes(const sym::ExprRef& rel, bool value);

  // True when the facts, with the ranges of the atoms of d, prove d >= 0 for the integer
  // expression d; false when they do not (or contradict each other, where proving anything
  // would be vacuous).
  bool proves_nonnegative(const sym::ExprRef& d, const sym::RangeEnv& ranges) const;
  bool empty() const { return !has_edges_; }
  // Whether o closes the same facts (the answers of both are the same for the same ranges).
  bool same_facts(const FactGraph& o) const;
  // Whether s occurs in an atom of the graph: its range then takes part in the answers.
  bool mentions(const sym::ExprRef& s) const { return symbols_.count(s.get()) > 0; }
  bool mentions(const sym::Expr* s) const { return symbols_.count(s) > 0; }

 private:
  // Node 0 is the constant zero; atoms are numbered from 1.
  int node_of(const sym::ExprRef& atom);
  std::optional<int> find_node(const sym::ExprRef& atom) const;
  // to - from <= k.
  void constrain(int from, int to, int64_t k);
  // p >= 0 for a polynomial p of at most two unit terms: its difference constraint.
  void add_nonnegative(const sym::ExprRef& p);
  // The constraints a relation with its known value implies.
  void add_relation(const sym::ExprRef& rel, bool value);
  // Floyd–Warshall over every atom.
  void close_all();
  // Every pair through the edge from -> to of weight k, on a graph closed without it.
  void close_through(int from, int to, int64_t k);
  void check_consistency();

  std::unordered_map<sym::ExprRef, int, sym::ExprHash> index_;
  std::unordered_set<const sym::Expr*> symbols_;  // of the atoms (which keep them alive)
  std::vector<std::vector<std::optional<int64_t>>> dist_;
  // Edges constrain() tightened since the graph was last closed: (from, to, k).
  std::vector<std::tuple<int, int, int64_t>> new_edges_;
  bool has_edges_ = false;
  bool consistent_ = true;
  bool too_large_ = false;
};

}  // namespace sf
