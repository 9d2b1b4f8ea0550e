// Builds the difference-constraint graph of the known relations and closes it (Floyd–Warshall);
// a query is then a lookup of the tightest proven bound between two atoms.
#include "engine/shape_env/fact_graph.h"

#include <algorithm>

#include "engine/sym/make.h"
#include "engine/sym/poly.h"
#include "engine/sym/walk.h"

namespace sf {

namespace {

using sym::ExprKind;
using sym::ExprRef;

std::optional<int64_t> checked_add(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b) return std::nullopt;
  int64_t out;
  if (__builtin_add_overflow(*a, *b, &out)) return std::nullopt;  // no tighter bound than none
  return out;
}

using UnitPoly = FactGraph::UnitPoly;

std::optional<UnitPoly> unit_poly(const sym::Poly& p) {
  if (p.has_float() || p.constant.is_float || p.terms.size() > 2) return std::nullopt;
  UnitPoly out{p.constant.i, {}};
  for (const sym::Term& t : p.terms) {
    if (t.coef.is_float || (t.coef.i != 1 && t.coef.i != -1)) return std::nullopt;
    out.terms.emplace_back(t.mono, static_cast<int>(t.coef.i));
  }
  return out;
}

// The polynomial of an integer expression when it is a unit polynomial; nullopt otherwise.
std::optional<UnitPoly> unit_poly(const ExprRef& e) {
  if (!e->is_int()) return std::nullopt;
  return unit_poly(sym::poly_of(e));
}

// b - a - minus for integer b and a, as a unit polynomial: sym::sub's arithmetic, without
// building (and interning) the difference.
std::optional<UnitPoly> unit_difference(const ExprRef& b, const ExprRef& a, int64_t minus) {
  sym::Poly p =
      sym::poly_add(sym::poly_of(b), sym::poly_scale(sym::poly_of(a), sym::Number::of(-1)));
  p.constant = p.constant + sym::Number::of(-minus);
  return unit_poly(p);
}

// Whether the relation says nothing the graph keeps, before any polynomial arithmetic: it is
// not an integer relation, or it bounds one symbol by a number (most axioms: the range's job).
bool says_nothing(const ExprRef& rel) {
  if (!rel->is_relation() || !rel->arg(0)->is_int() || !rel->arg(1)->is_int()) return true;
  const ExprRef &a = rel->arg(0), &b = rel->arg(1);
  return (a->is_number() && b->is(ExprKind::kSymbol)) ||
         (b->is_number() && a->is(ExprKind::kSymbol));
}

}  // namespace

const std::vector<std::optional<UnitPoly>>& FactGraph::Forms::of(const ExprRef& rel, bool value) {
  auto found = by_value_[value].find(rel);
  if (found != by_value_[value].end()) return found->second;
  // Each relation as the expressions it makes nonnegative (over the integers, a < b is
  // b - a - 1 >= 0 and not(a <= b) is a - b - 1 >= 0). Computed before it is stored: the
  // arithmetic may throw (overflow).
  std::vector<std::optional<UnitPoly>> out;
  const ExprRef &a = rel->arg(0), &b = rel->arg(1);
  if (rel->is(ExprKind::kLe)) {
    out.push_back(value ? unit_difference(b, a, 0) : unit_difference(a, b, 1));
  } else if (rel->is(ExprKind::kLt)) {
    out.push_back(value ? unit_difference(b, a, 1) : unit_difference(a, b, 0));
  } else if (value == rel->is(ExprKind::kEq)) {  // Eq true or Ne false
    out.push_back(unit_difference(b, a, 0));
    out.push_back(unit_difference(a, b, 0));
  }
  return by_value_[value].emplace(rel, std::move(out)).first->second;
}

void DifferenceBounds::add_node() {
  if (n_ == stride_) reserve(std::max<size_t>(8, 2 * stride_));
  at(n_, n_) = 0;
  ++n_;
}

void DifferenceBounds::reserve(size_t n) {
  if (n <= stride_) return;
  std::vector<std::optional<int64_t>> cells(n * n);
  for (size_t i = 0; i < n_; ++i) {
    std::copy_n(cells_.begin() + i * stride_, n_, cells.begin() + i * n);
  }
  cells_ = std::move(cells);
  stride_ = n;
}

