// The tracer's higher-order ops (spec §6): each function traced into a subgraph in a fresh epoch,
// its inputs lifted (placeholders for the symbols of its operands), its outputs given fresh
// symbols bound at the HOP node; cond, while_loop and invoke_subgraph here, the row-wise ones in
// trace_scans.cc.
#include "engine/base/check.h"
#include "engine/graph/tracer_internal.h"

namespace sf::graph {

namespace detail {

const program::FunctionDef& Tracer::function(const Stmt& s, size_t i) {
  const program::FunctionDef* f = p_.function(s.functions.at(i));
  if (!f) {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     where(s.loc.line, "undefined function '" + s.functions[i] + "'"));
  }
  return *f;
}

std::vector<TV> Tracer::operand_values(const Stmt& s, const program::FunctionDef& f) {
  std::vector<TV> out;
  for (const ExprPtr& e : s.operands) out.push_back(eval(e));
  if (out.size() != f.params.size()) {
    throw_user_error(
        UserErrorKind::kInvalidProgram,
        where(s.loc.line, "function '" + f.name + "' takes " + std::to_string(f.params.size()) +
                              " operands, got " + std::to_string(out.size())));
  }
  for (const TV& tv : out) {
    Value::Kind k = tv.value.kind();
    if (k != Value::Kind::kTensor && k != Value::Kind::kInt) {
      throw_user_error(
          UserErrorKind::kUnsupported,
          where(s.loc.line, std::string("operands of ") + program::higher_order_name(s.kind) +
                                " are tensors and ints, got " + tv.value.str()));
    }
  }
  return out;
}

Tracer::SubgraphInputs Tracer::lift(const std::vector<TV>& operands,
                                    const std::vector<Value>& param_values,
                                    const std::vector<std::string>& params) {
  SubgraphInputs in;
  std::set<ExprRef, sym::ExprLess> lifted;  // the cache of this subgraph's tracer
  for (size_t i = 0; i < operands.size(); ++i) {
    std::vector<ExprRef> exprs;
    const Value& v = param_values[i];
    if (v.kind() == Value::Kind::kTensor) {
      const TensorLike& t = *v.tensor();
      for (const SymInt& x : t.sizes()) exprs.push_back(x.expr());
      for (const SymInt& x : t.strides()) exprs.push_back(x.expr());
      exprs.push_back(t.storage_offset().expr());
    } else {
      exprs.push_back(v.expr());
    }
    // The replaced forms too: the subgraph reads sizes through the replacements known when it
    // is traced (u0 -> 2*s0 from an earlier broadcast makes numel(a) 2*s0), so s0 must be an
    // input of it as well, when this graph can read it (the stated symbols it always can).
    size_t stated = exprs.size();
    for (size_t k = 0; k < stated; ++k) exprs.push_back(t_.env->replace(exprs[k]));
    for (size_t k = 0; k < exprs.size(); ++k) {
      for (const ExprRef& sym_ : sym::free_symbols(exprs[k])) {
        if (k >= stated && !sites_.count(sym_)) continue;
        if (!lifted.insert(sym_).second) continue;
        // A symbol the operand's placeholder itself binds at the top (a bare int operand)
        // needs no placeholder of its own.
        if (v.kind() != Value::Kind::kTensor && v.expr() == sym_) continue;
        auto site = sites_.find(sym_);
        SF_CHECK(site != sites_.end())
            << "lifting " << sym_->str() << " into a subgraph: no binding site in scope";
        Node* src = reify_keypath(g_, site->second.first, site->second.second, nullptr);
        in.placeholders.emplace_back(sym_->str(), Value(SymInt(sym_)));
        in.args.push_back(NodeArg::of(src));
      }
    }
    in.operand_slots.push_back(in.placeholders.size());
    in.placeholders.emplace_back(params[i], v);
    in.args.push_back(operands[i].arg);
  }
  return in;
}

// Traces `f` into a subgraph with the given inputs, in a fresh epoch so no memo crosses the
// subgraph boundary (each branch is speculated on its own, as Dynamo bumps the epoch).
// With `functionalize` (invoke_subgraph), the last version of each operand the body mutated
// is an output too, after what it returns (upstream's auto-functionalization, PR #154072).
Tracer::TracedFunction Tracer::trace_function(const program::FunctionDef& f,
                                              const SubgraphInputs& in, int line,
                                              bool functionalize) {
  if (depth_ + 1 > kMaxHopDepth) {
    throw_user_error(UserErrorKind::kTooComplex,
                     where(line,
                           "higher-order ops (cond, while_loop, invoke_subgraph, map, scan, "
                           "associative_scan) nested deeper than " +
                               std::to_string(kMaxHopDepth)));
  }
  SF_CHECK(t_.env->pending_fresh_unbacked_symbols().empty())
      << "pending symbols before a subgraph: " << pending_str();
  bool fresh_epoch = !fault_on(Fault::kWhileCarriesNotCloned);
  if (fresh_epoch) t_.mode->bump_epoch();
  auto g = std::make_shared<Graph>();
  Tracer inner(p_, t_, *g, depth_ + 1, f.name);
  for (const auto& [name, value] : in.placeholders) inner.add_placeholder(name, value, line);
  spend_work(line, 1 + static_cast<int64_t>(t_.env->fact_scope_cost()));
  {
    // What the body learns holds only where it runs (spec §6.6); its asserts stay in it.
    ShapeEnv::FactScope facts(t_.env.get());
    ScopedAsserts scope(*t_.env, *g);
    inner.run_block(f.body);
  }
  if (!t_.env->pending_fresh_unbacked_symbols().empty()) {
    throw EngineBug("pending unbacked symbols left at the end of subgraph '" + f.name +
                    "' (INV-1): " + pending_str());
  }
  if (fresh_epoch) t_.mode->bump_epoch();
  TracedFunction out{g, {}, {}};
  for (const TV& tv : inner.returned_) out.outputs.push_back(tv.value);
  if (functionalize) {
    // The operands f mutates by the static rule eager and export-torch apply (a mutation only
    // through a region f calls is not one: eager runs that region on f's copy).
    Node* output = g->output();
    std::vector<Node*> placeholders = g->placeholders();
    std::vector<bool> tensors;
    for (size_t slot : in.operand_slots)
      tensors.push_back(placeholders.at(slot)->value.kind() == Value::Kind::kTensor);
    for (size_t k : program::mutated_operands(f, tensors)) {
      const Value& param = placeholders.at(in.operand_slots.at(k))->value;
      auto last = inner.latest_version_.find(param.tensor().get());
      if (last == inner.latest_version_.end()) continue;
      SF_CHECK(output && last->second.kind == NodeArg::Kind::kNode)
          << "region '" << f.name << "' mutates operand " << k << " but returns nothing";
      output->args.push_back(last->second);
      last->second.node->users.push_back(output);
      out.outputs.push_back(last->second.node->value);
      out.mutated.push_back(k);
    }
    if (!out.mutated.empty()) output->value = Value::tuple(out.outputs);
  }
  return out;
}

void Tracer::add_placeholder(const std::string& name, const Value& v, int line) {
  Node* n = g_.add(NodeKind::kPlaceholder, name, {});
  n->input_name = name;
  n->line = line;
  n->value = v;
  record_input_bindings(n);
  vars_[name] = TV{n->value, NodeArg::of(n), {}};
}

// The HOP node: its value, bindings for the symbols created for its outputs (INV-22: exactly
// those are pending now), and the tuple the targets unpack.
TV Tracer::add_hop_node(NodeKind kind, const Stmt& s, std::vector<NodeArg> args,
                        std::vector<std::shared_ptr<Graph>> subgraphs, std::vector<Value> outputs,
                        std::string function_names) {
  Node* n = g_.add(kind, node_kind_name(kind), std::move(args));
  n->line = s.loc.line;
  n->subgraphs = std::move(subgraphs);
  n->function_names = std::move(function_names);
  n->value = Value::tuple(outputs);
  std::optional<Bindings> b = t_.env->compute_unbacked_bindings(n->value);
  if (b) {
    n->unbacked_bindings = *b;
    for (const auto& [sym_, path] : *b) sites_.emplace(sym_, std::make_pair(n, path));
  }
  return TV{n->value, NodeArg::of(n), {}};
}

// Every function of a higher-order op, whichever runs: torch.cond and torch.while_loop refuse
// functions that mutate or return their operands (eager applies the same rule).
void Tracer::no_operand_mutation(const Stmt& s, const std::vector<TV>& operands) {
  std::vector<bool> tensors;
  for (const TV& tv : operands) tensors.push_back(tv.value.kind() == Value::Kind::kTensor);
  for (size_t i = 0; i < s.functions.size(); ++i)
    program::check_no_operand_mutation(function(s, i), tensors, s);
}

std::vector<TV> Tracer::trace_cond(const Stmt& s) {
  const program::FunctionDef &then_fn = function(s, 0), &else_fn = function(s, 1);
  TV pred = eval(s.value);
  std::vector<TV> operands = operand_values(s, then_fn);
  if (else_fn.params.size() != operands.size()) operand_values(s, else_fn);  // its message
  if (pred.value.kind() == Value::Kind::kTensor) {
    const fake::FakeTensor& t = fake::fake_of(pred.value);
    if (t.dtype() != program::DType::kBool || !t.numel().is_constant() || t.numel().as_int() != 1) {
      throw_user_error(UserErrorKind::kInvalidProgram,
                       where(s.loc.line,
                             "cond: the predicate must be a bool or a one-element "
                             "bool tensor, got " +
                                 t.type_str()));
    }
  } else if (pred.value.kind() != Value::Kind::kBool) {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     where(s.loc.line,
                           "cond: the predicate must be a bool or a one-element bool "
                           "tensor, got " +
                               pred.value.str()));
  }
  no_operand_mutation(s, operands);
  if (pred.value.kind() == Value::Kind::kBool && pred.value.is_constant_scalar()) {
    // A Python-constant predicate: torch.cond calls the taken branch (nothing to merge). It is
    // traced as a call of it, not inline, so its outputs are new contiguous tensors as every
    // cond's are (eager cannot tell a constant predicate from another).
    return trace_call(s, pred.value.expr()->bool_value() ? then_fn : else_fn, operands);
  }
  std::vector<Value> values;
  for (const TV& tv : operands)
    values.push_back(tv.value.kind() == Value::Kind::kTensor ? contiguous_clone(tv.value)
                                                             : tv.value);
  SubgraphInputs in = lift(operands, values, then_fn.params);
  SubgraphInputs else_in = in.renamed(else_fn.params);
  TracedFunction t = trace_function(then_fn, in, s.loc.line);
  TracedFunction e = trace_function(else_fn, else_in, s.loc.line);
  if (t.outputs.size() != e.outputs.size()) {
    throw_user_error(
        UserErrorKind::kInvalidProgram,
        where(s.loc.line, "cond: the branches return " + std::to_string(t.outputs.size()) +
                              " and " + std::to_string(e.outputs.size()) + " values"));
  }
  std::vector<Value> merged;
  for (size_t i = 0; i < t.outputs.size(); ++i)
    merged.push_back(merge_cond_output(*t_.mode, t.outputs[i], e.outputs[i], i,
                                       "line " + std::to_string(s.loc.line)));
  std::vector<NodeArg> args{pred.arg};
  args.insert(args.end(), in.args.begin(), in.args.end());
  return unpack(add_hop_node(NodeKind::kCond, s, std::move(args), {t.graph, e.graph}, merged,
                             then_fn.name + ", " + else_fn.name),
                merged.size(), s.loc.line);
}

