// Builds the difference-constraint graph of the known relations and closes it (Floyd–Warshall);
// a query is then a lookup of the tightest proven bound between two atoms.
#include "engine/shape_env/fact_graph.h"

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

// The polynomial p of an integer expression when it is c + (at most two terms of coefficient
// +1 or -1); nullopt otherwise.
struct UnitPoly {
  int64_t constant = 0;
  std::vector<std::pair<ExprRef, int>> terms;  // (atom, +1 or -1)
};

std::optional<UnitPoly> unit_poly(const ExprRef& e) {
  if (!e->is_int()) return std::nullopt;
  sym::Poly p = sym::poly_of(e);
  if (p.has_float() || p.constant.is_float || p.terms.size() > 2) return std::nullopt;
  UnitPoly out{p.constant.i, {}};
  for (const sym::Term& t : p.terms) {
    if (t.coef.is_float || (t.coef.i != 1 && t.coef.i != -1)) return std::nullopt;
    out.terms.emplace_back(t.mono, static_cast<int>(t.coef.i));
  }
  return out;
}

}  // namespace

FactGraph::FactGraph(const std::vector<std::pair<ExprRef, bool>>& relations) {
  index_.emplace(sym::integer(0), 0);
  dist_.assign(1, {0});
  for (const auto& [rel, value] : relations) {
    add_relation(rel, value);
    if (too_large_) break;
  }
  new_edges_.clear();
  if (!has_edges_ || too_large_) {
    has_edges_ = false;
    return;
  }
  close_all();
  check_consistency();
}

bool FactGraph::extend(const std::vector<std::pair<ExprRef, bool>>& relations) {
  if (too_large_) return false;  // proves nothing, now as with more relations
  if (index_.empty()) {
    index_.emplace(sym::integer(0), 0);
    dist_.assign(1, {0});
  }
  bool had_edges = has_edges_;
  for (const auto& [rel, value] : relations) {
    add_relation(rel, value);
    if (too_large_) break;
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

bool FactGraph::contributes(const ExprRef& rel, bool value) {
  FactGraph probe;
  probe.index_.emplace(sym::integer(0), 0);
  probe.dist_.assign(1, {0});
  probe.add_relation(rel, value);
  return probe.has_edges_;
}

void FactGraph::add_relation(const ExprRef& rel, bool value) {
  // Each relation as the expressions it makes nonnegative (over the integers, a < b is
  // b - a - 1 >= 0 and not(a <= b) is a - b - 1 >= 0).
  if (!rel->is_relation() || !rel->arg(0)->is_int() || !rel->arg(1)->is_int()) return;
  const ExprRef &a = rel->arg(0), &b = rel->arg(1);
  // A bound of one symbol by a number (most axioms) is the range's: skip it before any
  // polynomial arithmetic.
  if ((a->is_number() && b->is(ExprKind::kSymbol)) ||
      (b->is_number() && a->is(ExprKind::kSymbol))) {
    return;
  }
  ExprRef one = sym::integer(1);
  if (rel->is(ExprKind::kLe)) {
    add_nonnegative(value ? sym::sub(b, a) : sym::sub(sym::sub(a, b), one));
  } else if (rel->is(ExprKind::kLt)) {
    add_nonnegative(value ? sym::sub(sym::sub(b, a), one) : sym::sub(a, b));
  } else if (value == rel->is(ExprKind::kEq)) {  // Eq true or Ne false
    add_nonnegative(sym::sub(b, a));
    add_nonnegative(sym::sub(a, b));
  }
}

void FactGraph::close_all() {
  size_t n = dist_.size();
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < n; ++i) {
      if (!dist_[i][k]) continue;
      for (size_t j = 0; j < n; ++j) {
        std::optional<int64_t> via = checked_add(dist_[i][k], dist_[k][j]);
        if (via && (!dist_[i][j] || *via < *dist_[i][j])) dist_[i][j] = via;
      }
    }
  }
}

void FactGraph::close_through(int from, int to, int64_t k) {
  // a -> from -> to -> b, with the distances as they were before this edge (copies: a path
  // through the edge twice is no shorter unless the facts contradict each other).
  size_t n = dist_.size();
  std::vector<std::optional<int64_t>> into_from(n), out_of_to = dist_[to];
  for (size_t a = 0; a < n; ++a) into_from[a] = dist_[a][from];
  for (size_t a = 0; a < n; ++a) {
    std::optional<int64_t> head = checked_add(into_from[a], k);
    if (!head) continue;
    for (size_t b = 0; b < n; ++b) {
      std::optional<int64_t> via = checked_add(head, out_of_to[b]);
      if (via && (!dist_[a][b] || *via < *dist_[a][b])) dist_[a][b] = via;
    }
  }
}

