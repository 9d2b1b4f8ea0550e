// The runtime-assert insertion pass (torch.fx insert_deferred_runtime_asserts, spec §5.1): range
// asserts for bound unbacked symbols and each deferred assert placed right after the last of its
// symbols is bound (re-bucketing when some are still missing). Checks already implied are dropped.
#pragma once

#include <vector>

#include "engine/graph/graph.h"
#include "engine/shape_env/shape_env.h"

namespace sf::graph {

struct RuntimeAssertReport {
  int range_asserts = 0;
  int deferred_asserts = 0;
  int dropped_checks = 0;
  // Deferred asserts that could not be placed because some symbol is never bound in the graph.
  std::vector<RuntimeAssert> unplaced;
};

RuntimeAssertReport insert_runtime_asserts(Graph& g, ShapeEnv& env);

}  // namespace sf::graph