// A call of `f` (invoke_subgraph, or the taken branch of a constant-predicate cond): the
// region is traced once per graph and inputs (the lifted symbols and the operands' dtypes and
// sizes), as upstream caches invoke_subgraph's fake propagation, and its node shared by every
// call with those inputs. Each call's outputs are its own: what the region's inputs do not
// determine is a fresh symbol the call binds. The cache is per graph: facts only grow within
// one, so a region traced earlier is valid later, but not in another scope.
// With `functionalize` (invoke_subgraph), an operand the region mutates is then rebound in the
// caller to the node's output of its last version, and its memos go stale (its version moves
// on, as after add_).
std::vector<TV> Tracer::trace_call(const Stmt& s, const program::FunctionDef& f,
                                   const std::vector<TV>& operands, bool functionalize) {
  std::vector<Value> values;
  for (const TV& tv : operands)
    values.push_back(tv.value.kind() == Value::Kind::kTensor ? contiguous_clone(tv.value)
                                                             : tv.value);
  SubgraphInputs in = lift(operands, values, f.params);
  std::string key = f.name + (functionalize ? " (functionalized)" : "");
  for (const auto& [name, v] : in.placeholders) key += "|" + name + ": " + value_type_str(v);
  std::set<ExprRef, sym::ExprLess> inputs = in.symbols();
  auto region = regions_.find(key);
  if (region == regions_.end()) {
    region = regions_.emplace(key, trace_function(f, in, s.loc.line, functionalize)).first;
  } else {
    spend_work(s.loc.line, 1);
    t_.mode->bump_epoch();  // a call is a subgraph boundary, traced again or not
  }
  std::vector<Value> outputs;
  for (const Value& v : region->second.outputs) {
    // The fault hands every call the region's own symbols (upstream before PR #149297).
    outputs.push_back(
        fault_on(Fault::kRegionOutputsReused)
            ? v
            : invoke_subgraph_output(*t_.mode, v, inputs, "line " + std::to_string(s.loc.line)));
  }
  TV node =
      add_hop_node(NodeKind::kInvokeSubgraph, s, in.args, {region->second.graph}, outputs, f.name);
  std::vector<TV> all = unpack(node, outputs.size(), s.loc.line);
  const std::vector<size_t>& mutated = region->second.mutated;
  const size_t returned = all.size() - mutated.size();
  for (size_t j = 0; j < mutated.size(); ++j) {
    const TV& operand = operands.at(mutated[j]);
    const fake::FakeTensor& t = fake::fake_of(operand.value);
    if (!is_contiguous(*t_.env, t.sizes(), t.strides())) {
      throw_user_error(UserErrorKind::kUnsupported,
                       where(s.loc.line, "invoke_subgraph: '" + f.name + "' mutates its operand '" +
                                             f.params.at(mutated[j]) + "', a " + t.type_str() +
                                             " that is not contiguous: not supported (its new "
                                             "value comes back contiguous); pass a contiguous "
                                             "tensor"));
    }
    t.bump_version();
    rebind_mutated(operand.value, all[returned + j].arg, s.loc.line, "invoke_subgraph");
  }
  all.resize(returned);
  return all;
}

