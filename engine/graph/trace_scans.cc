// The tracer's map, scan and associative_scan: the rows their operands share (one first size),
// each function traced on one row, the stacked outputs and the carries' checks.
#include "engine/graph/tracer_internal.h"

namespace sf::graph {

namespace detail {

// The operands a map or scan goes over by rows (tensors of rank >= 1 and one first size n,
// checked >= 1 as torch's map and scan do): a contiguous row of each appended to `rows`; n.
SymInt Tracer::rows_of(const Stmt& s, const std::vector<TV>& xs, std::vector<Value>& rows) {
  const std::string what = program::higher_order_name(s.kind);
  if (xs.empty()) {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     where(s.loc.line, what + ": no operand to go over"));
  }
  std::optional<SymInt> n;
  for (const TV& x : xs) {
    if (x.value.kind() != Value::Kind::kTensor || fake::fake_of(x.value).dim() == 0) {
      throw_user_error(UserErrorKind::kInvalidProgram,
                       where(s.loc.line, what +
                                             ": every operand it goes over is a tensor of rank "
                                             ">= 1 (by its first dim), got " +
                                             x.value.str()));
    }
    const fake::FakeTensor& t = fake::fake_of(x.value);
    if (n && !t_.env->statically_known_true(sym_eq(*n, t.sizes()[0]))) {
      throw_user_error(UserErrorKind::kShape,
                       where(s.loc.line, what + ": the operands' first sizes differ (" + n->str() +
                                             " and " + t.sizes()[0].str() + ")"));
    }
    n = t.sizes()[0];
    std::vector<SymInt> row(t.sizes().begin() + 1, t.sizes().end());
    rows.push_back(Value::tensor(t_.mode->make_contiguous(t.dtype(), row)));
  }
  // Not empty: a check the program could have written (a deferred assert when n is unbacked).
  SymBool nonempty = sym_ge(*n, 1);
  const std::string message = what + ": the operands' first size must be >= 1";
  t_.env->check(nonempty, where(s.loc.line, message));
  if (!t_.env->statically_known_true(nonempty) && xs[0].arg.kind == NodeArg::Kind::kNode) {
    Node* size =
        reify_keypath(g_, xs[0].arg.node,
                      {KeyEntry::call_method(TensorMethod::kSize), KeyEntry::sequence(0)}, nullptr);
    Node* ge = g_.add(NodeKind::kCall, "ge", {NodeArg::of(size), NodeArg::integer(1)});
    ge->op = OpKind::kGe;
    ge->line = s.loc.line;
    ge->value = Value(nonempty);
    add_check(s, TV{ge->value, NodeArg::of(ge), {}}, nonempty.expr(), message);
  }
  return *n;
}

// map (spec §6.5): the function traced once on one row of each operand, its outputs stacked
// to [n, ...].
std::vector<TV> Tracer::trace_map(const Stmt& s) {
  const program::FunctionDef& f = function(s, 0);
  std::vector<TV> xs = operand_values(s, f);
  std::vector<Value> rows;
  SymInt n = rows_of(s, xs, rows);
  no_operand_mutation(s, xs);
  SubgraphInputs in = lift(xs, rows, f.params);
  TracedFunction step = trace_function(f, in, s.loc.line);
  std::set<ExprRef, sym::ExprLess> inputs = in.symbols();
  std::vector<Value> outputs;
  for (const Value& v : step.outputs)
    outputs.push_back(map_output(*t_.mode, v, n, inputs, "line " + std::to_string(s.loc.line)));
  TV node = add_hop_node(NodeKind::kMap, s, in.args, {step.graph}, outputs, f.name);
  node.arg.node->mapped_args = in.operand_slots;
  return unpack(node, outputs.size(), s.loc.line);
}

// scan (spec §6.5): fn(carries, rows) traced once on the initial carries (ints unspecialized,
// tensors cloned, as while_loop's) and one row of each xs; it returns the next carries (each
// keeping its kind, dtype and shape) and per-row outputs, stacked to [n, ...]. The node's
// outputs: the final carries (ints fresh symbols bound at the node), then the stacked ones.
std::vector<TV> Tracer::trace_scan(const Stmt& s) {
  const program::FunctionDef& f = function(s, 0);
  std::vector<TV> all = operand_values(s, f);
  size_t k = std::min(s.carries, all.size());
  if (k == 0) {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     where(s.loc.line,
                           "scan: at least one initial carry (torch's scan requires "
                           "init leaves)"));
  }
  std::vector<TV> xs(all.begin() + static_cast<long>(k), all.end());
  std::vector<Value> values;
  {
    auto ignore = t_.env->ignore_fresh_unbacked_symbols();
    for (size_t i = 0; i < k; ++i) {
      const TV& c = all[i];
      if (c.value.kind() != Value::Kind::kInt) {
        values.push_back(contiguous_clone(c.value));
      } else if (fault_on(Fault::kScanIntCarrySpecialized)) {
        values.push_back(c.value);  // the initial value, as before PR #143106's unspecializing
      } else {
        values.push_back(Value(t_.env->create_unbacked_symint()));
      }
    }
  }
  SymInt n = rows_of(s, xs, values);
  no_operand_mutation(s, all);
  SubgraphInputs in = lift(all, values, f.params);
  TracedFunction step = trace_function(f, in, s.loc.line);
  if (step.outputs.size() < k) {
    throw_user_error(
        UserErrorKind::kInvalidProgram,
        where(s.loc.line, "scan: the function returns " + std::to_string(step.outputs.size()) +
                              " values for " + std::to_string(k) + " carries"));
  }
  std::set<ExprRef, sym::ExprLess> inputs = in.symbols();
  std::vector<Value> outputs;
  for (size_t i = 0; i < step.outputs.size(); ++i) {
    if (i < k) {
      check_carry(s, f, i, values[i], step.outputs[i]);
      outputs.push_back(while_loop_output(*t_.mode, all[i].value));
    } else {
      outputs.push_back(
          map_output(*t_.mode, step.outputs[i], n, inputs, "line " + std::to_string(s.loc.line)));
    }
  }
  TV node = add_hop_node(NodeKind::kScan, s, in.args, {step.graph}, outputs, f.name);
  node.arg.node->carry_args.assign(in.operand_slots.begin(),
                                   in.operand_slots.begin() + static_cast<long>(k));
  node.arg.node->mapped_args.assign(in.operand_slots.begin() + static_cast<long>(k),
                                    in.operand_slots.end());
  return unpack(node, outputs.size(), s.loc.line);
}

