// Assert bucketing and the axiom index.
#include "engine/shape_env/assertion_store.h"

#include <algorithm>

#include "engine/sym/make.h"
#include "engine/sym/walk.h"

namespace sf {

ExprRef AssertionStore::bucket_key(const ExprRef& expr) {
  // The newest unbacked int symbol (a small tree allocates no symbol list).
  ExprRef best;
  sym::for_each_symbol(expr, [&best](const ExprRef& s) {
    if (s->sym_kind() == sym::SymKind::kUnbackedInt &&
        (!best || s->sym_index() > best->sym_index())) {
      best = s;
    }
  });
  return best;
}

void AssertionStore::defer(const ExprRef& expr, const std::string& msg) {
  deferred_[bucket_key(expr)].push_back(RuntimeAssert{expr, msg});
  ++num_deferred_;
}

void AssertionStore::add_axiom(const ExprRef& e, bool v, const ExprRef& simplified) {
  axioms_[e] = v;
  axiom_rewrites_[e] = sym::boolean(v);
  if (!simplified->is_ground()) axiom_rewrites_[simplified] = sym::boolean(v);
  axiom_entries_.push_back(AxiomEntry{simplified, v});
  index_entry(axiom_entries_.size() - 1);
  ++axiom_revision_;
}

std::vector<std::pair<ExprRef, bool>> AssertionStore::current_axioms(size_t from) const {
  std::vector<std::pair<ExprRef, bool>> out;
  out.reserve(axiom_entries_.size() - std::min(from, axiom_entries_.size()));
  for (size_t i = from; i < axiom_entries_.size(); ++i)
    out.emplace_back(axiom_entries_[i].current, axiom_entries_[i].value);
  return out;
}

void AssertionStore::add_axiom_and_negation(const ExprRef& e, bool v, const ExprRef& simplified,
                                            const ExprRef& ne) {
  add_axiom(e, v, simplified);
  axiom_entries_.back().negation_follows = true;
  add_axiom(ne, !v, sym::not_(simplified));
}

void AssertionStore::index_entry(size_t i) {
  sym::for_each_symbol(axiom_entries_[i].current, [&](const ExprRef& s) {
    std::vector<size_t>& entries = entries_mentioning_[s.get()];
    if (entries.empty() || entries.back() != i) entries.push_back(i);  // a repeated symbol
  });
}

void AssertionStore::reindex_mentioning(const ExprRef& s,
                                        const std::function<ExprRef(const ExprRef&)>& simplify) {
  auto it = entries_mentioning_.find(s.get());
  if (it == entries_mentioning_.end()) return;
  // In entry order, as a scan of every entry would visit them (a later rewrite of the same
  // form wins).
  std::vector<size_t> entries = std::move(it->second);
  entries_mentioning_.erase(it);
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  auto rewrite = [&](size_t i, const ExprRef& current) {
    AxiomEntry& entry = axiom_entries_[i];
    if (entry.current != current) {
      ++axiom_revision_;
      rewrites_.push_back(Rewrite{i, entry.current, entry.value});
    }
    entry.current = current;
    if (!current->is_ground()) axiom_rewrites_[current] = sym::boolean(entry.value);
    index_entry(i);  // s itself stays indexed while the new form still mentions it
  };
  for (size_t k = 0; k < entries.size(); ++k) {
    size_t i = entries[k];
    if (!sym::has_symbol(axiom_entries_[i].current, s)) continue;
    ExprRef current = simplify(axiom_entries_[i].current);
    rewrite(i, current);
    // Its negation, next in order, mentions the same symbols: negate the new form.
    if (axiom_entries_[i].negation_follows && negates_simply(current) && k + 1 < entries.size() &&
        entries[k + 1] == i + 1 && sym::has_symbol(axiom_entries_[i + 1].current, s)) {
      rewrite(i + 1, sym::not_(current));
      ++k;
    }
  }
}

ExprRef AssertionStore::apply_axioms(const ExprRef& e) const {
  if (axiom_rewrites_.empty() || e->is_ground()) return e;
  return sym::xreplace(e, axiom_rewrites_);
}

void AssertionStore::restore_scope(const AssertionStore& saved) {
  AssertionStore out = saved;
  out.guards_ = std::move(guards_);
  out.frozen_ = frozen_;
  out.ignored_frozen_ = ignored_frozen_;
  out.axiom_revision_ = axiom_revision_ + 1;
  out.rewrites_ = std::move(rewrites_);
  out.rewrites_.push_back(Rewrite{0, ExprRef(), false});
  *this = std::move(out);
}

}  // namespace sf
