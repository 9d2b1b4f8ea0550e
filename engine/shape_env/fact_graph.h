// Difference constraints between atoms (y - x <= k), read off the relations the checks, guards
// and asserts made true and closed under transitivity, so simplification and static evaluation
// can use facts together: 0 <= u0, u0 <= u1, u1 <= n prove u0 <= n and Max(0, u1 - u0) = u1 - u0.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/base/check.h"
#include "engine/shape_env/atom_index.h"
#include "engine/sym/bound.h"
#include "engine/sym/expr.h"
#include "engine/sym/small_vector.h"

namespace sf {

// The tightest proven bound of to - from for each pair of nodes, in one block: a new node
// widens the block by doubling its stride, not by one allocation per row. Each row and column
// keeps the set of its bounded cells, and only those are ever written or read: the graphs are
// sparse, so a block is never filled, and closing or querying one walks the sets, not rows.
// at() answers kNone where no bound is kept (bound() tells the two apart).
class DifferenceBounds {
 public:
  static constexpr int64_t kNone = INT64_MAX;
  static constexpr size_t kMaxNodes = 128;  // the sets' width (FactGraph stops at 97)
  using NodeSet = std::array<uint64_t, kMaxNodes / 64>;

  DifferenceBounds() = default;
  DifferenceBounds(const DifferenceBounds& o) { *this = o; }
  DifferenceBounds& operator=(const DifferenceBounds& o);
  DifferenceBounds(DifferenceBounds&& o) noexcept { *this = std::move(o); }
  DifferenceBounds& operator=(DifferenceBounds&& o) noexcept;  // o is left with no nodes

  size_t size() const { return n_; }
  bool bounded(size_t from, size_t to) const {
    return (bounded_from_[from][to / 64] >> (to % 64)) & 1;
  }
  int64_t at(size_t from, size_t to) const {
    return bounded(from, to) ? cells_[from * stride_ + to] : kNone;
  }
  std::optional<int64_t> bound(size_t from, size_t to) const {
    if (!bounded(from, to)) return std::nullopt;
    return cells_[from * stride_ + to];
  }
  // A bound for to - from.
  void set(size_t from, size_t to, int64_t b) {
    cells_[from * stride_ + to] = b;
    bounded_from_[from][to / 64] |= uint64_t{1} << (to % 64);
    bounded_to_[to][from / 64] |= uint64_t{1} << (from % 64);
  }
  // b as the bound for to - from where it is tighter than the one kept (or none is): whether
  // it was.
  bool tighten(size_t from, size_t to, int64_t b) {
    if (bounded(from, to) && cells_[from * stride_ + to] <= b) return false;
    set(from, to, b);
    return true;
  }
  // The nodes `from` has a bound to, and those with a bound to `to`.
  const NodeSet& bounded_from(size_t from) const { return bounded_from_[from]; }
  const NodeSet& bounded_to(size_t to) const { return bounded_to_[to]; }
  // One Floyd–Warshall step: every bounded pair i -> k -> j tightened through node k, with row
  // k as it was before the step (it changes in the step only when the bounds contradict
  // each other, which a negative diagonal then shows either way).
  void relax_through(size_t k);
  // A node bounded by nothing but itself (to - from = 0 on the diagonal).
  void add_node();
  void reserve(size_t n);  // room for n nodes without moving the block again
  bool operator==(const DifferenceBounds& o) const;

 private:
  // The bounds the sets name, from a block of the given stride into this one.
  void copy_bounds(const int64_t* cells, size_t stride);