// invoke_subgraph: an operand the region may mutate is not passed twice (eager's rule too).
void Tracer::no_mutated_operand_twice(const Stmt& s, const program::FunctionDef& f,
                                      const std::vector<TV>& operands) {
  std::vector<const void*> tensors;
  for (const TV& tv : operands) {
    tensors.push_back(tv.value.kind() == Value::Kind::kTensor ? tv.value.tensor().get() : nullptr);
  }
  program::region_mutated_operands(f, tensors, s);
}

// Whether `out` has the kind of `in`, and for a tensor its dtype and (provably) its sizes.
bool Tracer::same_meta(const Value& in, const Value& out) {
  bool same = in.kind() == out.kind();
  if (same && in.kind() == Value::Kind::kTensor) {
    const fake::FakeTensor &fi = fake::fake_of(in), &fo = fake::fake_of(out);
    same = fi.dtype() == fo.dtype() && fi.dim() == fo.dim();
    for (int64_t d = 0; same && d < fi.dim(); ++d)
      same = t_.env->statically_known_true(sym_eq(fi.sizes()[d], fo.sizes()[d]));
  }
  return same;
}

// check_meta_consistency: carry i keeps its kind, dtype and shape through the body.
// Carry i of the function `f` (its parameter of that number) keeps its kind, dtype and shape.
void Tracer::check_carry(const Stmt& s, const program::FunctionDef& f, size_t i, const Value& in,
                         const Value& out) {
  if (!same_meta(in, out)) {
    auto describe = [](const Value& v) {
      return v.kind() == Value::Kind::kInt ? "an int (" + v.str() + ")" : v.str();
    };
    throw_user_error(
        UserErrorKind::kShape,
        where(s.loc.line, std::string(program::higher_order_name(s.kind)) + ": carry " +
                              std::to_string(i) + " ('" + f.params.at(i) + "') is " + describe(in) +
                              " but '" + f.name + "' returns " + describe(out) +
                              " for it (a carry keeps its kind, dtype and shape)"));
  }
}

