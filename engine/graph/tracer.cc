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

namespace {

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

  void run() {
    for (const program::InputDecl& in : p_.inputs) add_input(in);
    run_block(p_.body);
    if (!t_.env->pending_fresh_unbacked_symbols().empty()) {
      throw EngineBug("pending unbacked symbols left at the end of the trace (INV-1): " +
                      pending_str());
    }
  }

 private:
  std::string pending_str() const {
    std::string s;
    for (const ExprRef& p : t_.env->pending_fresh_unbacked_symbols()) s += p->str() + " ";
    return s;
  }

  std::string where(int line, const std::string& what) const {
    return "line " + std::to_string(line) + ": " + what;
  }

  void add_input(const program::InputDecl& in) {
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
  void record_input_bindings(Node* n) {
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
  Node* add_node(OpKind op, std::vector<NodeArg> args, Value value, int line) {
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
  Value evaluate(OpKind op, const std::vector<NodeArg>& args, int line) {
    fake::MetaContext c{*t_.mode, where(line, program::op_name(op))};
    Value v = graph::eval_call(c, op, args, [](Node* n) -> const Value& { return n->value; });
    last_view_decisions_ = std::move(c.view_decisions);
    return v;
  }

  static std::optional<int64_t> literal_int(const ExprPtr& e) {
    if (e->kind == Expr::Kind::kInt) return e->int_value;
    if (e->kind == Expr::Kind::kCall && e->op == OpKind::kNeg && e->args.size() == 1 &&
        e->args[0]->kind == Expr::Kind::kInt) {
      return -e->args[0]->int_value;
    }
    return std::nullopt;
  }

  [[noreturn]] void invalid(const ExprPtr& e, const std::string& msg) {
    throw_user_error(UserErrorKind::kInvalidProgram, where(e->loc.line, msg));
  }

  NodeArg arg_for(const program::Param& p, const ExprPtr& e, const std::string& opname) {
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
  std::vector<NodeArg> tuple_elements(const TV& tv, int line) {
    std::vector<NodeArg> out;
    for (size_t i = 0; i < tv.value.elems().size(); ++i) {
      if (!tv.elems.empty()) {
        out.push_back(tv.elems[i].arg);
        continue;
      }
      Node* g = g_.add(NodeKind::kGetItem, "getitem",
                       {tv.arg, NodeArg::integer(static_cast<int64_t>(i))});
      g->line = line;
      g->value = tv.value.elems()[i];
      out.push_back(g->value.is_constant_scalar() ? literal_tv(g->value).arg : NodeArg::of(g));
    }
    return out;
  }

  TV literal_tv(const Value& v) {
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

  static bool all_literal(const std::vector<NodeArg>& args) {
    for (const NodeArg& a : args) {
      bool lit = true;
      a.for_each_node([&](Node*) { lit = false; });
      if (!lit) return false;
    }
    return true;
  }

  TV eval_call(const ExprPtr& e) {
    std::vector<ExprPtr> bound = program::bind_call(*e);
    const program::OpSchema& s = program::schema(e->op);
    if (e->op == OpKind::kTolist) return expand_tolist(e, bound);
    std::vector<NodeArg> args;
    for (size_t i = 0; i < bound.size(); ++i)
      args.push_back(arg_for(s.params[i], bound[i], s.name));
    Value v = evaluate(e->op, args, e->loc.line);
    if (v.is_constant_scalar() && all_literal(args)) return literal_tv(v);
    Node* n = add_node(e->op, args, v, e->loc.line);
    n->view_decisions = std::move(last_view_decisions_);
    if (e->op == OpKind::kAddInplace) functionalize_mutation(e, n);
    return TV{n->value, NodeArg::of(n), {}};
  }

  // add_ returns its (mutated) first argument: every variable naming that tensor now names the
  // new node. Mutating a tensor that has other views alive is not modelled.
  void functionalize_mutation(const ExprPtr& e, Node* n) {
    rebind_mutated(n->value, NodeArg::of(n), e->loc.line, "add_");
  }

  // The functional form of a mutation of `mutated` (a fake tensor): every variable naming that
  // tensor names `now` from here on, and `now` is its latest version (what a region returns for
  // a parameter it mutated).
  void rebind_mutated(const Value& mutated, const NodeArg& now, int line, const std::string& by) {
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

  // tolist on a 1-D tensor of static length: select + item per element (spec §11 item 6).
  TV expand_tolist(const ExprPtr& e, const std::vector<ExprPtr>& bound) {
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
    TV out;
    std::vector<Value> values;
    for (int64_t i = 0; i < length; ++i) {
      std::vector<NodeArg> sel_args{t.arg, NodeArg::integer(0), NodeArg::integer(i)};
      Node* sel = add_node(OpKind::kSelect, sel_args,
                           evaluate(OpKind::kSelect, sel_args, e->loc.line), e->loc.line);
      std::vector<NodeArg> item_args{NodeArg::of(sel)};
      Node* item = add_node(OpKind::kItem, item_args,
                            evaluate(OpKind::kItem, item_args, e->loc.line), e->loc.line);
      out.elems.push_back(TV{item->value, NodeArg::of(item), {}});
      values.push_back(item->value);
    }
    out.value = Value::tuple(values);
    std::vector<NodeArg> elem_args;
    for (const TV& x : out.elems) elem_args.push_back(x.arg);
    out.arg = NodeArg::list_of(elem_args);
    return out;
  }

  TV eval(const ExprPtr& e) {
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

  void assign(const Stmt& s, TV tv) {
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
      Node* g = g_.add(NodeKind::kGetItem, "getitem",
                       {tv.arg, NodeArg::integer(static_cast<int64_t>(i))});
      g->line = s.loc.line;
      g->value = tv.value.elems()[i];
      vars_[s.targets[i]] = TV{g->value, NodeArg::of(g), {}};
    }
  }

  // After a check: symbols the divisibility rewrite allocated, bound at a node computing i0 // d.
  void bind_divisibility_factors(int line) {
    auto site_of = [&](const ExprRef& s) -> std::optional<std::pair<Node*, KeyPath>> {
      auto site = sites_.find(s);
      if (site == sites_.end()) return std::nullopt;
      return site->second;
    };
    for (Node* n : graph::bind_divisibility_factors(g_, *t_.env, site_of, line))
      sites_.emplace(n->value.expr(), std::make_pair(n, KeyPath{}));
  }

  void add_check(const Stmt& s, const TV& cond, const ExprRef& expr, const std::string& msg) {
    Node* n = g_.add(NodeKind::kCheck, "check", {cond.arg});
    n->line = s.loc.line;
    n->assert_expr = expr;
    n->message = msg;
  }

  void run_stmt(const Stmt& s) {
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
          throw_user_error(
              UserErrorKind::kInvalidProgram,
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

  void run_block(const std::vector<Stmt>& body) {
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

  void spend_work(int line, int64_t units) {
    t_.work += units;
    if (t_.work > kMaxTracingWork) {
      throw_user_error(UserErrorKind::kTooComplex,
                       where(line, "tracing stopped: it spent its work budget of " +
                                       std::to_string(kMaxTracingWork) +
                                       " (statements traced and facts saved per subgraph; each "
                                       "cond traces both functions, so nested conds multiply)"));
    }
  }

  // ---- higher-order ops (spec §6) ----

  static constexpr int kMaxHopDepth = 64;

  const program::FunctionDef& function(const Stmt& s, size_t i) {
    const program::FunctionDef* f = p_.function(s.functions.at(i));
    if (!f) {
      throw_user_error(UserErrorKind::kInvalidProgram,
                       where(s.loc.line, "undefined function '" + s.functions[i] + "'"));
    }
    return *f;
  }

  std::vector<TV> operand_values(const Stmt& s, const program::FunctionDef& f) {
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
          if (site == sites_.end()) {
            throw EngineBug("lifting " + sym_->str() +
                            " into a subgraph: no binding site in scope");
          }
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
                                bool functionalize = false) {
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

  void add_placeholder(const std::string& name, const Value& v, int line) {
    Node* n = g_.add(NodeKind::kPlaceholder, name, {});
    n->input_name = name;
    n->line = line;
    n->value = v;
    record_input_bindings(n);
    vars_[name] = TV{n->value, NodeArg::of(n), {}};
  }

  // The HOP node: its value, bindings for the symbols created for its outputs (INV-22: exactly
  // those are pending now), and the tuple the targets unpack.
  TV add_hop_node(NodeKind kind, const Stmt& s, std::vector<NodeArg> args,
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
  void no_operand_mutation(const Stmt& s, const std::vector<TV>& operands) {
    std::vector<bool> tensors;
    for (const TV& tv : operands) tensors.push_back(tv.value.kind() == Value::Kind::kTensor);
    for (size_t i = 0; i < s.functions.size(); ++i)
      program::check_no_operand_mutation(function(s, i), tensors, s);
  }

  std::vector<TV> trace_cond(const Stmt& s) {
    const program::FunctionDef &then_fn = function(s, 0), &else_fn = function(s, 1);
    TV pred = eval(s.value);
    std::vector<TV> operands = operand_values(s, then_fn);
    if (else_fn.params.size() != operands.size()) operand_values(s, else_fn);  // its message
    if (pred.value.kind() == Value::Kind::kTensor) {
      const fake::FakeTensor& t = fake::fake_of(pred.value);
      if (t.dtype() != program::DType::kBool || !t.numel().is_constant() ||
          t.numel().as_int() != 1) {
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
  std::vector<TV> trace_call(const Stmt& s, const program::FunctionDef& f,
                             const std::vector<TV>& operands, bool functionalize = false) {
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
    TV node = add_hop_node(NodeKind::kInvokeSubgraph, s, in.args, {region->second.graph}, outputs,
                           f.name);
    std::vector<TV> all = unpack(node, outputs.size(), s.loc.line);
    const std::vector<size_t>& mutated = region->second.mutated;
    const size_t returned = all.size() - mutated.size();
    for (size_t j = 0; j < mutated.size(); ++j) {
      const TV& operand = operands.at(mutated[j]);
      const fake::FakeTensor& t = fake::fake_of(operand.value);
      if (!is_contiguous(*t_.env, t.sizes(), t.strides())) {
        throw_user_error(
            UserErrorKind::kUnsupported,
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
  void no_mutated_operand_twice(const Stmt& s, const program::FunctionDef& f,
                                const std::vector<TV>& operands) {
    std::vector<const void*> tensors;
    for (const TV& tv : operands) {
      tensors.push_back(tv.value.kind() == Value::Kind::kTensor ? tv.value.tensor().get()
                                                                : nullptr);
    }
    program::region_mutated_operands(f, tensors, s);
  }

  // Whether `out` has the kind of `in`, and for a tensor its dtype and (provably) its sizes.
  bool same_meta(const Value& in, const Value& out) {
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
  void check_carry(const Stmt& s, const program::FunctionDef& f, size_t i, const Value& in,
                   const Value& out) {
    if (!same_meta(in, out)) {
      auto describe = [](const Value& v) {
        return v.kind() == Value::Kind::kInt ? "an int (" + v.str() + ")" : v.str();
      };
      throw_user_error(
          UserErrorKind::kShape,
          where(s.loc.line, std::string(program::higher_order_name(s.kind)) + ": carry " +
                                std::to_string(i) + " ('" + f.params.at(i) + "') is " +
                                describe(in) + " but '" + f.name + "' returns " + describe(out) +
                                " for it (a carry keeps its kind, dtype and shape)"));
    }
  }

  // The operands a map or scan goes over by rows (tensors of rank >= 1 and one first size n,
  // checked >= 1 as torch's map and scan do): a contiguous row of each appended to `rows`; n.
  SymInt rows_of(const Stmt& s, const std::vector<TV>& xs, std::vector<Value>& rows) {
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
                         where(s.loc.line, what + ": the operands' first sizes differ (" +
                                               n->str() + " and " + t.sizes()[0].str() + ")"));
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
      Node* size = reify_keypath(
          g_, xs[0].arg.node, {KeyEntry::call_method(TensorMethod::kSize), KeyEntry::sequence(0)},
          nullptr);
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
  std::vector<TV> trace_map(const Stmt& s) {
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
  std::vector<TV> trace_scan(const Stmt& s) {
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
  std::vector<TV> trace_associative_scan(const Stmt& s) {
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
        throw_user_error(UserErrorKind::kShape,
                         where(s.loc.line, "associative_scan: operand " + std::to_string(i) +
                                               " ('" + f.params[i] + "') has rows " +
                                               value_type_str(rows[i]) + " but '" + f.name +
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
  int64_t scan_dim(const Stmt& s, const std::vector<TV>& xs) {
    std::optional<SymInt> size;
    int64_t rank = -1, d = 0;
    for (const TV& x : xs) {
      if (x.value.kind() != Value::Kind::kTensor || fake::fake_of(x.value).dim() == 0) {
        throw_user_error(
            UserErrorKind::kInvalidProgram,
            where(s.loc.line, "associative_scan: operand " + std::to_string(&x - xs.data()) +
                                  " is " + x.value.str() +
                                  "; every operand is a tensor of rank >= 1"));
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
        throw_user_error(UserErrorKind::kInvalidProgram,
                         where(s.loc.line, "associative_scan: dim " + std::to_string(s.dim) +
                                               " is out of range for rank " + std::to_string(rank) +
                                               " operands"));
      }
      d = s.dim < 0 ? s.dim + rank : s.dim;
      const SymInt& n = t.sizes()[d];
      if (size && !t_.env->statically_known_true(sym_eq(*size, n))) {
        throw_user_error(UserErrorKind::kShape,
                         where(s.loc.line, "associative_scan: the operands' sizes along dim " +
                                               std::to_string(d) + " differ (" + size->str() +
                                               " and " + n.str() + ")"));
      }
      size = n;
    }
    return d;
  }

  // Bug zoo (before PR #148657): the combine function run once in the caller to check what it
  // returns, outside any subgraph, so what it learns (its checks) stays in the caller's facts.
  void probe_in_caller(const program::FunctionDef& f, const SubgraphInputs& in, int line) {
    Graph scratch;
    Tracer probe(p_, t_, scratch, depth_ + 1, f.name);
    for (const auto& [name, value] : in.placeholders) probe.add_placeholder(name, value, line);
    auto ignore = t_.env->ignore_fresh_unbacked_symbols();
    probe.run_block(f.body);
  }

  std::vector<TV> trace_while_loop(const Stmt& s) {
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
  std::vector<TV> unpack(const TV& node, size_t n, int line) {
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

  void assign_all(const Stmt& s, std::vector<TV> values) {
    if (values.size() != s.targets.size()) {
      throw_user_error(
          UserErrorKind::kInvalidProgram,
          where(s.loc.line, std::string(program::higher_order_name(s.kind)) + " returns " +
                                std::to_string(values.size()) + " values for " +
                                std::to_string(s.targets.size()) + " names"));
    }
    for (size_t i = 0; i < values.size(); ++i) vars_[s.targets[i]] = std::move(values[i]);
  }

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

}  // namespace

Node* reify_keypath(Graph& g, Node* n, const KeyPath& path, Node* after) {
  Node* cur = n;
  for (size_t i = 0; i < path.size(); ++i) {
    const KeyEntry& k = path[i];
    Node* next = nullptr;
    switch (k.kind) {
      case KeyEntry::Kind::kSequence:
        next = g.add(NodeKind::kGetItem, "getitem", {NodeArg::of(cur), NodeArg::integer(k.index)},
                     after);
        next->value = cur->value.elems().at(k.index);
        break;
      case KeyEntry::Kind::kCallMethod: {
        const TensorLike& t = *cur->value.tensor();
        if (k.method == TensorMethod::kStorageOffset) {
          next = g.add(NodeKind::kStorageOffset, "storage_offset", {NodeArg::of(cur)}, after);
          next->value = Value(t.storage_offset());
          break;
        }
        SF_CHECK(i + 1 < path.size() && path[i + 1].kind == KeyEntry::Kind::kSequence)
            << "size/stride keypath without an index";
        int64_t d = path[++i].index;
        bool size = k.method == TensorMethod::kSize;
        next = g.add(NodeKind::kCall, size ? "size" : "stride",
                     {NodeArg::of(cur), NodeArg::integer(d)}, after);
        next->op = size ? OpKind::kSize : OpKind::kStride;
        next->value = Value(size ? t.sizes().at(d) : t.strides().at(d));
        break;
      }
      case KeyEntry::Kind::kDivideBy: {
        SF_CHECK(k.divisor->is(sym::ExprKind::kInteger)) << "symbolic DivideByKey not reifiable";
        next = g.add(NodeKind::kCall, "floordiv",
                     {NodeArg::of(cur), NodeArg::integer(k.divisor->int_value())}, after);
        next->op = OpKind::kFloorDiv;
        next->value = Value(floordiv(cur->value.as_int(), SymInt(k.divisor->int_value())));
        break;
      }
      case KeyEntry::Kind::kConvertInt:
        SF_CHECK(false) << "ConvertIntKey reification is not needed by any caller";
        break;
      case KeyEntry::Kind::kInnerTensor:
        SF_CHECK(false) << "inner tensors are not modelled";
        break;
    }
    after = next;
    cur = next;
  }
  return cur;
}

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
  Tracer(p, t, t.graph).run();
}

}  // namespace sf::graph
