// The tracer: evaluates program statements on fake values, creating one graph node per op call
// (constants folded away), calling compute_unbacked_bindings after every node, expanding tolist
// into select + item, functionalizing add_, and binding divisibility factors after checks.
#include "engine/graph/tracer.h"

#include <set>
#include <string_view>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/graph/divisibility_factors.h"
#include "engine/graph/hop_outputs.h"
#include "engine/graph/node_eval.h"
#include "engine/graph/scoped_asserts.h"
#include "engine/graph/tracer_internal.h"
#include "engine/program/operand_mutation.h"
#include "engine/program/schema.h"
#include "engine/shape_env/contiguity.h"
#include "engine/sym/make.h"

namespace sf::graph {

using program::Expr;
using program::ExprPtr;
using program::OpKind;
using program::ParamKind;
using program::Stmt;

namespace detail {

void Tracer::run() {
  for (const program::InputDecl& in : p_.inputs) add_input(in);
  run_block(p_.body);
  if (!t_.env->pending_fresh_unbacked_symbols().empty()) {
    throw EngineBug("pending unbacked symbols left at the end of the trace (INV-1): " +
                    pending_str());
  }
}

void Tracer::add_input(const program::InputDecl& in) {
  Node* n = g_.add(NodeKind::kPlaceholder, in.name, {});
  n->input_name = in.name;
  n->line = in.loc.line;
  n->value = t_.mode->fakify_input(in, &t_.contexts[in.name]);
  if (!fault_on(Fault::kInputUnbackedNotBound)) {  // the missing call of #174002
    std::optional<Bindings> b = t_.env->compute_unbacked_bindings(n->value);
    if (b) n->unbacked_bindings = *b;
  }
  record_input_bindings(n);
  vars_[in.name] = TV{n->value, NodeArg::of(n), {}};
}

// Every symbol an input introduces, with its first keypath (sizes before strides).
void Tracer::record_input_bindings(Node* n) {
  auto note = [&](const ExprRef& e, KeyPath path) {
    if (!e->is(sym::ExprKind::kSymbol) || sites_.count(e)) return;
    n->input_bindings.emplace(e, path);
    sites_.emplace(e, std::make_pair(n, path));
  };
  if (n->value.kind() == Value::Kind::kTensor) {
    const TensorLike& t = *n->value.tensor();
    for (size_t i = 0; i < t.sizes().size(); ++i) {
      note(t.sizes()[i].expr(), {KeyEntry::call_method(TensorMethod::kSize),
                                 KeyEntry::sequence(static_cast<int64_t>(i))});
    }
    for (size_t i = 0; i < t.strides().size(); ++i) {
      note(t.strides()[i].expr(), {KeyEntry::call_method(TensorMethod::kStride),
                                   KeyEntry::sequence(static_cast<int64_t>(i))});
    }
  } else if (n->value.kind() != Value::Kind::kNone) {
    note(n->value.expr(), {});
  }
}

// Creates a call node whose value was computed already, and records what it binds.
Node* Tracer::add_node(OpKind op, std::vector<NodeArg> args, Value value, int line) {
  Node* n = g_.add(NodeKind::kCall, program::op_name(op), std::move(args));
  n->op = op;
  n->line = line;
  n->value = std::move(value);
  std::optional<Bindings> b = t_.env->compute_unbacked_bindings(n->value);
  if (b) {
    n->unbacked_bindings = *b;
    for (const auto& [s, path] : *b) sites_.emplace(s, std::make_pair(n, path));
  }
  return n;
}

// The fake value of `op` on `args` (node values as traced so far).
Value Tracer::evaluate(OpKind op, const std::vector<NodeArg>& args, int line) {
  fake::MetaContext c{*t_.mode, where(line, program::op_name(op))};
  Value v = graph::eval_call(c, op, args, [](Node* n) -> const Value& { return n->value; });
  last_view_decisions_ = std::move(c.view_decisions);
  return v;
}

std::optional<int64_t> Tracer::literal_int(const ExprPtr& e) {
  if (e->kind == Expr::Kind::kInt) return e->int_value;
  if (e->kind == Expr::Kind::kCall && e->op == OpKind::kNeg && e->args.size() == 1 &&
      e->args[0]->kind == Expr::Kind::kInt) {
    return -e->args[0]->int_value;
  }
  return std::nullopt;
}

NodeArg Tracer::arg_for(const program::Param& p, const ExprPtr& e, const std::string& opname) {
  if (!e) return NodeArg::none();
  // The argument's form (one value or a list) by the rule eager applies too.
  auto check_form = [&](bool is_list) {
    if (auto error = program::argument_form_error(
            p, is_list ? program::ArgForm::kList : program::ArgForm::kOne)) {
      invalid(e, opname + ": " + *error);
    }
  };
  switch (p.kind) {
    case ParamKind::kDim:
    case ParamKind::kDims: {
      check_form(e->kind == Expr::Kind::kList);
      std::vector<ExprPtr> elems =
          e->kind == Expr::Kind::kList ? e->elems : std::vector<ExprPtr>{e};
      std::vector<NodeArg> out;
      for (const ExprPtr& x : elems) {
        std::optional<int64_t> v = literal_int(x);
        if (!v)
          invalid(e,
                  opname + ": argument '" + p.name + "' must be a literal int (dims are static)");
        out.push_back(NodeArg::integer(*v));
      }
      if (p.kind == ParamKind::kDim) {
        if (out.size() != 1) invalid(e, opname + ": argument '" + p.name + "' must be one dim");
        return out[0];
      }
      return NodeArg::list_of(out);
    }
    case ParamKind::kInts:
    case ParamKind::kTensors: {
      if (e->kind != Expr::Kind::kList) {
        // A tuple value (from tolist or unique) also serves as a list.
        TV tv = eval(e);
        check_form(tv.value.kind() == Value::Kind::kTuple);
        return NodeArg::list_of(tuple_elements(tv, e->loc.line));
      }
      std::vector<NodeArg> out;
      for (const ExprPtr& x : e->elems) out.push_back(eval(x).arg);
      return NodeArg::list_of(out);
    }
    case ParamKind::kDType:
      if (e->kind != Expr::Kind::kDType)
        invalid(e, opname + ": argument '" + p.name + "' must be a dtype");
      return NodeArg::dtype_of(e->dtype);
    case ParamKind::kFlag:
      if (e->kind != Expr::Kind::kBool)
        invalid(e, opname + ": argument '" + p.name + "' must be True/False");
      return NodeArg::boolean(e->bool_value);
    case ParamKind::kStr:
      invalid(e, opname + ": unexpected string argument");
    case ParamKind::kTensor:
    case ParamKind::kScalar:
    case ParamKind::kAny:
    case ParamKind::kInt: {
      TV tv = eval(e);
      check_form(e->kind == Expr::Kind::kList || tv.value.kind() == Value::Kind::kTuple);
      return tv.arg;
    }
  }
  SF_UNREACHABLE();
}

// The elements of a tuple value as node arguments (getitem nodes when a node produced it).
std::vector<NodeArg> Tracer::tuple_elements(const TV& tv, int line) {
  std::vector<NodeArg> out;
  for (size_t i = 0; i < tv.value.elems().size(); ++i) {
    if (!tv.elems.empty()) {
      out.push_back(tv.elems[i].arg);
      continue;
    }
    Node* g =
        g_.add(NodeKind::kGetItem, "getitem", {tv.arg, NodeArg::integer(static_cast<int64_t>(i))});
    g->line = line;
    g->value = tv.value.elems()[i];
    out.push_back(g->value.is_constant_scalar() ? literal_tv(g->value).arg : NodeArg::of(g));
  }
  return out;
}

TV Tracer::literal_tv(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kInt:
      return TV{v, NodeArg::integer(v.expr()->int_value()), {}};
    case Value::Kind::kFloat:
      return TV{v, NodeArg::floating(v.expr()->float_value()), {}};
    case Value::Kind::kBool:
      return TV{v, NodeArg::boolean(v.expr()->bool_value()), {}};
    case Value::Kind::kNone:
    case Value::Kind::kTuple:
    case Value::Kind::kTensor:
      break;
  }
  SF_UNREACHABLE() << "not a literal: " << v.str();
}

bool Tracer::all_literal(const std::vector<NodeArg>& args) {
  for (const NodeArg& a : args) {
    bool lit = true;
    a.for_each_node([&](Node*) { lit = false; });
    if (!lit) return false;
  }
  return true;
}

TV Tracer::eval_call(const ExprPtr& e) {
  std::vector<ExprPtr> bound = program::bind_call(*e);
  const program::OpSchema& s = program::schema(e->op);
  if (e->op == OpKind::kTolist) return expand_tolist(e, bound);
  std::vector<NodeArg> args;
  for (size_t i = 0; i < bound.size(); ++i) args.push_back(arg_for(s.params[i], bound[i], s.name));
  if (e->op == OpKind::kTensorSplit) return expand_tensor_split(e, args);
  Value v = evaluate(e->op, args, e->loc.line);
  if (v.is_constant_scalar() && all_literal(args)) return literal_tv(v);
  Node* n = add_node(e->op, args, v, e->loc.line);
  n->view_decisions = std::move(last_view_decisions_);
  if (s.family == program::OpFamily::kMutation) functionalize_mutation(e, n);
  return TV{n->value, NodeArg::of(n), {}};
}

// The functional form of a mutation of `mutated` (a fake tensor): every variable naming that
// tensor names `now` from here on, and `now` is its latest version (what a region returns for
// a parameter it mutated).
void Tracer::rebind_mutated(const Value& mutated, const NodeArg& now, int line,
                            const std::string& by) {
  const TensorLike* tensor = mutated.tensor().get();
  auto storage = fake::fake_of(mutated).storage();
  for (auto& [name, tv] : vars_) {
    if (tv.value.kind() != Value::Kind::kTensor) continue;
    if (tv.value.tensor().get() == tensor) {
      tv.arg = now;
    } else if (fake::is_fake_tensor(tv.value) && fake::fake_of(tv.value).storage() == storage) {
      throw_user_error(UserErrorKind::kUnsupported,
                       where(line, by + " on a tensor whose view '" + name +
                                       "' is alive is not supported (views are not "
                                       "re-derived after mutation)"));
    }
  }
  latest_version_[tensor] = now;
}

// tensor_split by indices: one slice node per part, [0, i0), [i0, i1), ..., [ik, end), the nodes
// PyTorch's graph holds after the composite's decomposition (each binds its own fresh sizes).
TV Tracer::expand_tensor_split(const ExprPtr& e, const std::vector<NodeArg>& args) {
  if (args[0].kind != NodeArg::Kind::kNode || !fake::is_fake_tensor(args[0].node->value)) {
    invalid(e, "tensor_split: argument 'a' must be a tensor");
  }
  int64_t rank = fake::fake_of(args[0].node->value).dim();
  if (rank == 0) {
    throw_user_error(UserErrorKind::kShape,
                     where(e->loc.line,
                           "tensor_split: expected at least a 1-dimensional tensor, "
                           "got a 0-d one"));
  }
  if (args[2].i < -rank || args[2].i >= rank) {
    throw_user_error(
        UserErrorKind::kShape,
        where(e->loc.line, "tensor_split: dim " + std::to_string(args[2].i) +
                               " out of range for a tensor of rank " + std::to_string(rank)));
  }
  std::vector<Node*> parts;
  NodeArg start = NodeArg::integer(0);
  auto part = [&](const NodeArg& end) {
    std::vector<NodeArg> slice_args{args[0], args[2], start, end, NodeArg::integer(1)};
    Value v = evaluate(OpKind::kSlice, slice_args, e->loc.line);
    parts.push_back(add_node(OpKind::kSlice, slice_args, v, e->loc.line));
  };
  for (const NodeArg& index : args[1].list) {
    part(index);
    start = index;
  }
  part(NodeArg::none());
  return tuple_of(parts);
}

TV Tracer::tuple_of(const std::vector<Node*>& nodes) {
  TV out;
  std::vector<Value> values;
  std::vector<NodeArg> elem_args;
  for (Node* n : nodes) {
    out.elems.push_back(TV{n->value, NodeArg::of(n), {}});
    values.push_back(n->value);
    elem_args.push_back(NodeArg::of(n));
  }
  out.value = Value::tuple(values);
  out.arg = NodeArg::list_of(elem_args);
  return out;
}

// tolist on a 1-D tensor of static length: select + item per element (spec §11 item 6).
TV Tracer::expand_tolist(const ExprPtr& e, const std::vector<ExprPtr>& bound) {
  TV t = eval(bound[0]);
  if (t.value.kind() != Value::Kind::kTensor) invalid(e, "tolist: argument must be a tensor");
  const fake::FakeTensor& ft = fake::fake_of(t.value);
  if (ft.dtype() == program::DType::kFloat32) invalid(e, "tolist of an f32 tensor");
  if (ft.dim() != 1) {
    throw_user_error(UserErrorKind::kShape,
                     where(e->loc.line, "tolist needs a 1-D tensor, got " + ft.type_str()));
  }
  if (!ft.sizes()[0].is_constant()) {
    throw_user_error(
        UserErrorKind::kUnsupported,
        where(e->loc.line, "tolist needs a 1-D tensor of static length, got " + ft.type_str()));
  }
  int64_t length = ft.sizes()[0].as_int();
  if (length > kMaxTolistLength) {
    throw_user_error(
        UserErrorKind::kTooComplex,
        where(e->loc.line, "tolist of " + ft.type_str() + ": " + std::to_string(length) +
                               " elements would each become a select, an item "
                               "and an unbacked symbol; the limit is " +
                               std::to_string(kMaxTolistLength) + " (slice the tensor first)"));
  }
  std::vector<Node*> items;
  for (int64_t i = 0; i < length; ++i) {
    std::vector<NodeArg> sel_args{t.arg, NodeArg::integer(0), NodeArg::integer(i)};
    Node* sel = add_node(OpKind::kSelect, sel_args,
                         evaluate(OpKind::kSelect, sel_args, e->loc.line), e->loc.line);
    std::vector<NodeArg> item_args{NodeArg::of(sel)};
    items.push_back(add_node(OpKind::kItem, item_args,
                             evaluate(OpKind::kItem, item_args, e->loc.line), e->loc.line));
  }
  return tuple_of(items);
}

TV Tracer::eval(const ExprPtr& e) {
  switch (e->kind) {
    case Expr::Kind::kVar: {
      auto it = vars_.find(e->name);
      if (it == vars_.end()) invalid(e, "undefined variable '" + e->name + "'");
      return it->second;
    }
    case Expr::Kind::kInt:
      return literal_tv(Value(SymInt(e->int_value)));
    case Expr::Kind::kFloat:
      return literal_tv(Value(SymFloat(e->float_value)));
    case Expr::Kind::kBool:
      return literal_tv(Value(SymBool(e->bool_value)));
    case Expr::Kind::kCall:
      return eval_call(e);
    case Expr::Kind::kList:
      invalid(e, "a list is only allowed as an op argument");
    case Expr::Kind::kString:
    case Expr::Kind::kDType:
    case Expr::Kind::kNone:
      invalid(e, "not a value here");
  }
  SF_UNREACHABLE();
}

void Tracer::assign(const Stmt& s, TV tv) {
  if (s.targets.size() == 1) {
    vars_[s.targets[0]] = std::move(tv);
    return;
  }
  if (tv.value.kind() != Value::Kind::kTuple) {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     where(s.loc.line, "cannot unpack the non-tuple " + tv.value.str()));
  }
  if (tv.value.elems().size() != s.targets.size()) {
    throw_user_error(UserErrorKind::kValue,
                     where(s.loc.line, "cannot unpack " + tv.value.str() + " into " +
                                           std::to_string(s.targets.size()) + " names"));
  }
  for (size_t i = 0; i < s.targets.size(); ++i) {
    if (!tv.elems.empty()) {
      vars_[s.targets[i]] = tv.elems[i];
      continue;
    }
    SF_CHECK(tv.arg.kind == NodeArg::Kind::kNode) << "tuple without a producing node";
    Node* g =
        g_.add(NodeKind::kGetItem, "getitem", {tv.arg, NodeArg::integer(static_cast<int64_t>(i))});
    g->line = s.loc.line;
    g->value = tv.value.elems()[i];
    vars_[s.targets[i]] = TV{g->value, NodeArg::of(g), {}};
  }
}

