// Builds the difference-constraint graph of the known relations and closes it (Floyd–Warshall);
// a query is then a lookup of the tightest proven bound between two atoms.
#include "engine/shape_env/fact_graph.h"

#include <algorithm>

#include "engine/base/check.h"
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
  SF_CHECK(n_ < kMaxNodes) << "a difference graph of more than " << kMaxNodes << " nodes";
  if (n_ == stride_) reserve(std::max<size_t>(8, 2 * stride_));
  ++n_;
  set(n_ - 1, n_ - 1, 0);
}

void DifferenceBounds::reserve(size_t n) {
  n = std::min(n, kMaxNodes);
  if (n <= stride_) return;
  DifferenceBounds old = std::move(*this);
  n_ = old.n_;
  stride_ = n;
  cells_.reset(new int64_t[n * n]);  // not filled: the sets say which cells hold bounds
  bounded_from_ = std::move(old.bounded_from_);
  bounded_to_ = std::move(old.bounded_to_);
  bounded_from_.resize(n, NodeSet{});
  bounded_to_.resize(n, NodeSet{});
  copy_bounds(old.cells_.get(), old.stride_);
}

DifferenceBounds& DifferenceBounds::operator=(DifferenceBounds&& o) noexcept {
  if (this == &o) return *this;
  n_ = std::exchange(o.n_, 0);
  stride_ = std::exchange(o.stride_, 0);
  cells_ = std::move(o.cells_);
  bounded_from_ = std::move(o.bounded_from_);
  bounded_to_ = std::move(o.bounded_to_);
  o.bounded_from_.clear();
  o.bounded_to_.clear();
  return *this;
}

DifferenceBounds& DifferenceBounds::operator=(const DifferenceBounds& o) {
  if (this == &o) return *this;
  n_ = o.n_;
  stride_ = o.stride_;
  cells_.reset(stride_ ? new int64_t[stride_ * stride_] : nullptr);
  bounded_from_ = o.bounded_from_;
  bounded_to_ = o.bounded_to_;
  copy_bounds(o.cells_.get(), o.stride_);
  return *this;
}

void DifferenceBounds::copy_bounds(const int64_t* cells, size_t stride) {
  for (size_t i = 0; i < n_; ++i) {
    for_each_node(bounded_from_[i],
                  [&](size_t j) { cells_[i * stride_ + j] = cells[i * stride + j]; });
  }
}

void DifferenceBounds::relax_through(size_t k) {
  // Row k's bounds copied once (j, k -> j), so the inner loop reads one cell and one bit per
  // pair: this loop is most of a rebuild's closing.
  const NodeSet into_k = bounded_to_[k];
  NodeSet only_k{};
  only_k[k / 64] = uint64_t{1} << (k % 64);
  // k -> k -> j and i -> k -> k are the bounds themselves (a zero diagonal: a negative one
  // already shows the contradiction).
  if (into_k == only_k || bounded_from_[k] == only_k) return;
  struct Tail {
    uint32_t j;
    int64_t from_k;
  };
  Tail tails[kMaxNodes];  // (left unfilled: only the first num_tails are read)
  size_t num_tails = 0;
  for_each_node(bounded_from_[k], [&](size_t j) {
    tails[num_tails++] = {static_cast<uint32_t>(j), cells_[k * stride_ + j]};
  });
  for_each_node(into_k, [&](size_t i) {
    int64_t* row = &cells_[i * stride_];
    const int64_t to_k = row[k];
    NodeSet& from_i = bounded_from_[i];
    const uint64_t i_bit = uint64_t{1} << (i % 64);
    for (size_t t = 0; t < num_tails; ++t) {
      const auto [j, from_k] = tails[t];
      int64_t via;  // an overflowing path proves no tighter bound than none
      if (__builtin_add_overflow(to_k, from_k, &via)) continue;
      uint64_t& word = from_i[j / 64];
      const uint64_t j_bit = uint64_t{1} << (j % 64);
      if (!(word & j_bit)) {
        word |= j_bit;
        bounded_to_[j][i / 64] |= i_bit;
        row[j] = via;
      } else if (via < row[j]) {
        row[j] = via;
      }
    }
  });
}

