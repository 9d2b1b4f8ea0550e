// Lowering (Inductor GraphLowering analogue, spec §5.2): the final FX-like graph becomes a
// wrapper plan of kernels and extern kernels. Views become layouts (no copies); extern kernels
// get their unbacked defs from a process_kernel re-propagation on IR-derived fake inputs; after
// each graph node, defs ⊇ resolved bindings and no symbol is defined twice (INV-18, abort on
// violation); every symbol a step uses is defined by an earlier step (INV-19, abort).
#pragma once

#include "engine/graph/tracer.h"
#include "engine/lower/plan.h"

namespace sf::lower {

// `g` is the trace's final graph (re-propagated, asserts inserted). The ShapeEnv is updated by
// the process_kernel re-propagations (fresh symbols renamed back to the graph's).
Plan lower_graph(const graph::Graph& g, graph::Trace& t);

}  // namespace sf::lower