bool DifferenceBounds::operator==(const DifferenceBounds& o) const {
  if (n_ != o.n_) return false;
  for (size_t i = 0; i < n_; ++i) {
    for (size_t j = 0; j < n_; ++j) {
      if (at(i, j) != o.at(i, j)) return false;
    }
  }
  return true;
}

FactGraph::FactGraph(const std::vector<std::pair<ExprRef, bool>>& relations) {
  Forms forms;
  *this = FactGraph(relations, forms);
}

FactGraph::FactGraph(const std::vector<std::pair<ExprRef, bool>>& relations, Forms& forms)
    : FactGraph(
          [&relations, i = size_t{0}]() mutable -> std::optional<std::pair<ExprRef, bool>> {
            if (i == relations.size()) return std::nullopt;
            return relations[i++];
          },
          forms) {}

FactGraph::FactGraph(const RelationSource& next, Forms& forms) {
  // The atoms first, alone: a graph past the atom limit (most of them, late in a long trace)
  // proves nothing and is never laid out, and one within it is laid out once, at its size.
  add_zero();
  numbering_ = true;
  std::vector<std::pair<ExprRef, bool>> read;
  while (!too_large_) {
    std::optional<std::pair<ExprRef, bool>> relation = next();
    if (!relation) break;
    add_relation(relation->first, relation->second, forms);
    if (too_large_) stopped_at_ = read.size();
    read.push_back(std::move(*relation));
  }
  numbering_ = false;
  if (!has_edges_ || too_large_) {
    if (!too_large_) dist_.add_node();  // zero alone, as extend() expects
    has_edges_ = false;
    return;
  }
  dist_.reserve(index_.size());
  for (size_t i = 0; i < index_.size(); ++i) dist_.add_node();
  laying_out_ = true;
  for (const auto& [rel, value] : read) add_relation(rel, value, forms);
  laying_out_ = false;
  new_edges_.clear();
  close_all();
  check_consistency();
}

bool FactGraph::extend(const std::vector<std::pair<ExprRef, bool>>& relations, Forms& forms) {
  if (too_large_) return false;  // proves nothing, now as with more relations
  if (index_.empty()) {
    add_zero();
    dist_.add_node();
  }
  bool had_edges = has_edges_;
  for (size_t i = 0; i < relations.size() && !too_large_; ++i) {
    add_relation(relations[i].first, relations[i].second, forms);
    if (too_large_) stopped_at_ = i;
  }
  if (too_large_) {
    new_edges_.clear();
    has_edges_ = false;
    return had_edges;
  }
  if (new_edges_.empty()) return false;
  for (const auto& [from, to, k] : new_edges_) close_through(from, to, k);
  new_edges_.clear();
  check_consistency();
  return true;
}

bool FactGraph::contributes(const ExprRef& rel, bool value, Forms& forms) {
  if (says_nothing(rel)) return false;
  FactGraph probe;
  probe.add_zero();
  probe.dist_.add_node();
  probe.add_relation(rel, value, forms);
  return probe.has_edges_;
}

bool FactGraph::read_by_graph(const ExprRef& rel, bool value, Forms& forms) {
  if (says_nothing(rel)) return false;
  for (const std::optional<UnitPoly>& p : forms.of(rel, value)) {
    if (p && !p->terms.empty()) return true;
  }
  return false;
}

void FactGraph::add_relation(const ExprRef& rel, bool value, Forms& forms) {
  if (says_nothing(rel)) return;
  for (const std::optional<UnitPoly>& p : forms.of(rel, value)) add_nonnegative(p);
}

void FactGraph::close_all() {
  size_t n = dist_.size();
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < n; ++i) {
      if (!dist_.at(i, k)) continue;
      for (size_t j = 0; j < n; ++j) {
        std::optional<int64_t> via = checked_add(dist_.at(i, k), dist_.at(k, j));
        if (via && (!dist_.at(i, j) || *via < *dist_.at(i, j))) dist_.at(i, j) = via;
      }
    }
  }
}

