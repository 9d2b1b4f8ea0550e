// The graph IR (torch.fx analogue): placeholders, calls of program ops, tuple accessors, checks,
// runtime asserts and the output. Each node carries its fake example value and the unbacked
// symbols it binds (unbacked_bindings: symbol -> keypath into the node's value).
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/program/ast.h"
#include "engine/shape_env/assertion_store.h"
#include "engine/shape_env/keypath.h"
#include "engine/shape_env/value.h"

namespace sf::graph {

struct Node;

enum class NodeKind {
  kPlaceholder,    // a program input
  kCall,           // a program op (ops.def)
  kGetItem,        // element of a tuple-valued node: args [node, index]
  kStorageOffset,  // storage_offset() of a tensor node (keypath reification)
  kCheck,          // check(...) / check_is_size(...) from the program: args [cond]
  kAssertScalar,   // a runtime assert inserted by the runtime-assert pass
  kOutput,         // args: the returned values
  kCond,       // cond: args [pred, then the subgraphs' placeholder values]; subgraphs [then, else]
  kWhileLoop,  // while_loop: args [the subgraphs' placeholder values]; subgraphs [cond, body]
  // invoke_subgraph (a compiled region, or a cond whose predicate is a constant): args [the
  // subgraph's placeholder values]; subgraphs [region]. Calls with the same inputs share it.
  kInvokeSubgraph,
  // map: args [the subgraph's placeholder values: lifted symbols, the mapped operands];
  // subgraphs [fn, traced on one row of each]; mapped_args: the mapped operands' args.
  kMap,
  // scan: args [the placeholder values: lifted symbols, initial carries, scanned operands];
  // subgraphs [fn on the carries and one row of each]; carry_args, mapped_args.
  kScan,
  // associative_scan: args [the placeholder values: lifted symbols, the operands as the left
  // rows' slots, the operands again as the right rows']; subgraphs [fn on a left and a right
  // row of each]; carry_args (the left slots), mapped_args (the right ones), scan_dim.
  kAssociativeScan,
};
// The higher-order ops: nodes whose subgraphs run as nested programs.
inline bool is_higher_order(NodeKind k) {
  return k == NodeKind::kCond || k == NodeKind::kWhileLoop || k == NodeKind::kInvokeSubgraph ||
         k == NodeKind::kMap || k == NodeKind::kScan || k == NodeKind::kAssociativeScan;
}
const char* node_kind_name(NodeKind k);

struct NodeArg {
  enum class Kind { kNone, kNode, kInt, kFloat, kBool, kDType, kList };
  Kind kind = Kind::kNone;
  Node* node = nullptr;
  int64_t i = 0;
  double f = 0.0;
  bool b = false;
  program::DType dtype = program::DType::kFloat32;
  std::vector<NodeArg> list;

  static NodeArg none() { return NodeArg(); }
  static NodeArg of(Node* n);
  static NodeArg integer(int64_t v);
  static NodeArg floating(double v);
  static NodeArg boolean(bool v);
  static NodeArg dtype_of(program::DType d);
  static NodeArg list_of(std::vector<NodeArg> elems);
  // Calls fn on every node referenced (recursively through lists).
  template <typename F>
  void for_each_node(F&& fn) const {
    if (kind == Kind::kNode) fn(node);
    for (const NodeArg& a : list) a.for_each_node(fn);
  }
};

struct Node {
  int64_t id = 0;
  std::string name;
  NodeKind kind = NodeKind::kCall;
  program::OpKind op = program::OpKind::kAdd;  // kCall
  std::vector<NodeArg> args;                   // kCall: one per schema parameter
  Value value;                                 // fake example value (meta["val"])
  Bindings unbacked_bindings;                  // meta["unbacked_bindings"]
  Bindings input_bindings;                     // placeholders: every symbol of the input
  ExprRef assert_expr;                         // kCheck / kAssertScalar
  std::string message;                         // kCheck / kAssertScalar
  std::string input_name;                      // kPlaceholder
  int line = 0;                                // program line, for messages
  bool derived_binding = false;      // binds a divisibility factor as i0 // d (not re-allocated)
  std::vector<bool> view_decisions;  // view/reshape: computeStride's, as traced (replayed)
  // kCond / kWhileLoop: the branches or the loop's condition and body, each a graph whose
  // placeholders are, in order, the lifted symbols and operands the node's args supply (after
  // cond's predicate) and whose output node returns the function's values.
  std::vector<std::shared_ptr<class Graph>> subgraphs;
  std::string function_names;  // "then_fn, else_fn" (for printing)
  // kWhileLoop, kScan: the carries' args (others: lifted); kAssociativeScan: the left rows'.
  std::vector<size_t> carry_args;
  // kMap, kScan: the args of the operands gone over by rows; kAssociativeScan: the right rows'.
  std::vector<size_t> mapped_args;
  int64_t scan_dim = 0;  // kAssociativeScan: the dim (in [0, rank))
  std::vector<Node*> users;
  std::list<std::unique_ptr<Node>>::iterator pos;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  Graph(Graph&&) = default;
  Graph& operator=(Graph&&) = default;

  // Appends a node (or inserts it right after `after`); names are made unique ("nonzero_1").
  Node* add(NodeKind kind, std::string base_name, std::vector<NodeArg> args, Node* after = nullptr);
  // Removes a node that has no users.
  void erase(Node* n);
  // The node before n (null for the first).
  Node* before(const Node* n) const;
  // Rewrites every use of `from` to `to`.
  void replace_all_uses(Node* from, Node* to);
  template <typename F>
  void for_each(F&& fn) const {
    for (const auto& n : nodes_) fn(n.get());
  }
  std::vector<Node*> nodes() const;
  std::vector<Node*> placeholders() const;
  // A subgraph: the deferred asserts recorded while it was traced (not its own subgraphs'). The
  // runtime-assert pass places them in it, never in its caller: a branch's check holds only when
  // the branch runs.
  std::vector<RuntimeAssert> scoped_asserts;
  Node* output() const;
  size_t size() const { return nodes_.size(); }
  // FX-style text: example values, bindings and asserts; subgraphs follow their graph.
  std::string print() const;
  // Calls fn on every node of this graph and, depth first, of the subgraphs of its nodes; a
  // subgraph that several nodes share (invoke_subgraph's) is walked once.
  template <typename F>
  void for_each_nested(F&& fn) const;

 private:
  std::list<std::unique_ptr<Node>> nodes_;
  int64_t next_id_ = 0;
  std::map<std::string, int> name_counts_;
};

template <typename F>
void Graph::for_each_nested(F&& fn) const {
  std::set<const Graph*> seen{this};
  std::function<void(const Graph&)> walk = [&](const Graph& g) {
    for (const auto& n : g.nodes_) {
      fn(n.get());
      for (const auto& sub : n->subgraphs) {
        if (seen.insert(sub.get()).second) walk(*sub);
      }
    }
  };
  walk(*this);
}

std::string value_type_str(const Value& v);  // "f32[u0, 4]", "Sym(u1)", "(i64[u2], i64[u2])"
std::string arg_str(const NodeArg& a);

}  // namespace sf::graph
