// Checkers for the graph-level invariants of spec §8: binding completeness and uniqueness
// (INV-2/3), path validity and earliest path (INV-4/5), def-before-use (INV-6), retrace
// rebinding (INV-17), SymBool bindings (INV-23) and numel-zero (INV-25).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/shape_env/shape_env.h"
#include "oracles/invariants/shape_env_invariants.h"

namespace sf::oracles {

// The unbacked symbols a graph must bind: those allocated by the ShapeEnv with index in
// [first_int, end_int) (and floats in [first_float, end_float)), minus the unbound-by-design ones.
struct SymbolWindow {
  int64_t first_int = 0, end_int = 0;
  int64_t first_float = 0, end_float = 0;
  static SymbolWindow all(const ShapeEnv& env);
};

// "%name (line N)", how every graph checker names a node.
std::string node_where(const graph::Node* n);
// The unbacked symbols in a value's scalars, sizes, strides and storage offsets.
void value_unbacked_symbols(const Value& v, std::set<ExprRef, sym::ExprLess>& out);

// INV-22 for one cond / while_loop node: what it binds occurs in none of its subgraphs.
void check_hop_scoping(const graph::Node* n, std::vector<Violation>& out);

// INV-2, 3, 4, 5, 22, 23, 25 on one graph and the subgraphs of its cond / while_loop nodes.
std::vector<Violation> check_bindings(const graph::Graph& g, const ShapeEnv& env,
                                      const SymbolWindow& window);
// INV-6: every symbol used by a node (value, assert) is bound earlier (through renamings and
// replacements), and asserts come after all their symbols are bound.
std::vector<Violation> check_def_before_use(const graph::Graph& g, const ShapeEnv& env);
// INV-17: after re-propagation, each old binding site's path holds a fresh symbol (or a
// constant) that now resolves to the old one. `old_graph` and `new_graph` correspond node by node.
std::vector<Violation> check_retrace_rebinding(const graph::Graph& old_graph,
                                               const graph::Graph& new_graph, const ShapeEnv& env);
// INV-17 for the inputs: re-propagation re-fakifies them in a fresh fake mode (spec §1.5, the
// stateful symbolic contexts); each placeholder must come back holding exactly the value the
// trace gave it, whose symbols every guard, assert and node use.
std::vector<Violation> check_refakified_inputs(const graph::Graph& old_graph,
                                               const graph::Graph& new_graph);
// The traced symbols (resolved names) whose binding site re-propagation turned into a constant:
// the node's fresh value at the binding path is a number (nonzero of an input that later facts
// made statically empty), so no node of `new_graph` binds them. Upstream's rebind_unbacked drops
// such a symbol silently and its asserts are never emitted (spec §2.12). Each maps to the number
// its binding site now computes (a SymBool's 0/1 for a ConvertIntKey path).
using Constantified = std::map<ExprRef, ExprRef, sym::ExprLess>;
Constantified constantified_symbols(const graph::Graph& old_graph, const graph::Graph& new_graph,
                                    const ShapeEnv& env);

}  // namespace sf::oracles
