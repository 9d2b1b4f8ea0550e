// Graph-level invariant checkers (spec §8).
#include "oracles/invariants/graph_invariants.h"

#include <map>
#include <optional>
#include <set>

#include "engine/fake/fake_tensor.h"
#include "engine/sym/make.h"
#include "engine/sym/walk.h"

namespace sf::oracles {

using graph::Node;
using graph::NodeKind;

std::string node_where(const Node* n) {
  return "%" + n->name + " (line " + std::to_string(n->line) + ")";
}

void value_unbacked_symbols(const Value& v, std::set<ExprRef, sym::ExprLess>& out) {
  auto add = [&](const ExprRef& e) {
    for (const ExprRef& s : sym::free_unbacked_symbols(e)) out.insert(s);
  };
  switch (v.kind()) {
    case Value::Kind::kInt:
    case Value::Kind::kFloat:
    case Value::Kind::kBool:
      add(v.expr());
      break;
    case Value::Kind::kTuple:
      for (const Value& e : v.elems()) value_unbacked_symbols(e, out);
      break;
    case Value::Kind::kTensor: {
      const TensorLike& t = *v.tensor();
      for (const SymInt& s : t.sizes()) add(s.expr());
      for (const SymInt& s : t.strides()) add(s.expr());
      add(t.storage_offset().expr());
      break;
    }
    case Value::Kind::kNone:
      break;
  }
}

SymbolWindow SymbolWindow::all(const ShapeEnv& env) {
  SymbolWindow w;
  w.end_int = env.unbacked_symint_counter();
  w.end_float = env.unbacked_symfloat_counter();
  return w;
}

// INV-22: the symbols a cond / while_loop node binds are the ones made for its outputs, after
// its subgraphs were traced: none occurs in a subgraph (a symbol allocated inside a branch is
// bound there, never at the HOP node).
void check_hop_scoping(const Node* n, std::vector<Violation>& out) {
  std::set<ExprRef, sym::ExprLess> inside;
  for (const auto& sub : n->subgraphs) {
    sub->for_each_nested([&](const Node* m) {
      value_unbacked_symbols(m->value, inside);
      for (const auto& [s, path] : m->unbacked_bindings) inside.insert(s);
    });
  }
  for (const auto& [s, path] : n->unbacked_bindings) {
    if (inside.count(s)) {
      out.push_back({"INV-22", node_where(n) + " binds " + s->str() +
                                   ", which its subgraphs mention (a symbol of a branch or loop "
                                   "body escaped to the HOP node)"});
    }
  }
}

std::vector<Violation> check_bindings(const graph::Graph& g, const ShapeEnv& env,
                                      const SymbolWindow& window) {
  std::vector<Violation> out;
  std::map<ExprRef, const Node*, sym::ExprLess> bound_at;
  std::vector<const Node*> all;  // every node, subgraphs' included (depth first)
  g.for_each_nested([&](const Node* n) { all.push_back(n); });
  for (const Node* n : all) {
    if (graph::is_higher_order(n->kind)) check_hop_scoping(n, out);
    for (const auto& [s, path] : n->unbacked_bindings) {
      auto [it, inserted] = bound_at.emplace(s, n);
      if (!inserted) {
        out.push_back({"INV-3", s->str() + " is bound by both " + node_where(it->second) + " and " +
                                    node_where(n)});
      }
      if (!keypath_well_formed(path)) {
        out.push_back({"INV-4", node_where(n) + ": malformed keypath " + keypath_str(path) +
                                    " for " + s->str()});
        continue;
      }
      // INV-4: the path leads to the symbol (raw expressions).
      KeyPath prefix = keypath_without_conversion(path);
      Value at = key_get(n->value, prefix);
      bool ok = false;
      if (!path.empty() && path.back().kind == KeyEntry::Kind::kDivideBy) {
        ok = at.kind() == Value::Kind::kInt && at.expr() == sym::mul(path.back().divisor, s);
      } else if (!path.empty() && path.back().kind == KeyEntry::Kind::kConvertInt) {
        ok = at.kind() == Value::Kind::kBool && at.expr() == sym::eq(s, sym::integer(1));
        if (!env.var_range(s).issubset(sym::ValueRange::ints(0, 1))) {
          out.push_back({"INV-23", s->str() + " is bound through ConvertIntKey but has range " +
                                       env.var_range(s).str()});
        }
      } else {
        ok = (at.kind() == Value::Kind::kInt || at.kind() == Value::Kind::kFloat) && at.expr() == s;
      }
      if (!ok) {
        out.push_back({"INV-4", node_where(n) + ": " + keypath_str(path) + " of " + n->value.str() +
                                    " does not yield " + s->str()});
      }
    }
    // INV-5: each recorded path is the first occurrence in traversal order.
    if (!n->unbacked_bindings.empty() && !n->derived_binding) {
      std::vector<ExprRef> keys;
      for (const auto& [s, path] : n->unbacked_bindings) keys.push_back(s);
      Bindings first = binding_paths(env, n->value, keys);
      for (const auto& [s, path] : n->unbacked_bindings) {
        auto f = first.find(s);
        if (f == first.end() || !(f->second == path)) {
          out.push_back(
              {"INV-5", node_where(n) + ": " + s->str() + " recorded at " + keypath_str(path) +
                            " but first occurs at " +
                            (f == first.end() ? std::string("nowhere") : keypath_str(f->second))});
        }
      }
    }
    // INV-25: nonzero / unique of a statically empty input allocate nothing.
    if (n->kind == NodeKind::kCall &&
        (n->op == program::OpKind::kNonzero || n->op == program::OpKind::kUnique) &&
        n->args[0].kind == graph::NodeArg::Kind::kNode) {
      const Value& in = n->args[0].node->value;
      if (fake::is_fake_tensor(in)) {
        // Judged on the raw shape: facts learned later (e.g. u0 == 0 from a broadcast) do not
        // make an earlier allocation wrong.
        SymInt numel = fake::fake_of(in).numel();
        if (numel.is_constant() && numel.as_int() == 0 && !n->unbacked_bindings.empty()) {
          out.push_back(
              {"INV-25", node_where(n) + ": allocated a symbol for a statically empty input"});
        }
      }
    }
  }
  // INV-2: every symbol allocated in the window is bound exactly once (or unbound by design).
  auto expect_bound = [&](const ExprRef& s) {
    if (env.symbols().unbound_by_design().count(s) || bound_at.count(s)) return;
    out.push_back({"INV-2", s->str() + " was allocated but no node binds it"});
  };
  for (int64_t i = window.first_int; i < window.end_int; ++i) {
    expect_bound(sym::symbol(sym::SymKind::kUnbackedInt, i));
  }
  for (int64_t i = window.first_float; i < window.end_float; ++i) {
    expect_bound(sym::symbol(sym::SymKind::kUnbackedFloat, i));
  }
  return out;
}

namespace {

// The one symbol of `r` not in `bound`, when r is linear in it with a nonzero integer slope (r at
// x + 1 minus r at x is that integer), so that knowing r gives it; nullopt otherwise.
std::optional<ExprRef> solvable_symbol(const ExprRef& r,
                                       const std::set<ExprRef, sym::ExprLess>& bound) {
  std::optional<ExprRef> x;
  for (const ExprRef& s : sym::free_symbols(r)) {
    if (bound.count(s)) continue;
    if (x) return std::nullopt;
    x = s;
  }
  if (!x) return std::nullopt;
  ExprRef next = sym::substitute_symbols(
      r, [&](const ExprRef& s) { return s == *x ? sym::add(s, sym::integer(1)) : s; });
  ExprRef slope = sym::sub(next, r);
  if (!slope->is(sym::ExprKind::kInteger) || slope->int_value() == 0) return std::nullopt;
  return x;
}

// One graph in scope order; a subgraph starts from what its placeholders bind (lifted symbols,
// a loop's int carries) and sees nothing else of its caller.
void def_before_use(const graph::Graph& g, const ShapeEnv& env, bool subgraph,
                    std::vector<Violation>& out) {
  std::set<ExprRef, sym::ExprLess> bound;  // resolved names
  auto usable = [&](const ExprRef& s) {
    if (bound.count(env.resolve_renaming(s)) || bound.count(s)) return true;
    ExprRef r = env.replace(s);
    if (r == s) return false;
    for (const ExprRef& x : sym::free_unbacked_symbols(r)) {
      if (!bound.count(env.resolve_renaming(x)) && !bound.count(x)) return false;
    }
    return true;
  };
  for (const Node* n : g.nodes()) {
    for (const auto& [s, path] : n->unbacked_bindings) {
      bound.insert(s);
      bound.insert(env.resolve_renaming(s));
    }
    if (subgraph && n->kind == NodeKind::kPlaceholder) {
      // A lifted symbol also gives the value of the symbol it was later unified with (its
      // replacement, when that is a plain symbol): the subgraph's sizes may read that name.
      for (const auto& [s, path] : n->input_bindings) {
        bound.insert(s);
        bound.insert(env.resolve_renaming(s));
        ExprRef r = env.replace(s);
        if (r->is(sym::ExprKind::kSymbol)) bound.insert(r);
        // Or a * x + rest in the one symbol x not bound here: x is (s - rest) / a, computable.
        if (std::optional<ExprRef> x = solvable_symbol(r, bound)) bound.insert(*x);
      }
    }
    for (const auto& sub : n->subgraphs) def_before_use(*sub, env, true, out);
    std::set<ExprRef, sym::ExprLess> used;
    value_unbacked_symbols(n->value, used);
    if (n->assert_expr) {
      for (const ExprRef& s : sym::free_unbacked_symbols(n->assert_expr)) used.insert(s);
    }
    for (const ExprRef& s : used) {
      if (!usable(s)) {
        out.push_back({"INV-6", node_where(n) + " uses " + s->str() + " before any node binds it"});
      }
    }
  }
}

}  // namespace

std::vector<Violation> check_def_before_use(const graph::Graph& g, const ShapeEnv& env) {
  std::vector<Violation> out;
  def_before_use(g, env, false, out);
  return out;
}

std::vector<Violation> check_retrace_rebinding(const graph::Graph& old_graph,
                                               const graph::Graph& new_graph, const ShapeEnv& env) {
  std::vector<Violation> out;
  std::vector<Node*> a = old_graph.nodes(), b = new_graph.nodes();
  std::map<std::string, Node*> by_name;
  for (Node* n : b) by_name[n->name] = n;
  // Subgraphs pair up with their re-propagated counterparts.
  for (Node* old : a) {
    auto it = by_name.find(old->name);
    if (it == by_name.end() || it->second->subgraphs.size() != old->subgraphs.size()) continue;
    for (size_t i = 0; i < old->subgraphs.size(); ++i) {
      std::vector<Violation> sub =
          check_retrace_rebinding(*old->subgraphs[i], *it->second->subgraphs[i], env);
      out.insert(out.end(), sub.begin(), sub.end());
    }
  }
  for (Node* old : a) {
    if (old->unbacked_bindings.empty() || old->kind == NodeKind::kPlaceholder ||
        old->derived_binding) {
      continue;
    }
    auto it = by_name.find(old->name);
    if (it == by_name.end()) {
      out.push_back({"INV-17", node_where(old) + " has no counterpart after re-propagation"});
      continue;
    }
    for (const auto& [s, path] : env.resolve_unbacked_bindings(old->unbacked_bindings)) {
      Value fresh = key_get(it->second->value, keypath_without_conversion(path));
      if (fresh.is_constant_scalar()) continue;
      ExprRef f;
      if (fresh.kind() == Value::Kind::kBool && fresh.expr()->is(sym::ExprKind::kEq)) {
        f = fresh.expr()->arg(0);  // Eq(u, 1) under a ConvertIntKey
      } else if (fresh.kind() == Value::Kind::kInt && fresh.expr()->is(sym::ExprKind::kMul) &&
                 !path.empty() && path.back().kind == KeyEntry::Kind::kDivideBy) {
        f = fresh.expr()->arg(1);  // c*u under a DivideByKey
      } else if (fresh.kind() == Value::Kind::kInt || fresh.kind() == Value::Kind::kFloat) {
        f = fresh.expr();
      }
      if (!f || !f->is(sym::ExprKind::kSymbol)) {
        out.push_back({"INV-17", node_where(old) + ": re-propagated " + keypath_str(path) + " is " +
                                     fresh.str() + ", not a fresh symbol"});
        continue;
      }
      if (f == s) {
        out.push_back({"INV-17", node_where(old) + ": " + s->str() +
                                     " was not re-allocated (memo survived)"});
      } else if (env.replace(f) != env.replace(s)) {
        out.push_back({"INV-17", node_where(old) + ": fresh " + f->str() + " resolves to " +
                                     env.replace(f)->str() + ", not to " + env.replace(s)->str()});
      }
    }
  }
  return out;
}

namespace {

// Every symbol a value mentions (sizes, strides, offset; or the scalar's expression).
std::set<ExprRef, sym::ExprLess> symbols_of(const Value& v) {
  std::set<ExprRef, sym::ExprLess> out;
  auto add = [&](const ExprRef& e) {
    for (const ExprRef& s : sym::free_symbols(e)) out.insert(s);
  };
  if (v.kind() == Value::Kind::kTensor) {
    for (const SymInt& x : v.tensor()->sizes()) add(x.expr());
    for (const SymInt& x : v.tensor()->strides()) add(x.expr());
    add(v.tensor()->storage_offset().expr());
  } else if (v.kind() == Value::Kind::kInt || v.kind() == Value::Kind::kFloat ||
             v.kind() == Value::Kind::kBool) {
    add(v.expr());
  }
  return out;
}

// The same input: its sizes (or scalar) spelled alike and the same symbols throughout. Strides
// are recomputed from the sizes under the facts known by then (Max(1, u0) becomes u0 once
// u0 >= 1 is known), so only their symbols must agree.
bool same_input(const Value& traced, const Value& refakified) {
  if (traced.kind() != refakified.kind()) return false;
  if (traced.kind() == Value::Kind::kTensor) {
    const auto& a = traced.tensor()->sizes();
    const auto& b = refakified.tensor()->sizes();
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].expr() != b[i].expr()) return false;
    }
  } else if (traced.kind() != Value::Kind::kNone && traced.kind() != Value::Kind::kTuple &&
             traced.expr() != refakified.expr()) {
    return false;
  }
  return symbols_of(traced) == symbols_of(refakified);
}

}  // namespace

