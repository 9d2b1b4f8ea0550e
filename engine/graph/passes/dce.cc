// DCE with binding-site protection.
#include "engine/graph/passes/dce.h"

#include <set>

#include "engine/base/faults.h"
#include "engine/program/schema.h"
#include "engine/sym/walk.h"

namespace sf::graph {

namespace {

void collect_symbols(const ShapeEnv& env, const Value& v, std::set<ExprRef, sym::ExprLess>& out) {
  auto add_expr = [&](const ExprRef& e) {
    for (const ExprRef& s : sym::free_symbols(e)) {
      out.insert(env.resolve_renaming(s));
      for (const ExprRef& r : sym::free_symbols(env.replace(s))) out.insert(r);
    }
  };
  switch (v.kind()) {
    case Value::Kind::kInt:
    case Value::Kind::kFloat:
    case Value::Kind::kBool:
      add_expr(v.expr());
      break;
    case Value::Kind::kTuple:
      for (const Value& e : v.elems()) collect_symbols(env, e, out);
      break;
    case Value::Kind::kTensor: {
      const TensorLike& t = *v.tensor();
      for (const SymInt& s : t.sizes()) add_expr(s.expr());
      for (const SymInt& s : t.strides()) add_expr(s.expr());
      add_expr(t.storage_offset().expr());
      break;
    }
    case Value::Kind::kNone:
      break;
  }
}

bool removable(const Node* n) {
  if (!n->users.empty()) return false;
  switch (n->kind) {
    case NodeKind::kCall:
      return program::schema(n->op).family != program::OpFamily::kMutation;
    case NodeKind::kGetItem:
    case NodeKind::kStorageOffset:
      return true;
    case NodeKind::kPlaceholder:
    case NodeKind::kCheck:
    case NodeKind::kAssertScalar:
    case NodeKind::kOutput:
    case NodeKind::kCond:       // its subgraphs may check and assert
    case NodeKind::kWhileLoop:  // (and a loop may not terminate: it is not dead code)
    case NodeKind::kInvokeSubgraph:
    case NodeKind::kMap:
    case NodeKind::kScan:
    case NodeKind::kAssociativeScan:
      return false;
  }
  return false;
}

// The symbols each node mentions (its value's and its assert's), counted over the graph, kept
// as nodes are erased: a binding site is needed while another node mentions one of its symbols.
// (Collecting every other node's symbols per candidate was quadratic in the graph.)
class SymbolUses {
 public:
  SymbolUses(const Graph& g, const ShapeEnv& env) {
    for (Node* n : g.nodes()) {
      std::set<ExprRef, sym::ExprLess>& mine = of_[n];
      collect_symbols(env, n->value, mine);
      if (n->assert_expr) collect_symbols(env, Value(SymBool(n->assert_expr)), mine);
      for (const ExprRef& s : mine) ++count_[s];
    }
  }
  bool used_by_another(const Node* n, const ExprRef& s) const {
    auto c = count_.find(s);
    if (c == count_.end()) return false;
    return c->second > static_cast<int>(of_.at(n).count(s));
  }
  void erase(const Node* n) {
    for (const ExprRef& s : of_.at(n)) --count_[s];
    of_.erase(n);
  }

 private:
  std::map<const Node*, std::set<ExprRef, sym::ExprLess>> of_;
  std::map<ExprRef, int, sym::ExprLess> count_;
};

}  // namespace

int eliminate_dead_code(Graph& g, const ShapeEnv& env) {
  int removed = 0;
  SymbolUses uses(g, env);
  bool changed = true;
  while (changed) {
    changed = false;
    std::vector<Node*> nodes = g.nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      Node* n = *it;
      if (!removable(n)) continue;
      if (!n->unbacked_bindings.empty() && !fault_on(Fault::kDceDropsBindingSite)) {
        // Keep a binding site while any other node (value or assert) still mentions its symbols.
        bool needed = false;
        for (const auto& [s, path] : env.resolve_unbacked_bindings(n->unbacked_bindings)) {
          needed = needed || uses.used_by_another(n, s);
        }
        if (needed) continue;
      }
      uses.erase(n);
      g.erase(n);
      ++removed;
      changed = true;
    }
  }
  // Inside subgraphs: their symbols never escape (a HOP's outputs are fresh), so each is its own
  // scope; a placeholder is never removed (the node's args line up with them).
  for (Node* n : g.nodes()) {
    for (const auto& sub : n->subgraphs) removed += eliminate_dead_code(*sub, env);
  }
  return removed;
}

}  // namespace sf::graph