  size_t n_ = 0, stride_ = 0;
  std::unique_ptr<int64_t[]> cells_;  // stride_ * stride_, written only where bounded
  std::vector<NodeSet> bounded_from_, bounded_to_;
};

// Calls f(node) for each node of the set, in increasing order.
template <typename F>
void for_each_node(const DifferenceBounds::NodeSet& nodes, F&& f) {
  for (size_t w = 0; w < nodes.size(); ++w) {
    for (uint64_t bits = nodes[w]; bits; bits &= bits - 1) {
      f(w * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
    }
  }
}

class FactGraph {
 public:
  // Beyond this many atoms the closure (cubic) is not built and nothing is proved.
  static constexpr size_t kMaxAtoms = 96;

  // An integer polynomial c + (at most two terms of coefficient +1 or -1).
  struct UnitPoly {
    int64_t constant = 0;
    sym::SmallVector<std::pair<sym::ExprRef, int>, 2> terms;  // (atom, +1 or -1)
  };
  // What each relation with its value makes nonnegative (nullopt: not a unit polynomial), read
  // once per relation: a rebuild reads the rewritten axioms again (and all of them after a
  // fact scope closes), and the polynomial arithmetic of reading one was most of a rebuild's
  // cost. Owned by whoever rebuilds the graph.
  class Forms {
   public:
    const std::vector<std::optional<UnitPoly>>& of(const sym::ExprRef& rel, bool value);

   private:
    std::unordered_map<sym::ExprRef, std::vector<std::optional<UnitPoly>>, sym::ExprHash>
        by_value_[2];
  };

  // The next relation for a build to read (nullopt: no more). A build stops asking at the atom
  // limit, so a caller can leave the relations after that point unprepared.
  using RelationSource = std::function<std::optional<std::pair<sym::ExprRef, bool>>()>;
  // The next relation for a rebuild: one to read, or (`replay`) the position, among those a
  // previous graph read, of one unchanged since, whose edges that graph kept.
  struct Read {
    sym::ExprRef rel;
    bool value = false;
    std::optional<size_t> replay;
  };
  using ReadSource = std::function<std::optional<Read>()>;

  FactGraph() = default;
  // `relations`: (relation in its current form, its known value).
  explicit FactGraph(const std::vector<std::pair<sym::ExprRef, bool>>& relations);
  FactGraph(const std::vector<std::pair<sym::ExprRef, bool>>& relations, Forms& forms);
  // The graph of the relations `next` yields, in order; the same graph as the vector's.
  FactGraph(const RelationSource& next, Forms& forms);
  // The same, with relations `before` read replayed from the edges it kept: a rebuild after a
  // few relations were rewritten reads those alone (the same graph as reading every one). Its
  // first `prefix` reads are before's first ones, taken as they are (`next` yields the rest):
  // a rebuild starts where the first rewritten relation was read.
  FactGraph(const ReadSource& next, Forms& forms, const FactGraph* before, size_t prefix = 0);
  // How many relations the builds and extend() calls of this graph read (positions to replay).
  size_t num_read() const { return reads_.size(); }
  // Whether the relation read at this position can be replayed: read in whole. A graph past the
  // atom limit stopped in its last read (and reads no more): those before it were read in whole.
  bool can_replay(size_t read) const { return read + (too_large_ ? 1 : 0) < reads_.size(); }
  // Whether the relation read at this position had a form with atoms (read_by_graph's answer
  // for it): a rebuild need not replay one that had none.
  bool read_atoms(size_t read) const {
    SF_CHECK(read < reads_.size()) << "no relation was read at " << read;
    return forms_end(read) > reads_[read];
  }
  // Adds relations to the closed graph: each difference constraint that tightens a bound updates
  // every pair of atoms through it (O(atoms^2) per new edge, where closing again costs
  // O(atoms^3) and re-reading every relation O(relations)). The same answers as building the
  // graph of all the relations at once. Returns whether a bound changed (answers may differ).
  bool extend(const std::vector<std::pair<sym::ExprRef, bool>>& relations, Forms& forms);
  // Whether a relation with this value can constrain the graph at all (most axioms bound one
  // symbol by a number, or are not differences of unit terms: those never do).
  static bool contributes(const sym::ExprRef& rel, bool value, Forms& forms);
  // Whether building a graph visits anything of the relation (an atom, or the atom limit):
  // a graph built from only these relations, in their order, is the graph of all of them.
  static bool read_by_graph(const sym::ExprRef& rel, bool value, Forms& forms);

  // True when the facts, with the ranges of the atoms of d, prove d >= 0 for the integer
  // expression d; false when they do not (or contradict each other, where proving anything
  // would be vacuous).
  bool proves_nonnegative(const sym::ExprRef& d, const sym::RangeEnv& ranges) const;
  // What they prove about b - a for integer b and a: the answers of proves_nonnegative for
  // b - a + k and a - b + k at every k, in one query, without building any of those.
  sym::FactBounds difference_bounds(const sym::ExprRef& b, const sym::ExprRef& a,
                                    const sym::RangeEnv& ranges) const;
  bool empty() const { return !has_edges_; }
  // Past the atom limit: the position, in the relations of the build or extend() that crossed
  // it, of the relation at which it stopped reading (later ones were never read).
  std::optional<size_t> stopped_at() const { return stopped_at_; }
  // Whether o closes the same facts (the answers of both are the same for the same ranges).
  bool same_facts(const FactGraph& o) const;
  // Whether s occurs in an atom of the graph: its range then takes part in the answers.
  bool mentions(const sym::ExprRef& s) const { return symbols_.contains(s.get()); }
  bool mentions(const sym::Expr* s) const { return symbols_.contains(s); }

 private:
  // Node 0 is the constant zero; atoms are numbered from 1.
  int node_of(const sym::ExprRef& atom);
  void add_zero();  // node 0
  std::optional<int> find_node(const sym::ExprRef& atom) const;
  // to - from <= k.
  void constrain(int from, int to, int64_t k);
  // Whether u >= 0 is a difference constraint the graph keeps: between two atoms, or between
  // an atom that is not a symbol and zero.
  static bool makes_edge(const UnitPoly& u);
  // p >= 0 for a unit polynomial p: its difference constraint.
  void add_nonnegative(const std::optional<UnitPoly>& p);
  // The best proven bounds of -(terms) (when `negated`) and of +(terms) (when `plain`) for the
  // terms of u, from the atoms' ranges and the paths between them.
  std::pair<std::optional<int64_t>, std::optional<int64_t>> bounds_of_terms(
      const UnitPoly& u, const sym::RangeEnv& ranges, bool negated, bool plain) const;
  // What reading one form of a relation did: its terms (the atom limit counts them) and the
  // edge it made, if any (from, to, k over this graph's nodes).
  struct FormRead {
    uint8_t terms = 0;
    bool has_edge = false;
    int from = 0, to = 0;
    int64_t k = 0;
  };
  // The constraints a relation with its known value implies.
  void add_relation(const sym::ExprRef& rel, bool value, Forms& forms);
  // The forms `before` read at position `read`, again: each passes the atom limit as it did,
  // and its edge joins the atoms it joined there (`nodes`: before's node -> this graph's).
  void replay(const FactGraph& before, size_t read, std::vector<int>& nodes);
  // Before's first `prefix` reads, with the atoms they numbered (`nodes` as replay's).
  void take_prefix(const FactGraph& before, size_t prefix, std::vector<int>& nodes);
  size_t forms_end(size_t read) const {
    return read + 1 < reads_.size() ? reads_[read + 1] : forms_read_.size();
  }
  // A form read: kept for replays, its edge constrained.
  void add_form(const FormRead& form);
  // Whether a form of this many terms fits under the atom limit; past it, the graph is too large.
  bool admit_terms(size_t terms);
  // Floyd–Warshall over every atom.
  void close_all();
  // Every pair through the edge from -> to of weight k, on a graph closed without it.
  void close_through(int from, int to, int64_t k);
  void check_consistency();

  std::vector<sym::ExprRef> atoms_;  // each atom at its number
  AtomIndex index_;                  // atoms_ inverted
  ExprPtrSet symbols_;               // of the atoms (which keep them alive)
  DifferenceBounds dist_;
  // Edges constrain() tightened since the graph was last closed: (from, to, k).
  std::vector<std::tuple<int, int, int64_t>> new_edges_;
  bool has_edges_ = false;
  bool consistent_ = true;
  bool too_large_ = false;
  std::optional<size_t> stopped_at_;
  bool numbering_ = false;  // a build reading its relations: atoms get numbers, no bounds yet
  // What each read relation did, for replays: reads_[i] is the first of its forms in forms_read_.
  std::vector<FormRead> forms_read_;
  std::vector<uint32_t> reads_;
};

}  // namespace sf