void FactGraph::check_consistency() {
  for (size_t i = 0; i < dist_.size(); ++i) {
    if (dist_[i][i] && *dist_[i][i] < 0) consistent_ = false;  // contradictory facts
  }
}

int FactGraph::node_of(const ExprRef& atom) {
  auto it = index_.find(atom);
  if (it != index_.end()) return it->second;
  int id = static_cast<int>(dist_.size());
  index_.emplace(atom, id);
  for (const ExprRef& s : sym::free_symbols(atom)) symbols_.insert(s.get());
  for (auto& row : dist_) row.emplace_back();
  dist_.emplace_back(dist_.size() + 1);
  dist_.back()[id] = 0;
  return id;
}

std::optional<int> FactGraph::find_node(const ExprRef& atom) const {
  auto it = index_.find(atom);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

void FactGraph::constrain(int from, int to, int64_t k) {
  std::optional<int64_t>& d = dist_[from][to];
  if (d && *d <= k) return;
  d = k;
  new_edges_.emplace_back(from, to, k);
}

void FactGraph::add_nonnegative(const ExprRef& p) {
  std::optional<UnitPoly> u = unit_poly(p);
  if (!u || u->terms.empty()) return;
  if (index_.size() + u->terms.size() > kMaxAtoms + 1) {
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
  const int64_t c = u->constant;
  if (u->terms.empty()) return c >= 0;
  // The range of an atom of the graph, computed the first time a path reaches it (most queries
  // touch few atoms; bounding every atom for each was most of a query's cost).
  std::vector<const sym::ExprRef*> atom_of(dist_.size(), nullptr);
  for (const auto& [atom, i] : index_) atom_of[i] = &atom;
  std::vector<std::optional<sym::ValueRange>> range_cache(dist_.size());
  auto range = [&](size_t a) -> const sym::ValueRange& {
    if (!range_cache[a]) range_cache[a] = sym::bound_expr(*atom_of[a], ranges);
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
      if (!dist_[a][*n]) continue;
      tighter(b,
              checked_add(dist_[a][*n], a == 0 ? std::optional<int64_t>(0) : finite_hi(range(a))));
    }
    return b;
  };
  // -atom <= lower_neg: likewise from below.
  auto lower_neg = [&](const ExprRef& atom, std::optional<int> n) {
    std::optional<int64_t> b = finite_neg_lo(sym::bound_expr(atom, ranges));
    if (!n) return b;
    for (size_t a = 0; a < dist_.size(); ++a) {
      if (!dist_[*n][a]) continue;
      tighter(b, checked_add(dist_[*n][a],
                             a == 0 ? std::optional<int64_t>(0) : finite_neg_lo(range(a))));
    }
    return b;
  };
  std::vector<std::optional<int>> nodes;
  for (const auto& term : u->terms) nodes.push_back(find_node(term.first));
  // d = c + terms >= 0 holds when -(terms) <= c; `bound` is the best proven bound of -(terms).
  std::optional<int64_t> bound;
  const auto& t = u->terms;
  if (t.size() == 1) {
    bound = t[0].second > 0 ? lower_neg(t[0].first, nodes[0]) : upper(t[0].first, nodes[0]);
  } else if (t[0].second != t[1].second) {
    size_t xi = t[0].second > 0 ? 0 : 1, yi = 1 - xi;  // d = c + x - y: need y - x <= c
    if (nodes[xi] && nodes[yi]) bound = dist_[*nodes[xi]][*nodes[yi]];
    tighter(bound, checked_add(upper(t[yi].first, nodes[yi]), lower_neg(t[xi].first, nodes[xi])));
  } else if (t[0].second > 0) {
    bound = checked_add(lower_neg(t[0].first, nodes[0]), lower_neg(t[1].first, nodes[1]));
  } else {
    bound = checked_add(upper(t[0].first, nodes[0]), upper(t[1].first, nodes[1]));
  }
  return bound && *bound <= c;
}

bool FactGraph::same_facts(const FactGraph& o) const {
  if (has_edges_ != o.has_edges_ || consistent_ != o.consistent_) return false;
  if (!has_edges_) return true;
  return index_ == o.index_ && dist_ == o.dist_;
}

}  // namespace sf
