// Re-propagation (AOTAutograd's PropagateUnbackedSymInts analogue): re-runs every node's meta
// function with the fake-mode epoch bumped, so each binding site allocates a fresh symbol, and
// rebind_unbacked renames it back to the symbol the rest of the graph already uses.
#pragma once

#include "engine/graph/tracer.h"

namespace sf::graph {

struct RepropagateOptions {
  // A fresh FakeMode that re-fakifies inputs through the stateful symbolic contexts (same
  // symbols); otherwise the trace's own mode and fake inputs are reused (as AOT does).
  bool fresh_fake_mode = false;
  // Testing knob: skipping the epoch bump lets input memos survive, which must fail loudly
  // ("possible memo disaster").
  bool bump_epoch = true;
};

// Returns the re-propagated graph; its nodes record bindings with the fresh names, which
// resolve_unbacked_bindings maps back. The trace's ShapeEnv is shared and updated.
Graph repropagate(Trace& t, const RepropagateOptions& opts = {});

}  // namespace sf::graph
