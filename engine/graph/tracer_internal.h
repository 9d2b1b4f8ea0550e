// Internal to the tracer: the Tracer class, whose methods live in tracer.cc (statements, calls,
// checks), trace_hops.cc (cond, while_loop, invoke_subgraph) and trace_scans.cc (map, scan,
// associative_scan), and the traced value it works with.
#pragma once

#include <set>
#include <string_view>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/graph/divisibility_factors.h"
#include "engine/graph/hop_outputs.h"
#include "engine/graph/node_eval.h"
#include "engine/graph/scoped_asserts.h"
#include "engine/graph/tracer.h"
#include "engine/program/operand_mutation.h"
#include "engine/program/schema.h"
#include "engine/shape_env/contiguity.h"
#include "engine/sym/make.h"

namespace sf::graph::detail {

using program::Expr;
using program::ExprPtr;
using program::OpKind;
using program::ParamKind;
using program::Stmt;

// tolist's static length limit. Its length comes from a tensor's size, which a view makes as
// large as any int64 (expand(x, [10**12])) at no cost, and each element costs two graph nodes
// and an unbacked symbol; the passes and oracles are superlinear in the number of unbacked
// symbols (300 elements already take seconds with every oracle).
constexpr int64_t kMaxTolistLength = 256;

// A traced value: its fake value and how nodes refer to it (a node or a literal). Tuples built
// by the tracer itself (tolist) keep their elements.
struct TV {
  Value value;
  NodeArg arg;
  std::vector<TV> elems;
};

class Tracer {
 public:
  // Traces into `g` (the trace's graph, or a subgraph of a cond/while_loop at `depth`).
  Tracer(const program::Program& p, Trace& out, Graph& g, int depth = 0, std::string function = "")
      : p_(p), t_(out), g_(g), depth_(depth), function_(std::move(function)) {}

  void run();

 private:
  std::string pending_str() const {
    std::string s;
    for (const ExprRef& p : t_.env->pending_fresh_unbacked_symbols()) s += p->str() + " ";
    return s;
  }

  std::string where(int line, const std::string& what) const {
    return "line " + std::to_string(line) + ": " + what;
  }

  void add_input(const program::InputDecl& in);

  // Every symbol an input introduces, with its first keypath (sizes before strides).
  void record_input_bindings(Node* n);

  // Creates a call node whose value was computed already, and records what it binds.
  Node* add_node(OpKind op, std::vector<NodeArg> args, Value value, int line);

  // The fake value of `op` on `args` (node values as traced so far).
  Value evaluate(OpKind op, const std::vector<NodeArg>& args, int line);

  static std::optional<int64_t> literal_int(const ExprPtr& e);

  [[noreturn]] void invalid(const ExprPtr& e, const std::string& msg) {
    throw_user_error(UserErrorKind::kInvalidProgram, where(e->loc.line, msg));
  }

  NodeArg arg_for(const program::Param& p, const ExprPtr& e, const std::string& opname);

  // The elements of a tuple value as node arguments (getitem nodes when a node produced it).
  std::vector<NodeArg> tuple_elements(const TV& tv, int line);

  TV literal_tv(const Value& v);

  static bool all_literal(const std::vector<NodeArg>& args);

  TV eval_call(const ExprPtr& e);

  // A mutation (add_, index_put_) returns its mutated first argument: every variable naming that
  // tensor now names the new node. Mutating a tensor that has other views alive is not modelled.
  void functionalize_mutation(const ExprPtr& e, Node* n) {
    rebind_mutated(n->value, NodeArg::of(n), e->loc.line, program::op_name(n->op));
  }

  // The functional form of a mutation of `mutated` (a fake tensor): every variable naming that
  // tensor names `now` from here on, and `now` is its latest version (what a region returns for
  // a parameter it mutated).
  void rebind_mutated(const Value& mutated, const NodeArg& now, int line, const std::string& by);

  // tensor_split by indices: one slice node per part.
  TV expand_tensor_split(const ExprPtr& e, const std::vector<NodeArg>& args);

  // The tuple of these nodes' values, as an expansion (tolist, tensor_split) returns it.
  static TV tuple_of(const std::vector<Node*>& nodes);

