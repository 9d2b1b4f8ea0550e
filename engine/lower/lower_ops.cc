// Lowering of kernel-producing ops: creation, pointwise (with the dtype rules of docs/ops.md),
// reductions, views (layouts, or a copy when the trace made a fresh tensor), cat/stack and
// index_select (a gather).
#include "engine/base/check.h"
#include "engine/fake/fake_tensor.h"
#include "engine/fake/meta/slice_geometry.h"
#include "engine/lower/lowering_internal.h"
#include "engine/program/schema.h"
#include "engine/sym/make.h"

namespace sf::lower::detail {

using graph::Node;
using graph::NodeArg;
using program::OpKind;

namespace {

std::vector<ExprRef> sizes_of(const Value& v) {
  std::vector<ExprRef> out;
  for (const SymInt& s : fake::fake_of(v).sizes()) out.push_back(s.expr());
  return out;
}

IrValue finish(Lowering& L, const Node* n, Kernel k, const std::string& name) {
  bool in_place = program::schema(n->op).family == program::OpFamily::kMutation;
  Layout out = L.alloc_for(n->value, name, in_place);
  k.name = name;
  k.sizes = out.sizes;
  k.output = L.contiguous_access(out, k.sizes);
  L.add_kernel(std::move(k));
  return IrValue::tensor(out);
}

}  // namespace

IrValue lower_creation(Lowering& L, const Node* n) {
  Kernel k;
  k.kind = Kernel::Kind::kPointwise;
  DType out = fake::fake_of(n->value).dtype();
  switch (n->op) {
    case OpKind::kZeros:
      k.body = out == DType::kFloat32 ? KExpr::constant_f(0) : KExpr::constant_i(0, out);
      break;
    case OpKind::kOnes:
      k.body = out == DType::kFloat32 ? KExpr::constant_f(1) : KExpr::constant_i(1, out);
      break;
    case OpKind::kFull:
      k.body = fill_value(L.arg_value(n->args[1]), out);
      break;
    case OpKind::kArange: {
      ExprRef start = n->args[1].kind == NodeArg::Kind::kNone ? sym::integer(0)
                                                              : L.arg_value(n->args[0]).scalar;
      k.body = KExpr::cast(KExpr::binary_of(BinaryOp::kAdd, KExpr::index(0),
                                            KExpr::scalar_of(start, DType::kInt64), DType::kInt64),
                           out);
      break;
    }
    default:  // ops of other families: the lowering routes by family (see docs/decisions.md)
      SF_UNREACHABLE() << program::op_name(n->op) << " is not a creation op";
  }
  return finish(L, n, std::move(k), program::op_name(n->op));
}

namespace {

// The pointwise ops without an element op of their own: to, relu, where, masked_fill.
KExprPtr special_pointwise_body(Kernel& k, Lowering& L, const Node* n,
                                const std::vector<ExprRef>& iter, DType out) {
  auto arg = [&](int i) { return operand(k, L, L.arg_value(n->args[i]), iter); };
  if (n->op == OpKind::kTo) return KExpr::cast(arg(0), out);
  if (n->op == OpKind::kRelu) {  // maximum(a, 0) with a weak int 0
    KExprPtr zero = out == DType::kFloat32 ? KExpr::constant_f(0) : KExpr::constant_i(0, out);
    return KExpr::binary_of(BinaryOp::kMaximum, KExpr::cast(arg(0), out), zero, out);
  }
  if (n->op == OpKind::kMaskedFill) {  // where(mask, value, a) in a's dtype
    return KExpr::where_of(KExpr::cast(arg(1), DType::kBool), KExpr::cast(arg(2), out),
                           KExpr::cast(arg(0), out));
  }
  SF_CHECK(n->op == OpKind::kWhere) << "no kernel body for " << program::op_name(n->op);
  KExprPtr c = KExpr::cast(arg(0), DType::kBool);
  KExprPtr a = KExpr::cast(arg(1), out);
  KExprPtr b = KExpr::cast(arg(2), out);
  return KExpr::where_of(c, a, b);
}

}  // namespace

// Elementwise ops are lowered from their ops.def row alone: the element op and the dtype rule
// (operands cast to the compute dtype, the result cast to the node's dtype).
IrValue lower_pointwise(Lowering& L, const Node* n) {
  Kernel k;
  k.kind = Kernel::Kind::kPointwise;
  std::vector<ExprRef> iter = sizes_of(n->value);
  DType out = fake::fake_of(n->value).dtype();
  const program::OpSchema& s = program::schema(n->op);
  switch (s.element.kind) {
    case program::ElementOp::Kind::kBinary: {
      IrValue a = L.arg_value(n->args[0]), b = L.arg_value(n->args[1]);
      std::vector<DType> tensors, scalars;
      for (const IrValue* v : {&a, &b}) {
        (v->kind == IrValue::Kind::kTensor ? tensors : scalars).push_back(value_dtype(*v));
      }
      DType promoted = program::result_type(tensors, scalars);
      DType compute = program::compute_dtype(s.dtype_rule, promoted);
      KExprPtr x = KExpr::cast(operand(k, L, a, iter), compute);
      KExprPtr y = KExpr::cast(operand(k, L, b, iter), compute);
      DType result = program::result_dtype(s.dtype_rule, promoted);
      k.body = KExpr::cast(KExpr::binary_of(s.element.binary, x, y, result), out);
      break;
    }
    case program::ElementOp::Kind::kUnary: {
      IrValue a = L.arg_value(n->args[0]);
      DType compute = program::compute_dtype(s.dtype_rule, value_dtype(a));
      KExprPtr x = KExpr::cast(operand(k, L, a, iter), compute);
      k.body = KExpr::cast(KExpr::unary_of(s.element.unary, x), out);
      break;
    }
    case program::ElementOp::Kind::kNone:
      k.body = special_pointwise_body(k, L, n, iter, out);
      break;
  }
  return finish(L, n, std::move(k), program::op_name(n->op));
}

KExprPtr fill_value(const IrValue& v, DType out) {
  // A float literal for an i64 or bool tensor: converted from its double as eager does (through
  // f32 first, 16777217.0 would fill 16777216).
  if (out != DType::kFloat32 && v.scalar->is(sym::ExprKind::kFloat)) {
    double f = v.scalar->float_value();
    return KExpr::constant_i(out == DType::kBool ? f != 0.0 : program::float_to_int(f), out);
  }
  return KExpr::cast(KExpr::scalar_of(v.scalar, value_dtype(v)), out);
}

Access reduction_output(const Layout& out, const std::vector<bool>& reduced) {
  Access o{out.buffer, out.dtype, sym::integer(0), {}};
  bool keepdim = out.sizes.size() == reduced.size() && !reduced.empty();
  size_t od = 0;
  for (bool r : reduced) {
    if (r) {
      o.strides.push_back(sym::integer(0));  // a reduced dim writes nowhere
      if (keepdim) ++od;
    } else {
      o.strides.push_back(out.strides.at(od++));
    }
  }
  return o;
}

IrValue lower_reduction(Lowering& L, const Node* n) {
  if (n->op == OpKind::kMm || n->op == OpKind::kBmm || n->op == OpKind::kMatmul) {
    return lower_contraction(L, n);
  }
  switch (n->op) {
    case OpKind::kArgmax:
    case OpKind::kArgmin:
      return lower_arg_extremum(L, n);
    case OpKind::kCumsum:  // library calls, as Inductor's fallbacks
    case OpKind::kSort:
    case OpKind::kArgsort:
    case OpKind::kTopk:
    case OpKind::kHistc:
      return lower_extern(L, n);
    default:
      break;
  }
  const IrValue& a = L.value_of(n->args[0]);
  int64_t rank = static_cast<int64_t>(a.layout.sizes.size());
  std::vector<bool> reduced(rank, n->args[1].kind == NodeArg::Kind::kNone);
  if (n->args[1].kind != NodeArg::Kind::kNone) {
    std::vector<NodeArg> dims = dims_of(n->args[1]);
    if (dims.empty()) reduced.assign(rank, true);  // dim=[] reduces every dim
    for (const NodeArg& d : dims) {
      if (rank > 0) reduced.at(wrap_dim(d.i, rank)) = true;
    }
  }
  Kernel k;
  k.kind = Kernel::Kind::kReduction;
  k.sizes = a.layout.sizes;
  k.reduced = reduced;
  KExprPtr x = operand(k, L, a, k.sizes);
  DType out = fake::fake_of(n->value).dtype();
  switch (n->op) {
    case OpKind::kSum:
      k.reduce = ReduceOp::kSum;
      k.body = KExpr::cast(x, out);
      break;
    case OpKind::kAmax:
    case OpKind::kAmin:
      k.reduce = n->op == OpKind::kAmax ? ReduceOp::kMax : ReduceOp::kMin;
      k.body = x;
      break;
    case OpKind::kAny:
    case OpKind::kAll:
      k.reduce = n->op == OpKind::kAny ? ReduceOp::kAny : ReduceOp::kAll;
      k.body = KExpr::cast(x, DType::kBool);
      break;
    case OpKind::kCountNonzero:
      k.reduce = ReduceOp::kSum;
      k.body = KExpr::cast(KExpr::cast(x, DType::kBool), DType::kInt64);
      break;
    default:  // ops of other families: the lowering routes by family (see docs/decisions.md)
      SF_UNREACHABLE() << program::op_name(n->op) << " is not a reduction";
  }
  Layout out_layout = L.alloc_for(n->value, program::op_name(n->op));
  k.output = reduction_output(out_layout, reduced);
  k.name = program::op_name(n->op);
  L.add_kernel(std::move(k));
  return IrValue::tensor(out_layout);
}

// A slice or narrow whose clamp the trace could not decide bound fresh size and storage-offset
// symbols: each is computed here from the operands' values with the clamp written out
// (Inductor's DynamicSliceSize), so the run knows them before any later step uses them.
void bind_slice_symbols(Lowering& L, const Node* n, const Layout& in) {
  Bindings bindings = L.env().resolve_unbacked_bindings(n->unbacked_bindings);
  if (bindings.empty()) return;
  SF_CHECK(n->op == OpKind::kSlice || n->op == OpKind::kNarrow)
      << "%" << n->name << ": a view that binds " << bindings_str(n->unbacked_bindings);
  int64_t rank = static_cast<int64_t>(in.sizes.size());
  int64_t d = wrap_dim(n->args[1].i, rank);
  auto scalar = [&](const NodeArg& a) {
    return a.kind == NodeArg::Kind::kNone ? ExprRef() : L.arg_value(a).scalar;
  };
  ExprRef start = scalar(n->args[2]), end, step = sym::integer(1);
  if (n->op == OpKind::kSlice) {
    end = scalar(n->args[3]);
    step = scalar(n->args[4]);
  } else {
    end = fake::narrow_end(in.sizes[d], start, scalar(n->args[3]));
  }
  fake::SliceGeometry g =
      fake::exact_slice_geometry(in.sizes[d], in.strides[d], in.offset, start, end, step);
  for (const auto& [s, path] : bindings) {
    Step b;
    b.kind = Step::Kind::kBind;
    b.symbol = s;
    if (path.size() == 1 && path[0].kind == KeyEntry::Kind::kCallMethod &&
        path[0].method == TensorMethod::kStorageOffset) {
      b.expr = g.offset;
    } else {
      SF_CHECK(path.size() == 2 && path[0].kind == KeyEntry::Kind::kCallMethod &&
               path[0].method == TensorMethod::kSize && path[1].index == d)
          << "%" << n->name << " binds " << s->str() << " at " << keypath_str(path);
      b.expr = g.size;
    }
    L.add_step(b);
    record_def(L, s, n);
  }
}

IrValue lower_view(Lowering& L, const Node* n) {
  if (n->op == OpKind::kSplitWithSizes) return lower_split(L, n);
  SF_CHECK(n->op != OpKind::kTensorSplit)
      << "%" << n->name << ": tensor_split is expanded by the tracer";
  const IrValue& in = L.value_of(n->args[0]);
  bind_slice_symbols(L, n, in.layout);
  const fake::FakeTensor& out = fake::fake_of(n->value);
  const fake::FakeTensor& src = fake::fake_of(n->args[0].node->value);
  Layout l;
  l.dtype = out.dtype();
  for (const SymInt& s : out.sizes()) l.sizes.push_back(s.expr());
  for (const SymInt& s : out.strides()) l.strides.push_back(s.expr());
  l.offset = out.storage_offset().expr();
  if (out.storage() == src.storage()) {  // a true view: same buffer, new layout
    l.buffer = in.layout.buffer;
    return IrValue::tensor(l);
  }
  // reshape/flatten of a non-contiguous tensor: copy the input in row-major order first.
  Kernel k;
  k.kind = Kernel::Kind::kPointwise;
  k.name = "copy";
  k.sizes = in.layout.sizes;
  k.body = operand(k, L, in, k.sizes);
  l.buffer = L.add_buffer(out.dtype(), l.sizes);
  L.add_step(Step{Step::Kind::kAlloc, nullptr, "copy", l.buffer});
  Access o;
  o.buffer = l.buffer;
  o.dtype = l.dtype;
  o.offset = sym::integer(0);
  std::vector<SymInt> in_sizes;
  for (const ExprRef& e : in.layout.sizes) in_sizes.emplace_back(e);
  for (const SymInt& s : L.trace().mode->contiguous_strides(in_sizes))
    o.strides.push_back(s.expr());
  k.output = o;
  L.add_kernel(std::move(k));
  return IrValue::tensor(l);
}

IrValue lower_join(Lowering& L, const Node* n) {
  if (n->op == OpKind::kFlip) {  // a copy through a layout read backwards along the dims
    IrValue a = L.value_of(n->args[0]);
    Layout& l = a.layout;
    int64_t rank = static_cast<int64_t>(l.sizes.size());
    for (const NodeArg& d : dims_of(n->args[1])) {
      if (rank == 0) break;  // a 0-dim tensor flips to itself
      int64_t w = wrap_dim(d.i, rank);
      // An empty dim leaves the kernel empty, so the offset it gives is never read.
      l.offset = sym::add(l.offset, sym::mul(sym::sub(l.sizes[w], sym::integer(1)), l.strides[w]));
      l.strides[w] = sym::neg(l.strides[w]);
    }
    l.offset = L.simplified(l.offset);
    Kernel k;
    k.kind = Kernel::Kind::kPointwise;
    k.body = operand(k, L, a, sizes_of(n->value));
    return finish(L, n, std::move(k), "flip");
  }
  switch (n->op) {
    case OpKind::kGather:
    case OpKind::kEmbedding:
    case OpKind::kRoll:
      return lower_gathers(L, n);
    case OpKind::kRepeat:
    case OpKind::kTile:
      return lower_repeat(L, n);
    case OpKind::kPad:
      return lower_pad(L, n);
    case OpKind::kScatterAdd:  // library calls (scatters and searches)
    case OpKind::kIndexAdd:
    case OpKind::kSearchsorted:
      return lower_extern(L, n);
    default:
      break;
  }
  if (n->op == OpKind::kIndexSelect) {
    IrValue a = L.value_of(n->args[0]);
    const IrValue& index = L.value_of(n->args[2]);
    int64_t rank = static_cast<int64_t>(a.layout.sizes.size());
    int64_t d = wrap_dim(n->args[1].i, rank);
    Kernel k;
    k.kind = Kernel::Kind::kPointwise;
    std::vector<ExprRef> iter = sizes_of(n->value);
    if (rank == 0) {
      // A 0-dim source is gathered as a 1-element vector (the index must be -1 or 0), over a
      // one-point iteration space writing the 0-dim output.
      a.layout.sizes = {sym::integer(1)};
      a.layout.strides = {sym::integer(0)};
      rank = 1;
      iter = {sym::integer(1)};
    }
    Access src = L.access_of(a.layout, iter);
    src.strides[d] = sym::integer(0);  // the gather supplies this dim's offset
    k.inputs.push_back(src);
    Access idx;
    idx.buffer = index.layout.buffer;
    idx.dtype = index.layout.dtype;
    idx.offset = index.layout.offset;
    for (int64_t j = 0; j < rank; ++j) {
      bool along = j == d && !index.layout.strides.empty();
      idx.strides.push_back(along ? index.layout.strides[0] : sym::integer(0));
    }
    k.inputs.push_back(idx);
    auto load = std::make_shared<KExpr>(*KExpr::load(0, a.layout.dtype));
    load->gather_dim = static_cast<int>(d);
    load->gather = KExpr::load(1, DType::kInt64);
    load->gather_size = a.layout.sizes[d];
    load->gather_stride = a.layout.strides[d];
    k.body = load;
    if (iter.size() != sizes_of(n->value).size()) {  // the 0-dim case: write the single element
      Layout out = L.alloc_for(n->value, "index_select");
      k.name = "index_select";
      k.sizes = iter;
      k.output = Access{out.buffer, out.dtype, sym::integer(0), {sym::integer(0)}};
      L.add_kernel(std::move(k));
      return IrValue::tensor(out);
    }
    return finish(L, n, std::move(k), "index_select");
  }
  SF_CHECK(n->op == OpKind::kCat || n->op == OpKind::kStack)
      << "no join lowering for " << program::op_name(n->op);
  const std::vector<NodeArg>& items = n->args[0].list;
  std::vector<IrValue> ins;
  for (const NodeArg& a : items) ins.push_back(L.value_of(a));
  DType out_dtype = fake::fake_of(n->value).dtype();
  Layout out = L.alloc_for(n->value, program::op_name(n->op));
  int64_t out_rank = static_cast<int64_t>(out.sizes.size());
  int64_t d = wrap_dim(n->args[1].i, out_rank);
  ExprRef running = sym::integer(0);
  for (IrValue& v : ins) {
    Layout l = v.layout;
    if (n->op == OpKind::kStack) {  // a new size-1 dim at d, then cat along it
      l.sizes.insert(l.sizes.begin() + d, sym::integer(1));
      l.strides.insert(l.strides.begin() + d, sym::integer(0));
    } else if (l.sizes.size() == 1 && l.sizes[0] == sym::integer(0)) {
      continue;  // a legacy empty 1-D tensor is skipped, as in the meta function
    }
    Kernel k;
    k.kind = Kernel::Kind::kPointwise;
    k.name = std::string(program::op_name(n->op)) + "_part";
    k.sizes = l.sizes;
    k.body = KExpr::cast(operand(k, L, IrValue::tensor(l), k.sizes), out_dtype);
    Access o = L.contiguous_access(out, out.sizes);
    o.offset = sym::mul(running, out.strides[d]);
    k.output = o;
    L.add_kernel(std::move(k));
    running = sym::add(running, l.sizes[d]);
  }
  return IrValue::tensor(out);
}

}  // namespace sf::lower::detail