bool DifferenceBounds::operator==(const DifferenceBounds& o) const {
  if (n_ != o.n_) return false;
  for (size_t i = 0; i < n_; ++i) {
    if (bounded_from_[i] != o.bounded_from_[i]) return false;
    bool same = true;
    for_each_node(bounded_from_[i], [&](size_t j) { same = same && at(i, j) == o.at(i, j); });
    if (!same) return false;
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

FactGraph::FactGraph(const RelationSource& next, Forms& forms)
    : FactGraph(
          [&next]() -> std::optional<Read> {
            std::optional<std::pair<ExprRef, bool>> relation = next();
            if (!relation) return std::nullopt;
            return Read{std::move(relation->first), relation->second, std::nullopt};
          },
          forms, nullptr) {}

FactGraph::FactGraph(const ReadSource& next, Forms& forms, const FactGraph* before, size_t prefix) {
  // The atoms first, with the edges between them kept in the log of forms read: a graph past
  // the atom limit (most of them, late in a long trace) proves nothing and is never laid out,
  // and one within it is laid out once, at its size, from those edges (the relations are read
  // once).
  numbering_ = true;
  std::vector<int> nodes(before ? before->atoms_.size() : 0, -1);  // before's -> this graph's
  if (before) {                                                    // (about its size again)
    atoms_.reserve(before->atoms_.size());
    symbols_.reserve(before->symbols_.size());
    forms_read_.reserve(before->forms_read_.size());
    reads_.reserve(before->reads_.size());
  }
  if (prefix) {
    SF_CHECK(before && before->can_replay(prefix - 1))
        << "a prefix of " << prefix << " reads that the graph did not keep";
    take_prefix(*before, prefix, nodes);
  } else {
    add_zero();
  }
  for (size_t read = prefix; !too_large_; ++read) {
    std::optional<Read> relation = next();
    if (!relation) break;
    if (relation->replay) {
      SF_CHECK(before && before->can_replay(*relation->replay))
          << "a replay of read " << *relation->replay << " that the graph did not keep";
      replay(*before, *relation->replay, nodes);
    } else {
      add_relation(relation->rel, relation->value, forms);
    }
    if (too_large_) stopped_at_ = read;
  }
  numbering_ = false;
  if (!has_edges_ || too_large_) {
    if (!too_large_) dist_.add_node();  // zero alone, as extend() expects
    has_edges_ = false;
    return;
  }
  dist_.reserve(atoms_.size());
  for (size_t i = 0; i < atoms_.size(); ++i) dist_.add_node();
  for (const FormRead& form : forms_read_) {
    if (form.has_edge) dist_.tighten(form.from, form.to, form.k);  // (closed next, in whole)
  }
  close_all();
  check_consistency();
}

void FactGraph::take_prefix(const FactGraph& before, size_t prefix, std::vector<int>& nodes) {
  reads_.assign(before.reads_.begin(), before.reads_.begin() + prefix);
  forms_read_.assign(before.forms_read_.begin(),
                     before.forms_read_.begin() + before.forms_end(prefix - 1));
  // The forms number atoms as they first name them, so those named are before's first ones.
  int named = 0;
  for (const FormRead& form : forms_read_) {
    if (!form.has_edge) continue;
    has_edges_ = true;
    named = std::max({named, form.from, form.to});
  }
  for (int n = 0; n <= named; ++n) {
    int numbered = node_of(before.atoms_[n]);
    SF_CHECK(numbered == n) << "atom " << n << " numbered out of order";
    nodes[n] = n;
  }
}

void FactGraph::replay(const FactGraph& before, size_t read, std::vector<int>& nodes) {
  reads_.push_back(static_cast<uint32_t>(forms_read_.size()));
  size_t end = before.forms_end(read);
  auto node = [&](int n) {
    if (n == 0) return 0;  // zero is node 0 in every graph
    if (nodes[n] < 0) nodes[n] = node_of(before.atoms_[n]);
    return nodes[n];
  };
  SF_CHECK(numbering_) << "a replay outside a build";
  for (size_t f = before.reads_[read]; f < end; ++f) {
    FormRead form = before.forms_read_[f];
    if (!admit_terms(form.terms)) return;
    if (form.has_edge) {
      form.from = node(form.from);  // (numbered from first, as reading the form numbered them)
      form.to = node(form.to);
      has_edges_ = true;
    }
    forms_read_.push_back(form);  // (add_form's part while numbering: no bounds yet)
  }
}

bool FactGraph::extend(const std::vector<std::pair<ExprRef, bool>>& relations, Forms& forms) {
  if (too_large_) return false;  // proves nothing, now as with more relations
  if (atoms_.empty()) {
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
  for (const std::optional<UnitPoly>& p : forms.of(rel, value)) {
    if (p && makes_edge(*p)) return true;  // (a graph of zero alone admits any form)
  }
  return false;
}

bool FactGraph::read_by_graph(const ExprRef& rel, bool value, Forms& forms) {
  if (says_nothing(rel)) return false;
  for (const std::optional<UnitPoly>& p : forms.of(rel, value)) {
    if (p && !p->terms.empty()) return true;
  }
  return false;
}

void FactGraph::add_relation(const ExprRef& rel, bool value, Forms& forms) {
  reads_.push_back(static_cast<uint32_t>(forms_read_.size()));
  if (says_nothing(rel)) return;
  for (const std::optional<UnitPoly>& p : forms.of(rel, value)) add_nonnegative(p);
}

void FactGraph::close_all() {
  for (size_t k = 0; k < dist_.size(); ++k) dist_.relax_through(k);
}

void FactGraph::close_through(int from, int to, int64_t k) {
  // a -> from -> to -> b, with the distances as they were before this edge (copies: a path
  // through the edge twice is no shorter unless the facts contradict each other).
  DifferenceBounds::NodeSet into_from = dist_.bounded_to(from), out_of_to = dist_.bounded_from(to);
  std::vector<std::pair<size_t, int64_t>> tails;
  for_each_node(out_of_to, [&](size_t b) { tails.emplace_back(b, dist_.at(to, b)); });
  std::vector<std::pair<size_t, int64_t>> heads;
  for_each_node(into_from, [&](size_t a) {
    int64_t head;
    if (!__builtin_add_overflow(dist_.at(a, from), k, &head)) heads.emplace_back(a, head);
  });
  for (const auto& [a, head] : heads) {
    for (const auto& [b, tail] : tails) {
      int64_t via;
      if (!__builtin_add_overflow(head, tail, &via) &&
          (!dist_.bounded(a, b) || via < dist_.at(a, b))) {
        dist_.set(a, b, via);
      }
    }
  }
}

void FactGraph::check_consistency() {
  for (size_t i = 0; i < dist_.size(); ++i) {
    if (dist_.at(i, i) < 0) consistent_ = false;  // contradictory facts
  }
}

void FactGraph::add_zero() {
  atoms_.push_back(sym::integer(0));
  index_.insert(atoms_.back().get(), 0);
}

int FactGraph::node_of(const ExprRef& atom) {
  if (std::optional<int> known = index_.find(atom.get(), atoms_)) return *known;
  int id = static_cast<int>(atoms_.size());
  index_.insert(atom.get(), id);
  atoms_.push_back(atom);
  if (atom->is(ExprKind::kSymbol)) {
    symbols_.insert(atom.get());  // (most atoms: no walk)
  } else {
    sym::for_each_symbol(atom, [&](const ExprRef& s) { symbols_.insert(s.get()); });
  }
  if (!numbering_) dist_.add_node();
  return id;
}

std::optional<int> FactGraph::find_node(const ExprRef& atom) const {
  return index_.find(atom.get(), atoms_);
}

void FactGraph::constrain(int from, int to, int64_t k) {
  if (numbering_) return;  // laid out from the forms read, once every atom has its number
  if (dist_.tighten(from, to, k)) new_edges_.emplace_back(from, to, k);
}

bool FactGraph::admit_terms(size_t terms) {
  if (atoms_.size() + terms > kMaxAtoms + 1) too_large_ = true;
  return !too_large_;
}

void FactGraph::add_form(const FormRead& form) {
  forms_read_.push_back(form);
  if (!form.has_edge) return;
  constrain(form.from, form.to, form.k);
  has_edges_ = true;
}

bool FactGraph::makes_edge(const UnitPoly& u) {
  if (u.terms.size() == 1) {
    // A bound on one symbol is its range's business (the checks refine ranges), so the graph,
    // and with it the answers that read it, changes only with relations between atoms.
    return !u.terms[0].first->is(ExprKind::kSymbol);
  }
  return u.terms.size() == 2 && u.terms[0].second != u.terms[1].second;  // (x + y >= c: no)
}

void FactGraph::add_nonnegative(const std::optional<UnitPoly>& u) {
  if (!u || u->terms.empty() || !admit_terms(u->terms.size())) return;
  FormRead form{static_cast<uint8_t>(u->terms.size())};  // (its terms count towards the limit)
  form.k = u->constant;
  form.has_edge = makes_edge(*u);
  if (form.has_edge && u->terms.size() == 1) {
    int x = node_of(u->terms[0].first);
    // x + c >= 0: 0 - x <= c;  -x + c >= 0: x - 0 <= c.
    form.from = u->terms[0].second > 0 ? x : 0;
    form.to = u->terms[0].second > 0 ? 0 : x;
  } else if (form.has_edge) {
    bool first_positive = u->terms[0].second > 0;
    form.from = node_of(u->terms[first_positive ? 0 : 1].first);
    form.to = node_of(u->terms[first_positive ? 1 : 0].first);  // x - y + c >= 0: y - x <= c
  }
  add_form(form);
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
  std::optional<int> nodes[2];
  for (size_t i = 0; i < u.terms.size(); ++i) nodes[i] = find_node(u.terms[i].first);
  // The range of term i's atom, bounded once (both signs of a query ask for it).
  std::optional<sym::ValueRange> term_ranges[2];
  auto term_range = [&](size_t i) -> const sym::ValueRange& {
    if (nodes[i]) return range(*nodes[i]);
    if (!term_ranges[i]) term_ranges[i] = sym::bound_expr(u.terms[i].first, ranges);
    return *term_ranges[i];
  };
  // Term i's atom <= upper: its own range, or a fact path from another atom a plus a's upper
  // bound.
  auto upper = [&](size_t i) {
    std::optional<int64_t> b = finite_hi(term_range(i));
    const std::optional<int>& n = nodes[i];
    if (!n) return b;
    for_each_node(dist_.bounded_to(*n), [&](size_t a) {
      tighter(b, checked_add(dist_.bound(a, *n),
                             a == 0 ? std::optional<int64_t>(0) : finite_hi(range(a))));
    });
    return b;
  };
  // -atom <= lower_neg: likewise from below.
  auto lower_neg = [&](size_t i) {
    std::optional<int64_t> b = finite_neg_lo(term_range(i));
    const std::optional<int>& n = nodes[i];
    if (!n) return b;
    for_each_node(dist_.bounded_from(*n), [&](size_t a) {
      tighter(b, checked_add(dist_.bound(*n, a),
                             a == 0 ? std::optional<int64_t>(0) : finite_neg_lo(range(a))));
    });
    return b;
  };
  // The best proven bound of -(sign * terms), each term's sign flipped by `sign`.
  auto bound_of_negated = [&](int sign) {
    std::optional<int64_t> bound;
    const auto& t = u.terms;
    auto positive = [&](size_t i) { return t[i].second * sign > 0; };
    if (t.size() == 1) {
      bound = positive(0) ? lower_neg(0) : upper(0);
    } else if (positive(0) != positive(1)) {
      size_t xi = positive(0) ? 0 : 1, yi = 1 - xi;  // c + x - y >= 0: need y - x <= c
      if (nodes[xi] && nodes[yi]) bound = dist_.bound(*nodes[xi], *nodes[yi]);
      tighter(bound, checked_add(upper(yi), lower_neg(xi)));
    } else if (positive(0)) {
      bound = checked_add(lower_neg(0), lower_neg(1));
    } else {
      bound = checked_add(upper(0), upper(1));
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
  return atoms_ == o.atoms_ && dist_ == o.dist_;  // (the same atoms: the same numbering)
}

}  // namespace sf
