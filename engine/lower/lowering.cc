// The lowering driver: input binding and guards, per-node dispatch, asserts and outputs, then
// buffer frees, with the INV-18 (defs cover bindings) and INV-19 (closure) checks.
#include "engine/lower/lowering.h"

#include <algorithm>

#include "engine/base/check.h"
#include "engine/base/faults.h"
#include "engine/fake/fake_tensor.h"
#include "engine/lower/lowering_internal.h"
#include "engine/program/op_cases.h"
#include "engine/program/schema.h"
#include "engine/sym/make.h"
#include "engine/sym/walk.h"

namespace sf::lower {

namespace detail {

using graph::Node;
using graph::NodeArg;
using graph::NodeKind;
using program::OpFamily;
using program::OpKind;

IrValue IrValue::tensor(Layout l) {
  IrValue v;
  v.kind = Kind::kTensor;
  v.layout = std::move(l);
  return v;
}

IrValue IrValue::scalar_of(ExprRef e) {
  IrValue v;
  v.kind = Kind::kScalar;
  v.scalar = std::move(e);
  return v;
}

std::vector<NodeArg> dims_of(const NodeArg& a) {
  return a.kind == NodeArg::Kind::kList ? a.list : std::vector<NodeArg>{a};
}

DType value_dtype(const IrValue& v) {
  if (v.kind == IrValue::Kind::kTensor) return v.layout.dtype;
  SF_CHECK(v.kind == IrValue::Kind::kScalar) << "not a tensor or scalar";
  if (v.scalar->is_bool()) return DType::kBool;
  return v.scalar->is_float() ? DType::kFloat32 : DType::kInt64;
}

KExprPtr operand(Kernel& k, Lowering& L, const IrValue& v, const std::vector<ExprRef>& iter) {
  if (v.kind == IrValue::Kind::kScalar) return KExpr::scalar_of(v.scalar, value_dtype(v));
  k.inputs.push_back(L.access_of(v.layout, iter));
  return KExpr::load(static_cast<int>(k.inputs.size()) - 1, v.layout.dtype);
}

const IrValue& Lowering::value_of(const NodeArg& a) const {
  SF_CHECK(a.kind == NodeArg::Kind::kNode) << "expected a node argument";
  auto it = values_.find(a.node);
  SF_CHECK(it != values_.end()) << "%" << a.node->name << " used before it was lowered";
  return it->second;
}

IrValue Lowering::arg_value(const NodeArg& a) const {
  switch (a.kind) {
    case NodeArg::Kind::kNode:
      return value_of(a);
    case NodeArg::Kind::kInt:
      return IrValue::scalar_of(sym::integer(a.i));
    case NodeArg::Kind::kFloat:
      return IrValue::scalar_of(sym::real(a.f));
    case NodeArg::Kind::kBool:
      return IrValue::scalar_of(sym::boolean(a.b));
    case NodeArg::Kind::kNone:
    case NodeArg::Kind::kDType:
    case NodeArg::Kind::kList:
      break;
  }
  SF_UNREACHABLE() << "argument is not a value";
}

int Lowering::add_buffer(DType dtype, std::vector<ExprRef> sizes, const std::string& input_name) {
  Buffer b;
  b.id = static_cast<int>(plan_.buffers.size());
  b.name = input_name.empty() ? "buf" + std::to_string(b.id) : input_name;
  b.dtype = dtype;
  b.sizes = std::move(sizes);
  b.input_name = input_name;
  plan_.buffers.push_back(std::move(b));
  return plan_.buffers.back().id;
}

Layout Lowering::alloc_for(const Value& v, const std::string& hint, bool operand_layout) {
  const fake::FakeTensor& f = fake::fake_of(v);
  Layout l;
  l.dtype = f.dtype();
  for (const SymInt& s : f.sizes()) l.sizes.push_back(s.expr());
  for (const SymInt& s : f.strides()) l.strides.push_back(s.expr());
  l.offset = sym::integer(0);
  std::vector<ExprRef> extent = l.sizes;
  if (operand_layout && !dense_at_zero(f)) {
    // An in-place op's result is its operand's layout, which may be a view's (add_ of a slice):
    // the buffer then spans that view's storage, offset included, as later views read it.
    l.offset = f.storage_offset().expr();
    ExprRef last = l.offset;
    for (size_t d = 0; d < l.sizes.size(); ++d) {
      last = sym::add(last, sym::mul(sym::sub(l.sizes[d], sym::integer(1)), l.strides[d]));
    }
    extent = {simplified(sym::max(sym::add(last, sym::integer(1)), sym::integer(0)))};
  }
  l.buffer = add_buffer(f.dtype(), extent);
  Step s;
  s.kind = Step::Kind::kAlloc;
  s.buffer = l.buffer;
  s.message = hint;
  add_step(s);
  return l;
}

bool Lowering::dense_at_zero(const fake::FakeTensor& f) const {
  if (!f.storage_offset().same_as(SymInt(0))) return false;
  std::vector<SymInt> want = t_.mode->contiguous_strides(f.sizes());
  for (size_t d = 0; d < want.size(); ++d) {
    if (!f.strides()[d].same_as(want[d])) return false;
  }
  return true;
}

// Whether the trace decided that `size` is 1. The meta functions broadcast on a guard such as
// Eq(Min(1, s0), 1), which simplifying the size alone does not see: ask the relation.
bool Lowering::known_one(const ExprRef& size) const {
  ExprRef s = simplified(size);
  if (s->is_ground()) return s == sym::integer(1);
  return env_.statically_known_true(SymBool(sym::eq(s, sym::integer(1))));
}

Access Lowering::access_of(const Layout& l, const std::vector<ExprRef>& iter) const {
  Access a;
  a.buffer = l.buffer;
  a.dtype = l.dtype;
  a.offset = l.offset;
  size_t n = iter.size(), k = l.sizes.size();
  SF_CHECK(k <= n) << "layout of rank " << k << " over an iteration space of rank " << n;
  for (size_t d = 0; d < n; ++d) {
    if (d < n - k) {
      a.strides.push_back(sym::integer(0));
      continue;
    }
    size_t j = d - (n - k);
    bool broadcast = known_one(l.sizes[j]) && !known_one(iter[d]);
    a.strides.push_back(broadcast ? sym::integer(0) : l.strides[j]);
  }
  return a;
}

Access Lowering::contiguous_access(const Layout& out, const std::vector<ExprRef>& iter) const {
  SF_CHECK(out.sizes.size() == iter.size()) << "output rank differs from the iteration space";
  Access a;
  a.buffer = out.buffer;
  a.dtype = out.dtype;
  a.offset = out.offset;
  a.strides = out.strides;
  return a;
}

int Lowering::add_kernel(Kernel k) {
  int id = static_cast<int>(plan_.kernels.size());
  k.name = "k" + std::to_string(id) + "_" + k.name;
  plan_.kernels.push_back(std::move(k));
  Step s;
  s.kind = Step::Kind::kLaunch;
  s.kernel = id;
  add_step(s);
  return id;
}

void record_def(Lowering& L, const ExprRef& s, const Node* n) {
  if (L.defined_.insert(s).second) L.defs_.push_back(s);
}

// A later replacement of a lifted symbol by a * x + rest (u0 == 2*s0 from a numel check after
// the call): the subgraph's sizes read x, which only the caller defines, and whose value the
// caller's assert of that equality (placed before the call, where both are bound) makes
// (u0 - rest) / a exactly. Computed from the input here, as a step that defines nothing new.
void Lowering::rederive(const ExprRef& lifted, const ExprRef& canonical) {
  std::vector<ExprRef> undefined;
  for (const ExprRef& x : sym::free_symbols(canonical)) {
    if (!defined_.count(x)) undefined.push_back(x);
  }
  if (undefined.size() != 1) return;
  std::optional<std::pair<int64_t, ExprRef>> linear = sym::linear_in(canonical, undefined[0]);
  if (!linear) return;
  Step s;
  s.kind = Step::Kind::kBind;
  s.symbol = undefined[0];
  s.expr = sym::floordiv(sym::sub(lifted, linear->second), sym::integer(linear->first));
  s.rederived = true;
  add_step(s);
  record_def(*this, s.symbol, nullptr);
}

void Lowering::bind_inputs() {
  for (const Node* p : g_.placeholders()) {
    if (p->value.kind() == Value::Kind::kTensor) {
      const fake::FakeTensor& f = fake::fake_of(p->value);
      Layout l;
      l.dtype = f.dtype();
      for (const SymInt& s : f.sizes()) l.sizes.push_back(s.expr());
      for (const SymInt& s : f.strides()) l.strides.push_back(s.expr());
      l.offset = sym::integer(0);
      l.buffer = add_buffer(f.dtype(), l.sizes, p->input_name);
      values_[p] = IrValue::tensor(l);
      for (size_t d = 0; d < l.sizes.size(); ++d) {
        Step s;
        s.kind = Step::Kind::kBindInput;
        s.symbol = l.sizes[d];
        s.path = {KeyEntry::call_method(TensorMethod::kSize),
                  KeyEntry::sequence(static_cast<int64_t>(d))};
        s.input_name = p->input_name;
        if (fault_on(Fault::kLoweringSkipsUnbackedInputBind) && s.symbol->is_unbacked_symbol()) {
          continue;  // #127770: no definition for an unbacked input size
        }
        add_step(s);
        if (l.sizes[d]->is(sym::ExprKind::kSymbol)) record_def(*this, l.sizes[d], p);
      }
    } else {
      values_[p] = IrValue::scalar_of(p->value.expr());
      Step s;
      s.kind = Step::Kind::kBindInput;
      s.symbol = p->value.expr();
      s.input_name = p->input_name;
      add_step(s);
      if (s.symbol->is(sym::ExprKind::kSymbol)) record_def(*this, s.symbol, p);
    }
  }
  if (subgraph_) {
    // A symbol lifted into a subgraph is stated in its traced name; a replacement recorded after
    // that (u1 == s0 from a later broadcast, say) makes the subgraph's sizes read the canonical
    // name, which only the caller defines. Equal by that replacement: read it from the same input.
    std::vector<Step> reads = plan_.steps;
    for (const Step& read : reads) {
      if (read.kind != Step::Kind::kBindInput || !read.symbol->is(sym::ExprKind::kSymbol)) continue;
      ExprRef canonical = env_.replace(read.symbol);
      if (canonical->is(sym::ExprKind::kSymbol)) {
        if (defined_.count(canonical)) continue;
        Step s = read;
        s.symbol = canonical;
        add_step(s);
        record_def(*this, canonical, nullptr);
        continue;
      }
      rederive(read.symbol, canonical);
    }
    return;  // the caller's guards already held when it ran this plan
  }
  // Guards: the recorded ones, and the ranges of backed input symbols (e.g. >= 2 after 0/1
  // specialization), so a plan is never reused for inputs it was not traced for.
  for (const ShapeGuard& g : env_.guards()) {
    Step s;
    s.kind = Step::Kind::kGuard;
    s.expr = g.expr;
    add_step(s);
  }
  for (const ExprRef& sym_ : defs_) {
    if (!env_.is_backed(sym_)) continue;
    sym::ValueRange vr = env_.var_range(sym_);
    if (vr.lo().is_finite())
      add_step(Step{Step::Kind::kGuard, sym::le(sym::integer(vr.lo().value()), sym_)});
    if (vr.hi().is_finite())
      add_step(Step{Step::Kind::kGuard, sym::le(sym_, sym::integer(vr.hi().value()))});
  }
}

void Lowering::check_definitions_cover_bindings(const Node* n, size_t first_new_def) {
  // INV-18: lowering may define more symbols than the node binds, never fewer.
  std::set<ExprRef, sym::ExprLess> new_defs(defs_.begin() + first_new_def, defs_.end());
  for (const auto& [s, path] : env_.resolve_unbacked_bindings(n->unbacked_bindings)) {
    if (new_defs.count(s)) continue;
    std::string have;
    for (const ExprRef& d : new_defs) have += d->str() + " ";
    SF_CHECK(false) << "INV-18: lowering %" << n->name << " defines {" << have
                    << "} but the node binds " << bindings_str(n->unbacked_bindings) << " (missing "
                    << s->str() << ")";
  }
}

void Lowering::lower_call(const Node* n) {
  IrValue v;
  bool scalar_result = n->value.kind() == Value::Kind::kInt ||
                       n->value.kind() == Value::Kind::kFloat ||
                       n->value.kind() == Value::Kind::kBool;
  if (scalar_result && n->op != OpKind::kItem) {
    v = IrValue::scalar_of(n->value.expr());
    if (n->derived_binding) {
      // i1 = i0 // d for a divisibility factor, computed from i0's value.
      // Only renamings are resolved here: through replacements i0 is d*i1 itself.
      const IrValue& src = value_of(n->args[0]);
      ExprRef i0 = sym::substitute_symbols(src.scalar, [&](const ExprRef& s) -> ExprRef {
        ExprRef r = env_.resolve_renaming(s);
        return r == s ? ExprRef() : r;
      });
      for (const auto& [s, path] : env_.resolve_unbacked_bindings(n->unbacked_bindings)) {
        Step b;
        b.kind = Step::Kind::kBind;
        b.symbol = s;
        b.expr = sym::floordiv(i0, sym::integer(n->args[1].i));
        add_step(b);
        record_def(*this, s, n);
      }
    }
    values_[n] = v;
    return;
  }
  // By family (the scalar ones and tolist never reach here: the tracer made them scalars or
  // expanded them); each family's lowering dispatches on its ops.
  switch (program::schema(n->op).family) {
    case OpFamily::kCreation:
      v = lower_creation(*this, n);
      break;
    case OpFamily::kPointwise:
      v = lower_pointwise(*this, n);
      break;
    case OpFamily::kMutation:  // add_ is an elementwise kernel; index_put_ a library call
      v = program::schema(n->op).element.kind == program::ElementOp::Kind::kNone
              ? lower_extern(*this, n)
              : lower_pointwise(*this, n);
      break;
    case OpFamily::kReduction:
      v = lower_reduction(*this, n);
      break;
    case OpFamily::kView:
      v = lower_view(*this, n);
      break;
    case OpFamily::kJoin:
      v = lower_join(*this, n);
      break;
    case OpFamily::kDataDependent:
      SF_CHECK(n->op != OpKind::kTolist) << "%" << n->name << ": tolist should have been expanded";
      v = lower_extern(*this, n);
      break;
    case OpFamily::kScalar:
      SF_CHECK(false) << "%" << n->name << ": " << program::op_name(n->op)
                      << " should have been a scalar by the tracer";
  }
  values_[n] = v;
}

void Lowering::lower_node(const Node* n) {
  size_t first_new_def = defs_.size();
  switch (n->kind) {
    case NodeKind::kPlaceholder:
      return;  // bound in bind_inputs
    case NodeKind::kCall:
      lower_call(n);
      break;
    case NodeKind::kGetItem:
      values_[n] = value_of(n->args[0]).elems.at(n->args[1].i);
      break;
    case NodeKind::kCond:
    case NodeKind::kWhileLoop:
    case NodeKind::kInvokeSubgraph:
    case NodeKind::kMap:
    case NodeKind::kScan:
    case NodeKind::kAssociativeScan:
      lower_higher_order(n);
      break;
    case NodeKind::kStorageOffset:
      values_[n] = IrValue::scalar_of(n->value.expr());
      break;
    case NodeKind::kCheck:
    case NodeKind::kAssertScalar: {
      Step s;
      s.kind = Step::Kind::kAssert;
      s.expr = n->assert_expr;
      s.message = n->message;
      add_step(s);
      break;
    }
    case NodeKind::kOutput: {
      Step s;
      s.kind = Step::Kind::kOutput;
      std::function<OutputRef(const NodeArg&)> out_of = [&](const NodeArg& a) {
        OutputRef o;
        if (a.kind == NodeArg::Kind::kList) {
          o.kind = OutputRef::Kind::kTuple;
          for (const NodeArg& e : a.list) o.elems.push_back(out_of(e));
          return o;
        }
        if (a.kind == NodeArg::Kind::kNone) return o;
        return output_ref(arg_value(a));
      };
      for (const NodeArg& a : n->args) s.outputs.push_back(out_of(a));
      add_step(s);
      break;
    }
  }
  check_definitions_cover_bindings(n, first_new_def);
}

OutputRef output_ref(const IrValue& v) {
  OutputRef r;
  switch (v.kind) {
    case IrValue::Kind::kTensor:
      r.kind = OutputRef::Kind::kTensor;
      r.layout = v.layout;
      break;
    case IrValue::Kind::kScalar:
      r.kind = OutputRef::Kind::kScalar;
      r.scalar = v.scalar;
      break;
    case IrValue::Kind::kTuple:
      r.kind = OutputRef::Kind::kTuple;
      for (const IrValue& e : v.elems) r.elems.push_back(output_ref(e));
      break;
    case IrValue::Kind::kNone:
      break;
  }
  return r;
}

void Lowering::lower_higher_order(const Node* n) {
  Step s;
  s.kind = n->kind == NodeKind::kCond              ? Step::Kind::kCond
           : n->kind == NodeKind::kWhileLoop       ? Step::Kind::kWhileLoop
           : n->kind == NodeKind::kMap             ? Step::Kind::kMap
           : n->kind == NodeKind::kScan            ? Step::Kind::kScan
           : n->kind == NodeKind::kAssociativeScan ? Step::Kind::kAssociativeScan
                                                   : Step::Kind::kInvokeSubgraph;
  for (const auto& sub : n->subgraphs) {
    // A region several calls share is lowered once, its plan shared as its graph is.
    auto lowered = subplan_of_.find(sub.get());
    if (lowered != subplan_of_.end()) {
      s.subplans.push_back(lowered->second);
      continue;
    }
    // Lowered where its facts hold, as it was traced (spec §6.6): its asserts teach them again
    // (the asserts themselves are frozen by now), and they are gone once it is lowered.
    ShapeEnv::FactScope facts(&env_);
    for (const RuntimeAssert& ra : sub->scoped_asserts)
      env_.guard_or_defer_runtime_assert(ra.expr, ra.msg);
    Plan p = Lowering(*sub, t_, true).run();
    for (const Node* ph : sub->placeholders()) p.input_order.push_back(ph->input_name);
    s.subplans.push_back(static_cast<int>(plan_.subplans.size()));
    subplan_of_.emplace(sub.get(), s.subplans.back());
    plan_.subplans.push_back(std::move(p));
  }
  for (const NodeArg& a : n->args) s.operands.push_back(output_ref(arg_value(a)));
  s.carries = n->carry_args;
  s.mapped = n->mapped_args;
  s.dim = n->scan_dim;
  // The outputs: each tensor into a buffer of its own (the step allocates it once the nested
  // run gives its shape), each int an expression over the symbols the step binds.
  IrValue result;
  result.kind = IrValue::Kind::kTuple;
  std::vector<SymInt> sizes;
  for (const Value& v : n->value.elems()) {
    if (v.kind() == Value::Kind::kTensor) {
      const fake::FakeTensor& f = fake::fake_of(v);
      Layout l;
      l.dtype = f.dtype();
      for (const SymInt& x : f.sizes()) l.sizes.push_back(x.expr());
      for (const SymInt& x : f.strides()) l.strides.push_back(x.expr());
      l.offset = sym::integer(0);
      l.buffer = add_buffer(f.dtype(), l.sizes);
      s.result_buffers.push_back(l.buffer);
      result.elems.push_back(IrValue::tensor(l));
    } else {
      s.result_buffers.push_back(-1);
      result.elems.push_back(IrValue::scalar_of(v.expr()));
    }
  }
  for (const auto& [sym_, path] : env_.resolve_unbacked_bindings(n->unbacked_bindings)) {
    s.result_binds.emplace_back(sym_, path);
    record_def(*this, sym_, n);
  }
  add_step(s);
  values_[n] = result;
}

Plan Lowering::run() {
  bind_inputs();
  for (const Node* n : g_.nodes()) lower_node(n);
  insert_frees();
  check_closure();
  return std::move(plan_);
}

}  // namespace detail

Plan lower_graph(const graph::Graph& g, graph::Trace& t) { return detail::Lowering(g, t).run(); }

}  // namespace sf::lower
