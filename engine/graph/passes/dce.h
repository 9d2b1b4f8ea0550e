// Dead-code elimination that never removes a binding site whose symbol is still used, nor
// checks, asserts or mutations.
#pragma once

#include "engine/graph/graph.h"
#include "engine/shape_env/shape_env.h"

namespace sf::graph {

// Returns the number of nodes removed.
int eliminate_dead_code(Graph& g, const ShapeEnv& env);

}  // namespace sf::graph
