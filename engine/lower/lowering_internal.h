// Internal to lowering: the IR value of each graph node and the builder shared by the op-family
// lowering files.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "engine/fake/fake_mode.h"
#include "engine/graph/graph.h"
#include "engine/graph/tracer.h"
#include "engine/lower/plan.h"

namespace sf::lower::detail {

// What a graph node lowered to.
struct IrValue {
  enum class Kind { kNone, kTensor, kScalar, kTuple };
  Kind kind = Kind::kNone;
  Layout layout;               // kTensor
  ExprRef scalar;              // kScalar (an int/float/bool expression)
  std::vector<IrValue> elems;  // kTuple
  static IrValue tensor(Layout l);
  static IrValue scalar_of(ExprRef e);
};

class Lowering {
 public:
  // `subgraph`: a cond / while_loop subgraph, whose plan runs nested in its caller's (which
  // checks the guards: the subplan binds only the symbols of its own inputs).
  Lowering(const graph::Graph& g, graph::Trace& t, bool subgraph = false)
      : g_(g), t_(t), env_(*t.env), subgraph_(subgraph) {}
  Plan run();

  // ---- used by the family files ----
  ShapeEnv& env() { return env_; }
  const IrValue& value_of(const graph::NodeArg& a) const;
  IrValue arg_value(const graph::NodeArg& a) const;  // literals become scalars
  ExprRef simplified(const ExprRef& e) const { return env_.simplify(e); }
  // A fresh buffer for `node`'s (tensor) value, allocated by a step now: contiguous, or with
  // `operand_layout` (an in-place op's result) its operand's layout, a view's strides and offset.
  Layout alloc_for(const Value& v, const std::string& hint, bool operand_layout = false);
  // Whether the fake tensor is laid out contiguously from offset 0 (as a fresh result is; an
  // in-place op's result is its operand, maybe a view).
  bool dense_at_zero(const fake::FakeTensor& f) const;
  int add_buffer(DType dtype, std::vector<ExprRef> sizes, const std::string& input_name = "");
  // The access of `l` over an iteration space (aligned at the trailing dims; broadcast dims,
  // i.e. size 1 against a larger iteration size, get stride 0).
  Access access_of(const Layout& l, const std::vector<ExprRef>& iter) const;
  bool known_one(const ExprRef& size) const;
  Access contiguous_access(const Layout& out, const std::vector<ExprRef>& iter) const;
  int add_kernel(Kernel k);  // appends the launch step
  void add_step(Step s) { plan_.steps.push_back(std::move(s)); }
  Plan& plan() { return plan_; }
  graph::Trace& trace() { return t_; }

 private:
  void lower_node(const graph::Node* n);
  void lower_call(const graph::Node* n);
  // cond / while_loop: each subgraph lowered to its own plan, run by one step.
  void lower_higher_order(const graph::Node* n);
  void bind_inputs();
  void rederive(const ExprRef& lifted, const ExprRef& canonical);
  void check_definitions_cover_bindings(const graph::Node* n, size_t first_new_def);
  void insert_frees();
  void check_closure();

  const graph::Graph& g_;
  graph::Trace& t_;
  ShapeEnv& env_;
  bool subgraph_;
  Plan plan_;
  std::map<const graph::Node*, IrValue> values_;
  std::map<const graph::Graph*, int> subplan_of_;  // the subplan of each subgraph lowered
  std::vector<ExprRef> defs_;                      // symbols defined by bind steps, in order
  std::set<ExprRef, sym::ExprLess> defined_;       // the same, for uniqueness
  friend IrValue lower_extern(Lowering& L, const graph::Node* n);
  friend void record_def(Lowering& L, const ExprRef& s, const graph::Node* n);
};

// A value as a plan step refers to it (outputs, HOP operands).
OutputRef output_ref(const IrValue& v);

// Family entry points (lower_ops.cc, lower_extern.cc, lower_contraction.cc, lower_gathers.cc).
IrValue lower_pointwise(Lowering& L, const graph::Node* n);
IrValue lower_reduction(Lowering& L, const graph::Node* n);
IrValue lower_creation(Lowering& L, const graph::Node* n);
IrValue lower_view(Lowering& L, const graph::Node* n);
IrValue lower_join(Lowering& L, const graph::Node* n);
IrValue lower_extern(Lowering& L, const graph::Node* n);
IrValue lower_contraction(Lowering& L, const graph::Node* n);   // mm bmm matmul (reductions)
IrValue lower_gathers(Lowering& L, const graph::Node* n);       // gather embedding roll (joins)
IrValue lower_arg_extremum(Lowering& L, const graph::Node* n);  // argmax argmin (reductions)
IrValue lower_repeat(Lowering& L, const graph::Node* n);        // repeat tile (lower_copies.cc)
IrValue lower_pad(Lowering& L, const graph::Node* n);           // pad (lower_copies.cc)
IrValue lower_split(Lowering& L, const graph::Node* n);         // split_with_sizes (a view)
void record_def(Lowering& L, const ExprRef& s, const graph::Node* n);

// A literal dim counted from the end when negative (a 0-dim tensor takes dims 0 and -1, as meta
// and eager), and a dims argument's entries (one int or a list).
inline int64_t wrap_dim(int64_t d, int64_t rank) {
  return d < 0 ? d + std::max<int64_t>(rank, 1) : d;
}
std::vector<graph::NodeArg> dims_of(const graph::NodeArg& a);

// Promotion helpers mirroring docs/ops.md.
DType value_dtype(const IrValue& v);
// The element a fill (full, pad) writes: the scalar converted to `out` as eager converts it.
KExprPtr fill_value(const IrValue& v, DType out);
// A reduction kernel's output access: iteration dim d writes along the output's next dim, or
// nowhere (stride 0) when reduced; under keepdim the output keeps a size-1 dim for it.
Access reduction_output(
    const Layout& out,
    const std::vector<bool>& reduced);  // tensors: their dtype; scalars: the scalar kind's dtype
KExprPtr operand(Kernel& k, Lowering& L, const IrValue& v, const std::vector<ExprRef>& iter);

}  // namespace sf::lower::detail
