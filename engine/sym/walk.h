// Traversals over expressions: free symbols, substitution and generic bottom-up rewriting.
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "engine/sym/expr.h"

namespace sf::sym {

using ExprMap = std::unordered_map<ExprRef, ExprRef, ExprHash>;

// Free symbols in canonical order, without duplicates.
std::vector<ExprRef> free_symbols(const ExprRef& e);
bool has_symbol(const ExprRef& e, const ExprRef& sym);
// Unbacked int/float symbols ("u…", "zuf…"), as PyTorch's free_unbacked_symbols.
std::vector<ExprRef> free_unbacked_symbols(const ExprRef& e);
bool has_free_unbacked_symbols(const ExprRef& e);
bool has_free_symbols(const ExprRef& e);
// Trees up to this many nodes are walked without a visited set: revisiting a shared subtree is
// cheaper than hashing, and only large DAGs can blow up.
constexpr uint32_t kSmallTree = 64;
// True when some symbol of e satisfies pred(const ExprRef&), visited in tree order; walks the
// tree (at most kMaxExprSize nodes), allocating nothing.
template <typename Pred>
bool any_symbol_ref(const ExprRef& e, const Pred& pred) {
  if (e->is_ground()) return false;
  if (e->is(ExprKind::kSymbol)) return pred(e);
  for (const ExprRef& a : e->args()) {
    if (any_symbol_ref(a, pred)) return true;
  }
  return false;
}
// The same with pred(const Expr*).
template <typename Pred>
bool any_symbol(const ExprRef& e, const Pred& pred) {
  return any_symbol_ref(e, [&pred](const ExprRef& s) { return pred(s.get()); });
}
// Calls fn(const ExprRef&) on the symbols of e, for callers that tolerate a repeat: a small tree
// is walked in place (a symbol used twice comes twice, nothing is allocated), a large DAG through
// free_symbols (each symbol once, each shared subtree walked once).
template <typename Fn>
void for_each_symbol(const ExprRef& e, const Fn& fn) {
  if (e->size() > kSmallTree) {
    for (const ExprRef& s : free_symbols(e)) fn(s);
    return;
  }
  any_symbol_ref(e, [&fn](const ExprRef& s) {
    fn(s);
    return false;
  });
}
// True when e contains a node of the given kind.
bool contains_kind(const ExprRef& e, ExprKind kind);
// Whether e or any subexpression is float-typed.
bool involves_floats(const ExprRef& e);

// Replaces every subexpression that is a key of `map` (top-down, like sympy's xreplace) and
// rebuilds through the factories.
ExprRef xreplace(const ExprRef& e, const ExprMap& map);
// Replaces symbols via a callback (nullptr result = keep the symbol).
ExprRef substitute_symbols(const ExprRef& e, const std::function<ExprRef(const ExprRef&)>& fn);

// Bottom-up rewriting: fn is called on each node after its children were rewritten (and the
// node rebuilt when they changed). Memoized per call, so shared subtrees are visited once.
ExprRef rewrite_bottom_up(const ExprRef& e, const std::function<ExprRef(const ExprRef&)>& fn);

}  // namespace sf::sym