// After a check: symbols the divisibility rewrite allocated, bound at a node computing i0 // d.
void Tracer::bind_divisibility_factors(int line) {
  auto site_of = [&](const ExprRef& s) -> std::optional<std::pair<Node*, KeyPath>> {
    auto site = sites_.find(s);
    if (site == sites_.end()) return std::nullopt;
    return site->second;
  };
  for (Node* n : graph::bind_divisibility_factors(g_, *t_.env, site_of, line))
    sites_.emplace(n->value.expr(), std::make_pair(n, KeyPath{}));
}

void Tracer::add_check(const Stmt& s, const TV& cond, const ExprRef& expr, const std::string& msg) {
  Node* n = g_.add(NodeKind::kCheck, "check", {cond.arg});
  n->line = s.loc.line;
  n->assert_expr = expr;
  n->message = msg;
}

void Tracer::run_stmt(const Stmt& s) {
  switch (s.kind) {
    case Stmt::Kind::kAssign:
      assign(s, eval(s.value));
      return;
    case Stmt::Kind::kCheck: {
      TV cond = eval(s.value);
      if (cond.value.kind() != Value::Kind::kBool) {
        throw_user_error(UserErrorKind::kInvalidProgram,
                         where(s.loc.line, "check: the condition must be a scalar bool, got " +
                                               cond.value.str()));
      }
      t_.env->check(cond.value.as_bool(), where(s.loc.line, s.message));
      if (!cond.value.is_constant_scalar()) add_check(s, cond, cond.value.expr(), s.message);
      bind_divisibility_factors(s.loc.line);
      return;
    }
    case Stmt::Kind::kCheckIsSize: {
      TV v = eval(s.value);
      if (v.value.kind() != Value::Kind::kInt) {
        throw_user_error(UserErrorKind::kInvalidProgram,
                         where(s.loc.line, "check_is_size: expected an int, got " + v.value.str()));
      }
      std::optional<int64_t> max;
      if (s.max) {
        std::optional<int64_t> m = literal_int(s.max);
        if (!m) invalid(s.max, "check_is_size: max must be a literal int");
        max = m;
      }
      SymInt n = v.value.as_int();
      t_.env->check_is_size(n, max);
      if (!n.is_constant()) {
        SymBool cond = sym_ge(n, 0);
        if (max) cond = sym_and(cond, sym_le(n, *max));
        add_check(s, v, cond.expr(), "check_is_size(" + n.str() + ")");
      }
      bind_divisibility_factors(s.loc.line);
      return;
    }
    case Stmt::Kind::kIf: {
      TV cond = eval(s.value);
      if (cond.value.kind() != Value::Kind::kBool) {
        throw_user_error(UserErrorKind::kInvalidProgram,
                         where(s.loc.line, "if: the condition must be a scalar bool"));
      }
      // A static if: guards when backed, a data-dependent error when unbacked.
      bool taken = t_.env->guard_bool(cond.value.as_bool(), where(s.loc.line, "if"));
      run_block(taken ? s.then_body : s.else_body);
      return;
    }
    case Stmt::Kind::kCond:
      assign_all(s, trace_cond(s));
      return;
    case Stmt::Kind::kWhileLoop:
      assign_all(s, trace_while_loop(s));
      return;
    case Stmt::Kind::kInvokeSubgraph: {
      const program::FunctionDef& f = function(s, 0);
      std::vector<TV> operands = operand_values(s, f);
      no_operand_mutation(s, operands);
      no_mutated_operand_twice(s, f, operands);
      assign_all(s, trace_call(s, f, operands, true));
      return;
    }
    case Stmt::Kind::kMap:
      assign_all(s, trace_map(s));
      return;
    case Stmt::Kind::kScan:
      assign_all(s, trace_scan(s));
      return;
    case Stmt::Kind::kAssociativeScan:
      assign_all(s, trace_associative_scan(s));
      return;
    case Stmt::Kind::kReturn: {
      std::vector<NodeArg> args;
      std::vector<Value> values;
      for (const ExprPtr& r : s.returns) {
        TV tv = eval(r);
        args.push_back(tv.arg);
        values.push_back(tv.value);
        returned_.push_back(tv);
      }
      Node* out = g_.add(NodeKind::kOutput, "output", std::move(args));
      out->line = s.loc.line;
      out->value = Value::tuple(values);
      return;
    }
  }
}

