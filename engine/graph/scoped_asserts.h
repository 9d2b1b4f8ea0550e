// The deferred asserts a subgraph owns: recorded while it was traced or re-propagated (less
// those of its own subgraphs). The runtime-assert pass places them in it, never in its caller.
#pragma once

#include <set>
#include <string>
#include <utility>

#include "engine/graph/graph.h"
#include "engine/shape_env/shape_env.h"

namespace sf::graph {

// For the lifetime of the scope, everything deferred meanwhile is appended to g.scoped_asserts.
class ScopedAsserts {
 public:
  ScopedAsserts(const ShapeEnv& env, Graph& g);
  ~ScopedAsserts();
  ScopedAsserts(const ScopedAsserts&) = delete;
  ScopedAsserts& operator=(const ScopedAsserts&) = delete;

 private:
  struct Less {
    bool operator()(const std::pair<ExprRef, std::string>& a,
                    const std::pair<ExprRef, std::string>& b) const;
  };
  using Set = std::set<std::pair<ExprRef, std::string>, Less>;
  static Set all(const ShapeEnv& env);
  const ShapeEnv& env_;
  Graph& g_;
  Set before_;
};

}  // namespace sf::graph