std::vector<Violation> check_refakified_inputs(const graph::Graph& old_graph,
                                               const graph::Graph& new_graph) {
  std::vector<Violation> out;
  std::map<std::string, Node*> placeholders;
  for (Node* n : new_graph.nodes()) {
    if (n->kind == NodeKind::kPlaceholder) placeholders[n->name] = n;
  }
  for (Node* old : old_graph.nodes()) {
    if (old->kind != NodeKind::kPlaceholder) continue;
    auto it = placeholders.find(old->name);
    if (it == placeholders.end()) {
      out.push_back({"INV-17", node_where(old) + ": input lost by re-propagation"});
    } else if (!same_input(old->value, it->second->value)) {
      out.push_back({"INV-17", node_where(old) + ": re-fakified as " + it->second->value.str() +
                                   ", traced as " + old->value.str()});
    }
  }
  return out;
}

Constantified constantified_symbols(const graph::Graph& old_graph, const graph::Graph& new_graph,
                                    const ShapeEnv& env) {
  Constantified out;
  std::map<std::string, Node*> by_name;
  for (Node* n : new_graph.nodes()) by_name[n->name] = n;
  for (Node* old : old_graph.nodes()) {
    // A subgraph's binding sites too (its re-propagated counterpart has the same node names).
    auto counterpart = by_name.find(old->name);
    if (counterpart != by_name.end() &&
        counterpart->second->subgraphs.size() == old->subgraphs.size()) {
      for (size_t i = 0; i < old->subgraphs.size(); ++i) {
        Constantified sub =
            constantified_symbols(*old->subgraphs[i], *counterpart->second->subgraphs[i], env);
        out.insert(sub.begin(), sub.end());
      }
    }
    if (old->unbacked_bindings.empty() || old->kind == NodeKind::kPlaceholder ||
        old->derived_binding) {
      continue;
    }
    auto it = by_name.find(old->name);
    if (it == by_name.end()) continue;
    for (const auto& [s, path] : env.resolve_unbacked_bindings(old->unbacked_bindings)) {
      Value now = key_get(it->second->value, keypath_without_conversion(path));
      if (!now.is_constant_scalar()) continue;
      const ExprRef& c = now.expr();
      out.emplace(s, c->is(sym::ExprKind::kBoolConst) ? sym::integer(c->bool_value() ? 1 : 0) : c);
    }
  }
  return out;
}

}  // namespace sf::oracles
