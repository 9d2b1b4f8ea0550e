// Scoping deferred asserts to the subgraph whose trace recorded them.
#include "engine/graph/scoped_asserts.h"

namespace sf::graph {

bool ScopedAsserts::Less::operator()(const std::pair<ExprRef, std::string>& a,
                                     const std::pair<ExprRef, std::string>& b) const {
  int c = sym::compare(a.first, b.first);
  return c != 0 ? c < 0 : a.second < b.second;
}

ScopedAsserts::Set ScopedAsserts::all(const ShapeEnv& env) {
  Set out;
  for (const auto& [key, ras] : env.deferred_runtime_asserts())
    for (const RuntimeAssert& ra : ras) out.insert({ra.expr, ra.msg});
  return out;
}

ScopedAsserts::ScopedAsserts(const ShapeEnv& env, Graph& g) : env_(env), g_(g), before_(all(env)) {}

ScopedAsserts::~ScopedAsserts() {
  Set nested;
  g_.for_each_nested([&](const Node* n) {
    for (const auto& sub : n->subgraphs)
      for (const RuntimeAssert& ra : sub->scoped_asserts) nested.insert({ra.expr, ra.msg});
  });
  for (const auto& [key, ras] : env_.deferred_runtime_asserts()) {
    for (const RuntimeAssert& ra : ras) {
      std::pair<ExprRef, std::string> k{ra.expr, ra.msg};
      if (!before_.count(k) && !nested.count(k)) g_.scoped_asserts.push_back(ra);
    }
  }
}

}  // namespace sf::graph