void Tracer::run_block(const std::vector<Stmt>& body) {
  for (const Stmt& s : body) {
    spend_work(s.loc.line, 1);
    try {
      t_.open_statements.push_back({function_, s.kind, s.loc.line});
      run_stmt(s);
      t_.open_statements.pop_back();  // not when it raised: the rejection's site stays
    } catch (const UserError& e) {
      // The expression limits (sym/expr.h) are checked deep in the factories, which do not
      // know the statement: name its line.
      std::string_view what = e.what();
      if (e.kind() != UserErrorKind::kTooComplex || what.starts_with("line ")) throw;
      throw_user_error(UserErrorKind::kTooComplex, where(s.loc.line, e.what()));
    }
  }
}

void Tracer::spend_work(int line, int64_t units) {
  t_.work += units;
  if (t_.work > kMaxTracingWork) {
    throw_user_error(UserErrorKind::kTooComplex,
                     where(line, "tracing stopped: it spent its work budget of " +
                                     std::to_string(kMaxTracingWork) +
                                     " (statements traced and facts saved per subgraph; each "
                                     "cond traces both functions, so nested conds multiply)"));
  }
}

}  // namespace detail

Trace trace_program(const program::Program& p, const TraceOptions& opts) {
  Trace t;
  trace_program_into(p, opts, t);
  return t;
}

void trace_program_into(const program::Program& p, const TraceOptions& opts, Trace& t) {
  t.env = std::make_unique<ShapeEnv>(opts.settings);
  t.mode = std::make_unique<fake::FakeMode>(t.env.get());
  t.mode->inference_mode = p.header.inference_mode;
  t.program = std::make_shared<const program::Program>(p);
  detail::Tracer(p, t, t.graph).run();
}

}  // namespace sf::graph