  // tolist on a 1-D tensor of static length: select + item per element (spec §11 item 6).
  TV expand_tolist(const ExprPtr& e, const std::vector<ExprPtr>& bound);

  TV eval(const ExprPtr& e);

  void assign(const Stmt& s, TV tv);

  // After a check: symbols the divisibility rewrite allocated, bound at a node computing i0 // d.
  void bind_divisibility_factors(int line);

  void add_check(const Stmt& s, const TV& cond, const ExprRef& expr, const std::string& msg);

  void run_stmt(const Stmt& s);

  void run_block(const std::vector<Stmt>& body);

  void spend_work(int line, int64_t units);

  // ---- higher-order ops (spec §6) ----

  static constexpr int kMaxHopDepth = 64;

  const program::FunctionDef& function(const Stmt& s, size_t i);

  std::vector<TV> operand_values(const Stmt& s, const program::FunctionDef& f);

  // A subgraph's inputs (spec §6.4): per operand, a placeholder for each basic symbol of its
  // sizes, strides, offset or value not lifted yet (named after the symbol, before the operand's
  // own placeholder), then the operand. `args` holds the outer value of each placeholder.
  struct SubgraphInputs {
    std::vector<std::pair<std::string, Value>> placeholders;
    std::vector<NodeArg> args;
    std::vector<size_t> operand_slots;  // the placeholders that are operands, in order

    // The same inputs for another function over the same operands (its parameter names).
    SubgraphInputs renamed(const std::vector<std::string>& params) const {
      SubgraphInputs out = *this;
      for (size_t i = 0; i < operand_slots.size(); ++i)
        out.placeholders[operand_slots[i]].first = params.at(i);
      return out;
    }
    // The symbols the placeholders hold: what a size the caller sees may be over.
    std::set<ExprRef, sym::ExprLess> symbols() const {
      std::vector<Value> values;
      for (const auto& [name, v] : placeholders) values.push_back(v);
      return symbols_of(values);
    }
  };

  SubgraphInputs lift(const std::vector<TV>& operands, const std::vector<Value>& param_values,
                      const std::vector<std::string>& params);

  // A tensor operand as a subgraph sees it: a fresh contiguous tensor of its dtype and sizes
  // (a nested plan gets its inputs as dense values, like a program's; no memo is shared).
  Value contiguous_clone(const Value& v) {
    const fake::FakeTensor& f = fake::fake_of(v);
    return Value::tensor(t_.mode->make_contiguous(f.dtype(), f.sizes()));
  }

  struct TracedFunction {
    std::shared_ptr<Graph> graph;
    std::vector<Value> outputs;   // what it returns, then the last version of each mutated operand
    std::vector<size_t> mutated;  // the operands it mutates (functionalized only)
  };

  // Traces `f` into a subgraph with the given inputs, in a fresh epoch so no memo crosses the
  // subgraph boundary (each branch is speculated on its own, as Dynamo bumps the epoch).
  // With `functionalize` (invoke_subgraph), the last version of each operand the body mutated
  // is an output too, after what it returns (upstream's auto-functionalization, PR #154072).
  TracedFunction trace_function(const program::FunctionDef& f, const SubgraphInputs& in, int line,
                                bool functionalize = false);

  void add_placeholder(const std::string& name, const Value& v, int line);

  // The HOP node: its value, bindings for the symbols created for its outputs (INV-22: exactly
  // those are pending now), and the tuple the targets unpack.
  TV add_hop_node(NodeKind kind, const Stmt& s, std::vector<NodeArg> args,
                  std::vector<std::shared_ptr<Graph>> subgraphs, std::vector<Value> outputs,
                  std::string function_names);

  // Every function of a higher-order op, whichever runs: torch.cond and torch.while_loop refuse
  // functions that mutate or return their operands (eager applies the same rule).
  void no_operand_mutation(const Stmt& s, const std::vector<TV>& operands);

  std::vector<TV> trace_cond(const Stmt& s);