// associative_scan (spec §6.5): fn traced once on a left and a right row of each operand (fresh
// contiguous tensors: the operand's dtype and sizes without the scanned dim); it returns a row
// per operand of that dtype and shape (torch's check_meta_consistency). The outputs are fresh
// tensors of the operands' shapes: no size comes out of the function, and an empty dim is
// allowed (nothing is combined; torch allows it too).
std::vector<TV> Tracer::trace_associative_scan(const Stmt& s) {
  const program::FunctionDef& f = function(s, 0);
  std::vector<TV> xs;
  for (const ExprPtr& e : s.operands) xs.push_back(eval(e));
  const size_t k = xs.size();
  if (k == 0 || f.params.size() != 2 * k) {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     where(s.loc.line, "associative_scan: the combine function '" + f.name +
                                           "' takes " + std::to_string(f.params.size()) +
                                           " parameters for " + std::to_string(k) +
                                           " operands (it takes a left and a right row of "
                                           "each; at least one operand)"));
  }
  const int64_t d = scan_dim(s, xs);
  std::vector<TV> both = xs;
  both.insert(both.end(), xs.begin(), xs.end());
  std::vector<Value> rows;
  for (const TV& x : both) {
    const fake::FakeTensor& t = fake::fake_of(x.value);
    std::vector<SymInt> row(t.sizes().begin(), t.sizes().end());
    row.erase(row.begin() + d);
    rows.push_back(Value::tensor(t_.mode->make_contiguous(t.dtype(), row)));
  }
  no_operand_mutation(s, both);
  SubgraphInputs in = lift(both, rows, f.params);
  if (fault_on(Fault::kAssociativeScanCombineProbed)) probe_in_caller(f, in, s.loc.line);
  TracedFunction step = trace_function(f, in, s.loc.line);
  if (step.outputs.size() != k) {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     where(s.loc.line, "associative_scan: the combine function '" + f.name +
                                           "' returns " + std::to_string(step.outputs.size()) +
                                           " values for " + std::to_string(k) + " operands"));
  }
  std::vector<Value> outputs;
  for (size_t i = 0; i < k; ++i) {
    if (!same_meta(rows[i], step.outputs[i])) {
      throw_user_error(
          UserErrorKind::kShape,
          where(s.loc.line, "associative_scan: operand " + std::to_string(i) + " ('" + f.params[i] +
                                "') has rows " + value_type_str(rows[i]) + " but '" + f.name +
                                "' returns " + value_type_str(step.outputs[i]) +
                                " for it (the combine function keeps each row's "
                                "dtype and shape)"));
    }
    outputs.push_back(while_loop_output(*t_.mode, xs[i].value));
  }
  TV node = add_hop_node(NodeKind::kAssociativeScan, s, in.args, {step.graph}, outputs, f.name);
  Node* n = node.arg.node;
  n->carry_args.assign(in.operand_slots.begin(), in.operand_slots.begin() + static_cast<long>(k));
  n->mapped_args.assign(in.operand_slots.begin() + static_cast<long>(k), in.operand_slots.end());
  n->scan_dim = d;
  return unpack(node, k, s.loc.line);
}