void FactGraph::close_through(int from, int to, int64_t k) {
  // a -> from -> to -> b, with the distances as they were before this edge (copies: a path
  // through the edge twice is no shorter unless the facts contradict each other).
  size_t n = dist_.size();
  std::vector<std::optional<int64_t>> into_from(n), out_of_to(n);
  for (size_t a = 0; a < n; ++a) {
    into_from[a] = dist_.at(a, from);
    out_of_to[a] = dist_.at(to, a);
  }
  for (size_t a = 0; a < n; ++a) {
    std::optional<int64_t> head = checked_add(into_from[a], k);
    if (!head) continue;
    for (size_t b = 0; b < n; ++b) {
      std::optional<int64_t> via = checked_add(head, out_of_to[b]);
      if (via && (!dist_.at(a, b) || *via < *dist_.at(a, b))) dist_.at(a, b) = via;
    }
  }
}

void FactGraph::check_consistency() {
  for (size_t i = 0; i < dist_.size(); ++i) {
    if (dist_.at(i, i) && *dist_.at(i, i) < 0) consistent_ = false;  // contradictory facts
  }
}

void FactGraph::add_zero() {
  index_.emplace(sym::integer(0), 0);
  atoms_.push_back(sym::integer(0));
}

int FactGraph::node_of(const ExprRef& atom) {
  auto it = index_.find(atom);
  if (it != index_.end()) return it->second;
  int id = static_cast<int>(index_.size());
  index_.emplace(atom, id);
  atoms_.push_back(atom);
  for (const ExprRef& s : sym::free_symbols(atom)) symbols_.insert(s.get());
  if (!numbering_) dist_.add_node();
  return id;
}

