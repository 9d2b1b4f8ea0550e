// repeat and tile as one strided copy over [r_0, n_0, r_1, n_1, ...] (the input read with stride
// 0 along each r), constant pad as a fill of the output and a copy of the input's overlap into it
// (a negative pad crops), and split_with_sizes as views of one buffer.
#include "engine/fake/fake_tensor.h"
#include "engine/lower/lowering_internal.h"
#include "engine/program/schema.h"
#include "engine/sym/make.h"

namespace sf::lower::detail {

using graph::Node;
using graph::NodeArg;
using program::OpKind;

namespace {

std::vector<ExprRef> scalars_of(Lowering& L, const NodeArg& list) {
  std::vector<ExprRef> out;
  for (const NodeArg& e : list.list) out.push_back(L.arg_value(e).scalar);
  return out;
}

}  // namespace

IrValue lower_repeat(Lowering& L, const Node* n) {
  const Layout& a = L.value_of(n->args[0]).layout;
  std::vector<ExprRef> reps = scalars_of(L, n->args[1]);
  size_t rank = a.sizes.size();
  if (n->op == OpKind::kTile && reps.size() < rank) {
    reps.insert(reps.begin(), rank - reps.size(), sym::integer(1));
  }
  size_t lead = reps.size() - rank;  // new leading dims of size 1
  Layout out = L.alloc_for(n->value, program::op_name(n->op));
  Kernel k;
  k.kind = Kernel::Kind::kPointwise;
  Access src{a.buffer, a.dtype, a.offset, {}};
  Access dst{out.buffer, out.dtype, sym::integer(0), {}};
  for (size_t d = 0; d < reps.size(); ++d) {
    ExprRef size = d < lead ? sym::integer(1) : a.sizes[d - lead];
    ExprRef stride = d < lead ? sym::integer(0) : a.strides[d - lead];
    k.sizes.push_back(reps[d]);
    k.sizes.push_back(size);
    src.strides.push_back(sym::integer(0));
    src.strides.push_back(stride);
    dst.strides.push_back(L.simplified(sym::mul(size, out.strides[d])));
    dst.strides.push_back(out.strides[d]);
  }
  k.inputs.push_back(src);
  k.body = KExpr::load(0, a.dtype);
  k.output = dst;
  k.name = program::op_name(n->op);
  L.add_kernel(std::move(k));
  return IrValue::tensor(out);
}

IrValue lower_pad(Lowering& L, const Node* n) {
  const Layout& a = L.value_of(n->args[0]).layout;
  std::vector<ExprRef> pads = scalars_of(L, n->args[1]);
  size_t rank = a.sizes.size();
  Layout out = L.alloc_for(n->value, "pad");
  IrValue value = L.arg_value(n->args[2]);
  Kernel fill;
  fill.kind = Kernel::Kind::kPointwise;
  fill.sizes = out.sizes;
  fill.body = fill_value(value, out.dtype);
  fill.output = L.contiguous_access(out, out.sizes);
  fill.name = "pad_fill";
  L.add_kernel(std::move(fill));
  // The overlap: along each padded dim the input from max(-lo, 0), written from max(lo, 0), for
  // max(n - max(-lo, 0) - max(-hi, 0), 0) elements.
  Kernel copy;
  copy.kind = Kernel::Kind::kPointwise;
  Access src{a.buffer, a.dtype, a.offset, a.strides};
  Access dst{out.buffer, out.dtype, sym::integer(0), out.strides};
  ExprRef zero = sym::integer(0);
  for (size_t d = 0; d < rank; ++d) {
    size_t p = rank - 1 - d;  // the pair for dim d, counted from the last dim
    ExprRef lo = 2 * p < pads.size() ? pads[2 * p] : zero;
    ExprRef hi = 2 * p + 1 < pads.size() ? pads[2 * p + 1] : zero;
    ExprRef crop_lo = sym::max(sym::neg(lo), zero), crop_hi = sym::max(sym::neg(hi), zero);
    copy.sizes.push_back(
        L.simplified(sym::max(sym::sub(sym::sub(a.sizes[d], crop_lo), crop_hi), zero)));
    src.offset = sym::add(src.offset, sym::mul(crop_lo, a.strides[d]));
    dst.offset = sym::add(dst.offset, sym::mul(sym::max(lo, zero), out.strides[d]));
  }
  src.offset = L.simplified(src.offset);
  dst.offset = L.simplified(dst.offset);
  copy.inputs.push_back(src);
  copy.body = KExpr::load(0, a.dtype);
  copy.output = dst;
  copy.name = "pad_copy";
  L.add_kernel(std::move(copy));
  return IrValue::tensor(out);
}

IrValue lower_split(Lowering& L, const Node* n) {
  const IrValue& in = L.value_of(n->args[0]);
  IrValue result;
  result.kind = IrValue::Kind::kTuple;
  for (const Value& v : n->value.elems()) {
    const fake::FakeTensor& f = fake::fake_of(v);
    Layout l;
    l.buffer = in.layout.buffer;
    l.dtype = f.dtype();
    for (const SymInt& s : f.sizes()) l.sizes.push_back(s.expr());
    for (const SymInt& s : f.strides()) l.strides.push_back(s.expr());
    l.offset = f.storage_offset().expr();
    result.elems.push_back(IrValue::tensor(l));
  }
  return result;
}

}  // namespace sf::lower::detail