// Bug zoo (before PR #148657): the combine function run once in the caller to check what it
// returns, outside any subgraph, so what it learns (its checks) stays in the caller's facts.
void Tracer::probe_in_caller(const program::FunctionDef& f, const SubgraphInputs& in, int line) {
  Graph scratch;
  Tracer probe(p_, t_, scratch, depth_ + 1, f.name);
  for (const auto& [name, value] : in.placeholders) probe.add_placeholder(name, value, line);
  auto ignore = t_.env->ignore_fresh_unbacked_symbols();
  probe.run_block(f.body);
}

std::vector<TV> Tracer::trace_while_loop(const Stmt& s) {
  const program::FunctionDef &cond_fn = function(s, 0), &body_fn = function(s, 1);
  std::vector<TV> carries = operand_values(s, cond_fn);
  if (body_fn.params.size() != carries.size()) operand_values(s, body_fn);  // its message
  no_operand_mutation(s, carries);
  // Int carries are unspecialized into fresh unbacked symbols that are never bound outside
  // (ignored): in the subgraphs their placeholders bind them. Tensor carries are cloned, so
  // memos on the caller's tensors are not reused (PR #158467).
  std::vector<Value> values;
  {
    auto ignore = t_.env->ignore_fresh_unbacked_symbols();
    for (const TV& tv : carries) {
      if (tv.value.kind() == Value::Kind::kInt) {
        values.push_back(Value(t_.env->create_unbacked_symint()));
      } else if (fault_on(Fault::kWhileCarriesNotCloned)) {
        values.push_back(tv.value);  // the caller's own tensor (PR #158467 before the fix)
      } else {
        values.push_back(contiguous_clone(tv.value));
      }
    }
  }
  SubgraphInputs cin = lift(carries, values, cond_fn.params);
  SubgraphInputs bin = cin.renamed(body_fn.params);
  TracedFunction c = trace_function(cond_fn, cin, s.loc.line);
  TracedFunction b = trace_function(body_fn, bin, s.loc.line);
  if (c.outputs.size() != 1 || !(c.outputs[0].kind() == Value::Kind::kBool ||
                                 (c.outputs[0].kind() == Value::Kind::kTensor &&
                                  fake::fake_of(c.outputs[0]).dtype() == program::DType::kBool &&
                                  fake::fake_of(c.outputs[0]).numel().is_constant() &&
                                  fake::fake_of(c.outputs[0]).numel().as_int() == 1))) {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     where(s.loc.line, "while_loop: the condition '" + cond_fn.name +
                                           "' must return one bool or one-element bool tensor"));
  }
  if (b.outputs.size() != carries.size()) {
    throw_user_error(
        UserErrorKind::kInvalidProgram,
        where(s.loc.line, "while_loop: the body returns " + std::to_string(b.outputs.size()) +
                              " values for " + std::to_string(carries.size()) + " carries"));
  }
  std::vector<Value> outputs;
  for (size_t i = 0; i < carries.size(); ++i) {
    check_carry(s, body_fn, i, values[i], b.outputs[i]);
    // Int outputs are fresh unbacked symbols bound at the loop node; tensors keep the shape.
    outputs.push_back(while_loop_output(*t_.mode, carries[i].value));
  }
  TV node = add_hop_node(NodeKind::kWhileLoop, s, cin.args, {c.graph, b.graph}, outputs,
                         cond_fn.name + ", " + body_fn.name);
  node.arg.node->carry_args = cin.operand_slots;
  return unpack(node, outputs.size(), s.loc.line);
}

// getitem nodes for each output of a HOP node.
std::vector<TV> Tracer::unpack(const TV& node, size_t n, int line) {
  std::vector<TV> out;
  for (size_t i = 0; i < n; ++i) {
    Node* g = g_.add(NodeKind::kGetItem, "getitem",
                     {node.arg, NodeArg::integer(static_cast<int64_t>(i))});
    g->line = line;
    g->value = node.value.elems()[i];
    out.push_back(TV{g->value, NodeArg::of(g), {}});
  }
  return out;
}

void Tracer::assign_all(const Stmt& s, std::vector<TV> values) {
  if (values.size() != s.targets.size()) {
    throw_user_error(
        UserErrorKind::kInvalidProgram,
        where(s.loc.line, std::string(program::higher_order_name(s.kind)) + " returns " +
                              std::to_string(values.size()) + " values for " +
                              std::to_string(s.targets.size()) + " names"));
  }
  for (size_t i = 0; i < values.size(); ++i) vars_[s.targets[i]] = std::move(values[i]);
}

}  // namespace detail
}  // namespace sf::graph
