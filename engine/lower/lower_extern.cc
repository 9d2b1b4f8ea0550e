// Extern kernels (FallbackKernel / MultiOutput / DynamicScalar): their unbacked defs come from a
// process_kernel re-propagation — the meta function re-run on fake inputs derived from the IR
// layouts, rebind_unbacked against the node's bindings, then compute_unbacked_bindings with the
// node's example value as the old value (spec §2.7 step 6, §5.2).
#include <functional>
#include <set>

#include "engine/base/check.h"
#include "engine/base/faults.h"
#include "engine/fake/fake_tensor.h"
#include "engine/fake/meta/meta.h"
#include "engine/graph/node_eval.h"
#include "engine/lower/lowering_internal.h"
#include "engine/program/schema.h"
#include "engine/sym/make.h"

namespace sf::lower::detail {

using graph::Node;
using graph::NodeArg;

namespace {

Layout layout_of(const Value& v, int buffer) {
  const fake::FakeTensor& f = fake::fake_of(v);
  Layout l;
  l.buffer = buffer;
  l.dtype = f.dtype();
  for (const SymInt& s : f.sizes()) l.sizes.push_back(s.expr());
  for (const SymInt& s : f.strides()) l.strides.push_back(s.expr());
  l.offset = sym::integer(0);
  return l;
}

// A copy of `from` into a buffer laid out as the fake value `v` (strides and offset).
IrValue copy_into(Lowering& L, const IrValue& from, const Value& v, const std::string& name) {
  Layout out = L.alloc_for(v, name + " relaid", /*operand_layout=*/true);
  Kernel k;
  k.kind = Kernel::Kind::kPointwise;
  k.name = "relay";
  k.sizes = out.sizes;
  k.body = operand(k, L, from, k.sizes);
  k.output = L.contiguous_access(out, k.sizes);
  L.add_kernel(std::move(k));
  return IrValue::tensor(out);
}

}  // namespace

IrValue lower_extern(Lowering& L, const Node* n) {
  ShapeEnv& env = L.env();
  Extern e;
  e.op = n->op;
  e.node = n;
  e.name = "e" + std::to_string(L.plan().externs.size()) + "_" + program::op_name(n->op);
  // IR-derived fake inputs: fresh fake tensors with the layouts the kernel will really see.
  fake::FakeMode mode(&env);
  mode.inference_mode = L.trace().mode->inference_mode;
  std::map<Node*, Value> ir_fakes;
  // The node's arguments as the extern's: tensors become inputs (one per tensor argument, even
  // if repeated), scalar nodes their expressions, literals constants.
  std::function<ExternArg(const NodeArg&)> extern_arg = [&](const NodeArg& a) {
    ExternArg x;
    switch (a.kind) {
      case NodeArg::Kind::kNone:
        break;
      case NodeArg::Kind::kInt:
        x.kind = ExternArg::Kind::kScalar;
        x.scalar = sym::integer(a.i);
        break;
      case NodeArg::Kind::kFloat:
        x.kind = ExternArg::Kind::kScalar;
        x.scalar = sym::real(a.f);
        break;
      case NodeArg::Kind::kBool:
        x.kind = ExternArg::Kind::kScalar;
        x.scalar = sym::boolean(a.b);
        break;
      case NodeArg::Kind::kDType:
        x.kind = ExternArg::Kind::kDType;
        x.dtype = a.dtype;
        break;
      case NodeArg::Kind::kList:
        x.kind = ExternArg::Kind::kList;
        for (const NodeArg& elem : a.list) x.list.push_back(extern_arg(elem));
        break;
      case NodeArg::Kind::kNode: {
        const IrValue& v = L.value_of(a);
        if (v.kind == IrValue::Kind::kScalar) {
          x.kind = ExternArg::Kind::kScalar;
          x.scalar = v.scalar;
          break;
        }
        SF_CHECK(v.kind == IrValue::Kind::kTensor)
            << e.name << ": an argument that is neither a tensor nor a scalar";
        x.kind = ExternArg::Kind::kTensor;
        x.input = static_cast<int>(e.inputs.size());
        e.inputs.push_back(v.layout);
        Node* arg = a.node;
        if (ir_fakes.count(arg)) break;
        std::vector<SymInt> sizes, strides;
        for (const ExprRef& s : v.layout.sizes) sizes.emplace_back(s);
        for (const ExprRef& s : v.layout.strides) strides.emplace_back(s);
        ir_fakes[arg] = Value::tensor(
            mode.make_tensor(v.layout.dtype, sizes, strides, SymInt(v.layout.offset)));
        break;
      }
    }
    return x;
  };
  for (const NodeArg& a : n->args) e.args.push_back(extern_arg(a));
  e.tuple_output = n->value.kind() == Value::Kind::kTuple;
  // DynamicScalar (item): the value is a scalar, not tensors.
  const bool dynamic_scalar = !e.tuple_output && n->value.kind() != Value::Kind::kTensor;
  Bindings bindings;
  if (dynamic_scalar) {
    bindings = n->unbacked_bindings;  // DynamicScalar: its one binding is its def
  } else {
    fake::MetaContext ctx{mode, "lowering %" + n->name};
    auto value_of = [&](Node* arg) -> const Value& {
      auto it = ir_fakes.find(arg);
      return it != ir_fakes.end() ? it->second : arg->value;
    };
    Value example = graph::eval_node(ctx, *n, value_of);
    env.rebind_unbacked(n->unbacked_bindings, example, false);
    std::optional<Bindings> b = env.compute_unbacked_bindings(example, &n->value);
    if (b) bindings = *b;
    // Facts recorded after the node (a later node's implicit assert, added while re-propagating)
    // can let the re-run compute a binding's value as a constant: nonzero of an input that is now
    // statically empty allocates nothing. The extern still produces the value at run time and the
    // plan's shapes still name the symbol, so it binds it from its output as the node recorded
    // (INV-18: lowering may define more symbols than the node binds, never fewer; Inductor's
    // "inductor >= fx" assertion would fail here).
    std::set<ExprRef, sym::ExprLess> covered;
    for (const auto& [s, path] : env.resolve_unbacked_bindings(bindings)) covered.insert(s);
    for (const auto& [s, path] : env.resolve_unbacked_bindings(n->unbacked_bindings)) {
      if (covered.count(s)) continue;
      if (key_get(example, keypath_without_conversion(path)).is_constant_scalar()) {
        bindings.emplace(s, path);
      }
    }
  }
  e.unbacked_bindings = bindings;
  for (const auto& [s, path] : env.resolve_unbacked_bindings(bindings)) e.defs.push_back(s);
  // Outputs: buffers the extern allocates, shaped like the node's example value.
  IrValue result;
  int extern_id = static_cast<int>(L.plan().externs.size());
  // An extern writes its outputs contiguously. One whose fake layout is another (index_put_ of a
  // view returns the view) is copied into that layout after the call (see the end).
  const bool in_place = program::schema(n->op).family == program::OpFamily::kMutation;
  auto relay = [&](const Value& v) { return in_place && !L.dense_at_zero(fake::fake_of(v)); };
  auto new_output = [&](const Value& v) {
    const fake::FakeTensor& f = fake::fake_of(v);
    std::vector<ExprRef> sizes;
    for (const SymInt& s : f.sizes()) sizes.push_back(s.expr());
    int b = L.add_buffer(f.dtype(), sizes);
    L.plan().buffers[b].extern_producer = extern_id;
    e.outputs.push_back(b);
    if (!relay(v)) return IrValue::tensor(layout_of(v, b));
    Layout l;
    l.buffer = b;
    l.dtype = f.dtype();
    l.sizes = sizes;
    for (const SymInt& s : mode.contiguous_strides(f.sizes(), false)) l.strides.push_back(s.expr());
    l.offset = sym::integer(0);
    return IrValue::tensor(l);
  };
  if (dynamic_scalar) {
    result = IrValue::scalar_of(n->value.expr());
  } else if (n->value.kind() == Value::Kind::kTuple) {
    result.kind = IrValue::Kind::kTuple;
    for (const Value& v : n->value.elems()) result.elems.push_back(new_output(v));
  } else {
    result = new_output(n->value);
  }
  L.plan().externs.push_back(e);
  Step s;
  s.kind = Step::Kind::kExtern;
  s.kernel = extern_id;
  L.add_step(s);
  for (const auto& [sym_, path] : bindings) {
    Step b;
    b.kind = Step::Kind::kBind;
    b.symbol = fault_on(Fault::kExternBindsUnresolvedName) ? sym_ : env.resolve_renaming(sym_);
    // A memo hit (a second nonzero of one tensor) re-derives a symbol an earlier extern already
    // defines: each symbol is declared once in the wrapper (INV-18), like unbacked_symbol_decls.
    // Bug zoo (before PR #111823): declared again.
    if (L.defined_.count(b.symbol) && !fault_on(Fault::kExternRedefinesMemoSymbol)) continue;
    b.kernel = extern_id;
    b.path = path;
    L.add_step(b);
    record_def(L, b.symbol, n);
  }
  if (result.kind == IrValue::Kind::kTuple) {
    for (size_t i = 0; i < result.elems.size(); ++i) {
      const Value& v = n->value.elems()[i];
      if (relay(v)) result.elems[i] = copy_into(L, result.elems[i], v, e.name);
    }
  } else if (result.kind == IrValue::Kind::kTensor && relay(n->value)) {
    result = copy_into(L, result, n->value, e.name);
  }
  return result;
}

}  // namespace sf::lower::detail
