// Fake evaluation of one node from its arguments: shared by the tracer (which builds nodes from
// program expressions) and the re-propagation pass (which re-runs existing nodes).
#pragma once

#include <functional>
#include <vector>

#include "engine/fake/meta/meta.h"
#include "engine/graph/graph.h"

namespace sf::graph {

// The value of an argument that is a node (read through `value_of`) or a literal scalar; none
// for a list, a dtype or none.
Value arg_value(const NodeArg& a, const std::function<const Value&(Node*)>& value_of);

// Converts a call node's arguments into meta arguments of the op's schema, reading node values
// through `value_of`. Kind mismatches (a tensor where an int is required) are user errors.
std::vector<fake::MetaArg> to_meta_args(const fake::MetaContext& ctx, program::OpKind op,
                                        const std::vector<NodeArg>& args,
                                        const std::function<const Value&(Node*)>& value_of);

// The fake value of a call of `op` on `args`: the one place an op's meta function is run, by the
// tracer (for nodes it is about to create), eval_node and re-propagation.
Value eval_call(fake::MetaContext& ctx, program::OpKind op, const std::vector<NodeArg>& args,
                const std::function<const Value&(Node*)>& value_of);

// The fake value of a (non-placeholder) node given its inputs' values.
Value eval_node(fake::MetaContext& ctx, const Node& n,
                const std::function<const Value&(Node*)>& value_of);

}  // namespace sf::graph
