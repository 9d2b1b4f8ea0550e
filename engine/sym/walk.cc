// Traversals: free symbols, xreplace, symbol substitution and memoized bottom-up rewriting.
#include "engine/sym/walk.h"

#include <algorithm>
#include <unordered_set>

#include "engine/sym/make.h"

namespace sf::sym {

namespace {

void collect(const ExprRef& e, std::unordered_set<const Expr*>& seen, std::vector<ExprRef>& out) {
  if (e->is_ground() || !seen.insert(e.get()).second) return;
  if (e->is(ExprKind::kSymbol)) {
    out.push_back(e);
    return;
  }
  for (const ExprRef& a : e->args()) collect(a, seen, out);
}

}  // namespace

std::vector<ExprRef> free_symbols(const ExprRef& e) {
  std::unordered_set<const Expr*> seen;
  std::vector<ExprRef> out;
  collect(e, seen, out);
  std::sort(out.begin(), out.end(), ExprLess());
  return out;
}

bool has_symbol(const ExprRef& e, const ExprRef& sym) {
  if (e == sym) return true;
  if (e->is_ground()) return false;
  for (const ExprRef& a : e->args()) {
    if (has_symbol(a, sym)) return true;
  }
  return false;
}

std::vector<ExprRef> free_unbacked_symbols(const ExprRef& e) {
  std::vector<ExprRef> all = free_symbols(e), out;
  for (const ExprRef& s : all) {
    if (s->is_unbacked_symbol()) out.push_back(s);
  }
  return out;
}

bool has_free_unbacked_symbols(const ExprRef& e) { return !free_unbacked_symbols(e).empty(); }
bool has_free_symbols(const ExprRef& e) { return !e->is_ground(); }

bool contains_kind(const ExprRef& e, ExprKind kind) {
  if (e->is(kind)) return true;
  for (const ExprRef& a : e->args()) {
    if (contains_kind(a, kind)) return true;
  }
  return false;
}

ExprRef rewrite_bottom_up(const ExprRef& root, const std::function<ExprRef(const ExprRef&)>& fn) {
  std::unordered_map<const Expr*, ExprRef> memo;
  std::function<ExprRef(const ExprRef&)> go = [&](const ExprRef& e) -> ExprRef {
    auto it = memo.find(e.get());
    if (it != memo.end()) return it->second;
    ExprRef cur = e;
    if (e->num_args() > 0) {
      std::vector<ExprRef> args;
      args.reserve(e->num_args());
      bool changed = false;
      for (const ExprRef& a : e->args()) {
        args.push_back(go(a));
        changed = changed || args.back() != a;
      }
      if (changed) cur = rebuild(e, args);
    }
    ExprRef out = fn(cur);
    memo.emplace(e.get(), out);
    return out;
  };
  return go(root);
}

ExprRef xreplace(const ExprRef& root, const ExprMap& map) {
  if (map.empty()) return root;
  std::unordered_map<const Expr*, ExprRef> memo;
  std::function<ExprRef(const ExprRef&)> go = [&](const ExprRef& e) -> ExprRef {
    auto hit = map.find(e);
    if (hit != map.end()) return hit->second;
    if (e->num_args() == 0) return e;
    auto it = memo.find(e.get());
    if (it != memo.end()) return it->second;
    std::vector<ExprRef> args;
    args.reserve(e->num_args());
    bool changed = false;
    for (const ExprRef& a : e->args()) {
      args.push_back(go(a));
      changed = changed || args.back() != a;
    }
    ExprRef out = changed ? rebuild(e, args) : e;
    memo.emplace(e.get(), out);
    return out;
  };
  return go(root);
}

ExprRef substitute_symbols(const ExprRef& e, const std::function<ExprRef(const ExprRef&)>& fn) {
  if (e->is_ground()) return e;
  ExprMap map;
  for (const ExprRef& s : free_symbols(e)) {
    ExprRef r = fn(s);
    if (r && r != s) map.emplace(s, r);
  }
  return xreplace(e, map);
}

}  // namespace sf::sym
