// Assert bucketing and the axiom index.
#include "engine/shape_env/assertion_store.h"

#include "engine/sym/make.h"

namespace sf {

ExprRef AssertionStore::bucket_key(const ExprRef& expr) {
  ExprRef best;
  for (const ExprRef& s : sym::free_symbols(expr)) {
    if (s->sym_kind() != sym::SymKind::kUnbackedInt) continue;
    if (!best || s->sym_index() > best->sym_index()) best = s;
  }
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
}

void AssertionStore::reindex_mentioning(const ExprRef& s,
                                        const std::function<ExprRef(const ExprRef&)>& simplify) {
  for (AxiomEntry& entry : axiom_entries_) {
    if (!sym::has_symbol(entry.current, s)) continue;
    entry.current = simplify(entry.current);
    if (!entry.current->is_ground()) axiom_rewrites_[entry.current] = sym::boolean(entry.value);
  }
}

ExprRef AssertionStore::apply_axioms(const ExprRef& e) const {
  if (axiom_rewrites_.empty() || e->is_ground()) return e;
  return sym::xreplace(e, axiom_rewrites_);
}

}  // namespace sf
