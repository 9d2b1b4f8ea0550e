// Traversals: free symbols, xreplace, symbol substitution and memoized bottom-up rewriting.
#include "engine/sym/walk.h"

#include <algorithm>
#include <unordered_set>

#include "engine/sym/make.h"
#include "engine/sym/node_memo.h"

namespace sf::sym {

namespace {

void collect_small(const ExprRef& e, std::vector<ExprRef>& out) {
  if (e->is_ground()) return;
  if (e->is(ExprKind::kSymbol)) {
    out.push_back(e);
    return;
  }
  for (const ExprRef& a : e->args()) collect_small(a, out);
}

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
  std::vector<ExprRef> out;
  if (e->is_ground()) return out;
  out.reserve(8);  // one allocation for the common case instead of growing 1, 2, 4, 8
  if (e->size() <= kSmallTree) {
    collect_small(e, out);
  } else {
    std::unordered_set<const Expr*> seen;
    collect(e, seen, out);
  }
  std::sort(out.begin(), out.end(), ExprLess());
  out.erase(std::unique(out.begin(), out.end()), out.end());  // hash-consed: equal is identical
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

bool has_free_unbacked_symbols(const ExprRef& e) {
  return any_symbol(e, [](const Expr* s) { return s->is_unbacked_symbol(); });
}
bool has_free_symbols(const ExprRef& e) { return !e->is_ground(); }

bool contains_kind(const ExprRef& e, ExprKind kind) {
  if (e->is(kind)) return true;
  for (const ExprRef& a : e->args()) {
    if (contains_kind(a, kind)) return true;
  }
  return false;
}

bool involves_floats(const ExprRef& e) {
  if (e->is_float()) return true;
  for (const ExprRef& a : e->args()) {
    if (involves_floats(a)) return true;
  }
  return false;
}

ExprRef rewrite_bottom_up(const ExprRef& root, const std::function<ExprRef(const ExprRef&)>& fn) {
  NodeMemo<ExprRef> memo;
  auto go = [&](auto& self, const ExprRef& e) -> ExprRef {
    if (const ExprRef* hit = memo.find(e.get())) return *hit;
    ExprRef cur = e;
    if (e->num_args() > 0) {
      std::vector<ExprRef> args;
      args.reserve(e->num_args());
      bool changed = false;
      for (const ExprRef& a : e->args()) {
        args.push_back(self(self, a));
        changed = changed || args.back() != a;
      }
      if (changed) cur = rebuild(e, args);
    }
    ExprRef out = fn(cur);
    memo.emplace(e.get(), out);
    return out;
  };
  return go(go, root);
}

namespace {

// The shared rebuild of xreplace and substitute_symbols: `lookup` returns the replacement of a
// node or null; `skip` says a subtree cannot contain a key. Shared subtrees are rebuilt once.
template <typename Lookup, typename Skip>
ExprRef replace_top_down(const ExprRef& root, const Lookup& lookup, const Skip& skip) {
  NodeMemo<ExprRef> memo;
  auto go = [&](auto& self, const ExprRef& e) -> ExprRef {
    if (skip(e)) return e;
    if (const ExprRef* hit = lookup(e)) return *hit;
    if (e->num_args() == 0) return e;
    if (const ExprRef* hit = memo.find(e.get())) return *hit;
    // Most nodes come back unchanged: the argument list is built from the first change on.
    const auto& in = e->args();
    size_t i = 0;
    ExprRef first_changed;
    for (; i < in.size(); ++i) {
      first_changed = self(self, in[i]);
      if (first_changed != in[i]) break;
    }
    if (i == in.size()) {
      memo.emplace(e.get(), e);
      return e;
    }
    std::vector<ExprRef> args;
    args.reserve(in.size());
    args.insert(args.end(), in.begin(), in.begin() + static_cast<std::ptrdiff_t>(i));
    args.push_back(std::move(first_changed));
    for (++i; i < in.size(); ++i) args.push_back(self(self, in[i]));
    ExprRef out = rebuild(e, args);
    memo.emplace(e.get(), out);
    return out;
  };
  return go(go, root);
}

}  // namespace

ExprRef xreplace(const ExprRef& root, const ExprMap& map) {
  if (map.empty()) return root;
  return replace_top_down(
      root,
      [&](const ExprRef& e) -> const ExprRef* {
        auto hit = map.find(e);
        return hit == map.end() ? nullptr : &hit->second;
      },
      [](const ExprRef&) { return false; });
}

ExprRef substitute_symbols(const ExprRef& e, const std::function<ExprRef(const ExprRef&)>& fn) {
  if (e->is_ground()) return e;
  // A handful of symbols: a flat list beats a hash map.
  std::vector<std::pair<ExprRef, ExprRef>> subst;
  for (const ExprRef& s : free_symbols(e)) {
    ExprRef r = fn(s);
    if (r && r != s) subst.emplace_back(s, std::move(r));
  }
  if (subst.empty()) return e;
  return replace_top_down(
      e,
      [&](const ExprRef& x) -> const ExprRef* {
        if (!x->is(ExprKind::kSymbol)) return nullptr;
        for (const auto& [from, to] : subst) {
          if (from == x) return &to;
        }
        return nullptr;
      },
      [](const ExprRef& x) { return x->is_ground(); });
}

}  // namespace sf::sym