  // A call of `f` (invoke_subgraph, or the taken branch of a constant-predicate cond): the
  // region is traced once per graph and inputs (the lifted symbols and the operands' dtypes and
  // sizes), as upstream caches invoke_subgraph's fake propagation, and its node shared by every
  // call with those inputs. Each call's outputs are its own: what the region's inputs do not
  // determine is a fresh symbol the call binds. The cache is per graph: facts only grow within
  // one, so a region traced earlier is valid later, but not in another scope.
  // With `functionalize` (invoke_subgraph), an operand the region mutates is then rebound in the
  // caller to the node's output of its last version, and its memos go stale (its version moves
  // on, as after add_).
  std::vector<TV> trace_call(const Stmt& s, const program::FunctionDef& f,
                             const std::vector<TV>& operands, bool functionalize = false);

  // invoke_subgraph: an operand the region may mutate is not passed twice (eager's rule too).
  void no_mutated_operand_twice(const Stmt& s, const program::FunctionDef& f,
                                const std::vector<TV>& operands);

  // Whether `out` has the kind of `in`, and for a tensor its dtype and (provably) its sizes.
  bool same_meta(const Value& in, const Value& out);

  // check_meta_consistency: carry i keeps its kind, dtype and shape through the body.
  // Carry i of the function `f` (its parameter of that number) keeps its kind, dtype and shape.
  void check_carry(const Stmt& s, const program::FunctionDef& f, size_t i, const Value& in,
                   const Value& out);

  // The operands a map or scan goes over by rows (tensors of rank >= 1 and one first size n,
  // checked >= 1 as torch's map and scan do): a contiguous row of each appended to `rows`; n.
  SymInt rows_of(const Stmt& s, const std::vector<TV>& xs, std::vector<Value>& rows);

  // map (spec §6.5): the function traced once on one row of each operand, its outputs stacked
  // to [n, ...].
  std::vector<TV> trace_map(const Stmt& s);

  // scan (spec §6.5): fn(carries, rows) traced once on the initial carries (ints unspecialized,
  // tensors cloned, as while_loop's) and one row of each xs; it returns the next carries (each
  // keeping its kind, dtype and shape) and per-row outputs, stacked to [n, ...]. The node's
  // outputs: the final carries (ints fresh symbols bound at the node), then the stacked ones.
  std::vector<TV> trace_scan(const Stmt& s);

  // associative_scan (spec §6.5): fn traced once on a left and a right row of each operand (fresh
  // contiguous tensors: the operand's dtype and sizes without the scanned dim); it returns a row
  // per operand of that dtype and shape (torch's check_meta_consistency). The outputs are fresh
  // tensors of the operands' shapes: no size comes out of the function, and an empty dim is
  // allowed (nothing is combined; torch allows it too).
  std::vector<TV> trace_associative_scan(const Stmt& s);

  // The dim associative_scan goes over, in [0, rank) (a negative one counts from the end, as torch
  // canonicalizes it): its operands are tensors of one rank whose sizes along it are provably
  // equal.
  int64_t scan_dim(const Stmt& s, const std::vector<TV>& xs);

  // Bug zoo (before PR #148657): the combine function run once in the caller to check what it
  // returns, outside any subgraph, so what it learns (its checks) stays in the caller's facts.
  void probe_in_caller(const program::FunctionDef& f, const SubgraphInputs& in, int line);

  std::vector<TV> trace_while_loop(const Stmt& s);

  // getitem nodes for each output of a HOP node.
  std::vector<TV> unpack(const TV& node, size_t n, int line);

  void assign_all(const Stmt& s, std::vector<TV> values);

  const program::Program& p_;
  Trace& t_;
  Graph& g_;
  int depth_ = 0;
  std::string function_;      // the function traced ("" for the program's body)
  std::vector<TV> returned_;  // what the function's return statement evaluated
  // The last version of each tensor mutated here (add_, or a region that mutates it).
  std::map<const TensorLike*, NodeArg> latest_version_;
  std::vector<bool> last_view_decisions_;  // of the last evaluate()
  std::map<std::string, TV> vars_;
  // Where each symbol can be read from at runtime: the binding node and keypath.
  std::map<ExprRef, std::pair<Node*, KeyPath>, sym::ExprLess> sites_;
  // The regions this graph traced, by function and inputs (trace_call).
  std::map<std::string, TracedFunction> regions_;
};

}  // namespace sf::graph::detail
