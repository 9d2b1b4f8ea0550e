// Divisibility factors get a binding node right after their dividend's.
#include "engine/graph/divisibility_factors.h"

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/graph/tracer.h"

namespace sf::graph {

std::vector<Node*> bind_divisibility_factors(Graph& g, ShapeEnv& env, const BindingSite& site_of,
                                             int line) {
  std::vector<Node*> out;
  std::vector<ExprRef> pending = env.pending_fresh_unbacked_symbols();
  for (const ExprRef& p : pending) {
    auto f = env.divisibility_factors().find(p);
    SF_CHECK(f != env.divisibility_factors().end())
        << "symbol " << p->str() << " pending after a check but not a divisibility factor";
    const auto& [i0, d] = f->second;
    std::optional<std::pair<Node*, KeyPath>> site = site_of(i0);
    SF_CHECK(site) << "divisibility factor of unbound symbol " << i0->str();
    Node* anchor = site->first;
    // Placeholders stay together at the top of the graph.
    if (anchor->kind == NodeKind::kPlaceholder) anchor = g.placeholders().back();
    Node* src = reify_keypath(g, site->first, site->second, anchor);
    Node* n = g.add(NodeKind::kCall, "floordiv", {NodeArg::of(src), NodeArg::integer(d)},
                    src == site->first ? anchor : src);
    n->op = program::OpKind::kFloorDiv;
    n->line = line;
    n->value = Value(SymInt(p));
    n->derived_binding = true;
    std::optional<Bindings> b = env.compute_unbacked_bindings(Value::tuple({n->value}));
    SF_CHECK(b && b->count(p)) << "divisibility factor " << p->str() << " not bound";
    n->unbacked_bindings = {{p, KeyPath{}}};
    out.push_back(n);
  }
  return out;
}

}  // namespace sf::graph