std::optional<int> FactGraph::find_node(const ExprRef& atom) const {
  auto it = index_.find(atom);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

void FactGraph::constrain(int from, int to, int64_t k) {
  if (numbering_) return;
  std::optional<int64_t>& d = dist_.at(from, to);
  if (d && *d <= k) return;
  d = k;
  new_edges_.emplace_back(from, to, k);
}

void FactGraph::add_nonnegative(const std::optional<UnitPoly>& u) {
  if (!u || u->terms.empty()) return;
  // (In a build's second pass every atom is numbered already: the first pass checked this.)
  if (!laying_out_ && index_.size() + u->terms.size() > kMaxAtoms + 1) {
    too_large_ = true;
    return;
  }
  const int64_t c = u->constant;
  if (u->terms.size() == 1) {
    // A bound on one symbol is its range's business (the checks refine ranges), so the graph,
    // and with it the answers that read it, changes only with relations between atoms.
    if (u->terms[0].first->is(ExprKind::kSymbol)) return;
    int x = node_of(u->terms[0].first);
    // x + c >= 0: 0 - x <= c;  -x + c >= 0: x - 0 <= c.
    if (u->terms[0].second > 0) {
      constrain(x, 0, c);
    } else {
      constrain(0, x, c);
    }
  } else {
    if (u->terms[0].second == u->terms[1].second) return;  // x + y >= c: not a difference
    bool first_positive = u->terms[0].second > 0;
    int x = node_of(u->terms[first_positive ? 0 : 1].first);
    int y = node_of(u->terms[first_positive ? 1 : 0].first);
    constrain(x, y, c);  // x - y + c >= 0: y - x <= c
  }
  has_edges_ = true;
}

bool FactGraph::proves_nonnegative(const ExprRef& d, const sym::RangeEnv& ranges) const {
  if (!has_edges_ || !consistent_) return false;
  std::optional<UnitPoly> u = unit_poly(d);
  if (!u) return false;
  if (u->terms.empty()) return u->constant >= 0;
  // d = c + terms >= 0 holds when -(terms) <= c.
  std::optional<int64_t> bound = bounds_of_terms(*u, ranges, /*negated=*/true, false).first;
  return bound && *bound <= u->constant;
}

sym::FactBounds FactGraph::difference_bounds(const ExprRef& b, const ExprRef& a,
                                             const sym::RangeEnv& ranges) const {
  if (!has_edges_ || !consistent_) return {};
  std::optional<UnitPoly> u = unit_difference(b, a, 0);
  if (!u) return {};
  const int64_t c = u->constant;
  if (u->terms.empty()) return {c, c};
  // lo = c - (bound of -terms), hi = c + (bound of terms); clamped to int64, which keeps each
  // on the same side of every small number a relation compares them with.
  auto [neg, pos] = bounds_of_terms(*u, ranges, true, true);
  auto clamp = [](__int128 v) {
    return static_cast<int64_t>(std::clamp<__int128>(v, INT64_MIN, INT64_MAX));
  };
  sym::FactBounds out;
  if (neg) out.lo = clamp(static_cast<__int128>(c) - *neg);
  if (pos) out.hi = clamp(static_cast<__int128>(c) + *pos);
  return out;
}

std::pair<std::optional<int64_t>, std::optional<int64_t>> FactGraph::bounds_of_terms(
    const UnitPoly& u, const sym::RangeEnv& ranges, bool negated, bool plain) const {
  // The range of an atom of the graph, computed the first time a path reaches it (most queries
  // touch few atoms; bounding every atom for each was most of a query's cost).
  std::vector<std::optional<sym::ValueRange>> range_cache(dist_.size());
  auto range = [&](size_t a) -> const sym::ValueRange& {
    if (!range_cache[a]) range_cache[a] = sym::bound_expr(atoms_[a], ranges);
    return *range_cache[a];
  };
  auto finite_hi = [&](const sym::ValueRange& r) -> std::optional<int64_t> {
    if (!r.is_int() || !r.hi().is_finite()) return std::nullopt;
    return r.hi().value();
  };
  auto finite_neg_lo = [&](const sym::ValueRange& r) -> std::optional<int64_t> {
    if (!r.is_int() || !r.lo().is_finite() || r.lo().value() == INT64_MIN) return std::nullopt;
    return -r.lo().value();
  };
  auto tighter = [](std::optional<int64_t>& best, std::optional<int64_t> b) {
    if (b && (!best || *b < *best)) best = b;
  };
  // atom <= upper: its own range, or a fact path from another atom a plus a's upper bound.
  auto upper = [&](const ExprRef& atom, std::optional<int> n) {
    std::optional<int64_t> b = finite_hi(sym::bound_expr(atom, ranges));
    if (!n) return b;
    for (size_t a = 0; a < dist_.size(); ++a) {
      if (!dist_.at(a, *n)) continue;
      tighter(b, checked_add(dist_.at(a, *n),
                             a == 0 ? std::optional<int64_t>(0) : finite_hi(range(a))));
    }
    return b;
  };
  // -atom <= lower_neg: likewise from below.
  auto lower_neg = [&](const ExprRef& atom, std::optional<int> n) {
    std::optional<int64_t> b = finite_neg_lo(sym::bound_expr(atom, ranges));
    if (!n) return b;
    for (size_t a = 0; a < dist_.size(); ++a) {
      if (!dist_.at(*n, a)) continue;
      tighter(b, checked_add(dist_.at(*n, a),
                             a == 0 ? std::optional<int64_t>(0) : finite_neg_lo(range(a))));
    }
    return b;
  };
  std::vector<std::optional<int>> nodes;
  for (const auto& term : u.terms) nodes.push_back(find_node(term.first));
  // The best proven bound of -(sign * terms), each term's sign flipped by `sign`.
  auto bound_of_negated = [&](int sign) {
    std::optional<int64_t> bound;
    const auto& t = u.terms;
    auto positive = [&](size_t i) { return t[i].second * sign > 0; };
    if (t.size() == 1) {
      bound = positive(0) ? lower_neg(t[0].first, nodes[0]) : upper(t[0].first, nodes[0]);
    } else if (positive(0) != positive(1)) {
      size_t xi = positive(0) ? 0 : 1, yi = 1 - xi;  // c + x - y >= 0: need y - x <= c
      if (nodes[xi] && nodes[yi]) bound = dist_.at(*nodes[xi], *nodes[yi]);
      tighter(bound, checked_add(upper(t[yi].first, nodes[yi]), lower_neg(t[xi].first, nodes[xi])));
    } else if (positive(0)) {
      bound = checked_add(lower_neg(t[0].first, nodes[0]), lower_neg(t[1].first, nodes[1]));
    } else {
      bound = checked_add(upper(t[0].first, nodes[0]), upper(t[1].first, nodes[1]));
    }
    return bound;
  };
  return {negated ? bound_of_negated(1) : std::nullopt,
          plain ? bound_of_negated(-1) : std::nullopt};
}

bool FactGraph::same_facts(const FactGraph& o) const {
  if (has_edges_ != o.has_edges_ || consistent_ != o.consistent_ || too_large_ != o.too_large_) {
    return false;  // (past the limit, a graph also ignores what extend() adds later)
  }
  if (!has_edges_) return true;
  return index_ == o.index_ && dist_ == o.dist_;
}

}  // namespace sf
