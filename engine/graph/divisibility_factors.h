// Binding the symbols the divisibility rewrite allocates (i0 == d * i1 after a check of
// i0 % d == 0): a node computing i0 // d, shared by the tracer and re-propagation.
#pragma once

#include <functional>
#include <optional>
#include <utility>

#include "engine/graph/graph.h"
#include "engine/shape_env/shape_env.h"

namespace sf::graph {

// Where a symbol is bound in `g`: its node and the path to it there (nullopt when unbound).
using BindingSite = std::function<std::optional<std::pair<Node*, KeyPath>>(const ExprRef&)>;

// Binds every symbol pending after a check (each a divisibility factor i1 of some i0) at a node
// computing i0 // d, placed right after i0's binding site rather than at the check: the
// replacement i0 -> d*i1 holds from then on, so every node between the two that mentions i0
// mentions i1 once re-propagated (a use before its definition, INV-6). Returns the new nodes.
std::vector<Node*> bind_divisibility_factors(Graph& g, ShapeEnv& env, const BindingSite& site_of,
                                             int line);

}  // namespace sf::graph