// The dim associative_scan goes over, in [0, rank) (a negative one counts from the end, as torch
// canonicalizes it): its operands are tensors of one rank whose sizes along it are provably
// equal.
int64_t Tracer::scan_dim(const Stmt& s, const std::vector<TV>& xs) {
  std::optional<SymInt> size;
  int64_t rank = -1, d = 0;
  for (const TV& x : xs) {
    if (x.value.kind() != Value::Kind::kTensor || fake::fake_of(x.value).dim() == 0) {
      throw_user_error(
          UserErrorKind::kInvalidProgram,
          where(s.loc.line, "associative_scan: operand " + std::to_string(&x - xs.data()) + " is " +
                                x.value.str() + "; every operand is a tensor of rank >= 1"));
    }
    const fake::FakeTensor& t = fake::fake_of(x.value);
    if (rank >= 0 && t.dim() != rank) {
      throw_user_error(
          UserErrorKind::kShape,
          where(s.loc.line, "associative_scan: the operands' ranks differ (" +
                                std::to_string(rank) + " and " + std::to_string(t.dim()) + ")"));
    }
    rank = t.dim();
    if (s.dim < -rank || s.dim >= rank) {
      throw_user_error(
          UserErrorKind::kInvalidProgram,
          where(s.loc.line, "associative_scan: dim " + std::to_string(s.dim) +
                                " is out of range for rank " + std::to_string(rank) + " operands"));
    }
    d = s.dim < 0 ? s.dim + rank : s.dim;
    const SymInt& n = t.sizes()[d];
    if (size && !t_.env->statically_known_true(sym_eq(*size, n))) {
      throw_user_error(
          UserErrorKind::kShape,
          where(s.loc.line, "associative_scan: the operands' sizes along dim " + std::to_string(d) +
                                " differ (" + size->str() + " and " + n.str() + ")"));
    }
    size = n;
  }
  return d;
}

}  // namespace detail
}  // namespace sf::graph
