// gather, embedding and roll as pointwise kernels whose source load gathers along one dim (the
// IR's gather load: an index outside [0, size) is a run-time index error): gather's index comes
// from the index tensor, embedding's from the indices (one weight row per index), roll's from
// the iteration index, (j - shifts mod n) mod n.
#include "engine/base/check.h"
#include "engine/fake/fake_tensor.h"
#include "engine/lower/lowering_internal.h"
#include "engine/program/schema.h"
#include "engine/sym/make.h"

namespace sf::lower::detail {

using graph::Node;
using program::OpKind;

namespace {

// A load of `src` over `rank` iteration dims whose element index along source dim `d` is
// `index` (the source's own strides on the other dims, as `strides` maps them).
KExprPtr gathered_load(const Layout& src, int d, KExprPtr index) {
  auto load = std::make_shared<KExpr>(*KExpr::load(0, src.dtype));
  load->gather_dim = d;
  load->gather = std::move(index);
  load->gather_size = src.sizes[d];
  load->gather_stride = src.strides[d];
  return load;
}

Access access(const Layout& l, std::vector<ExprRef> strides) {
  return Access{l.buffer, l.dtype, l.offset, std::move(strides)};
}

}  // namespace

IrValue lower_gathers(Lowering& L, const Node* n) {
  Layout out = L.alloc_for(n->value, program::op_name(n->op));
  Kernel k;
  k.kind = Kernel::Kind::kPointwise;
  k.name = program::op_name(n->op);
  k.sizes = out.sizes;
  size_t rank = out.sizes.size();
  switch (n->op) {
    case OpKind::kGather: {
      Layout a = L.value_of(n->args[0]).layout;
      Layout index = L.value_of(n->args[2]).layout;
      if (a.sizes.empty()) {  // a 0-dim source: one element, index 0 (as index_select's)
        a.sizes = {sym::integer(1)};
        a.strides = {sym::integer(0)};
        index.strides = {sym::integer(0)};
        k.sizes = {sym::integer(1)};
      }
      int d = static_cast<int>(wrap_dim(n->args[1].i, static_cast<int64_t>(a.sizes.size())));
      std::vector<ExprRef> src = a.strides;
      src[d] = sym::integer(0);  // the gather supplies this dim's offset
      k.inputs = {access(a, src), access(index, index.strides)};
      k.body = gathered_load(a, d, KExpr::load(1, DType::kInt64));
      break;
    }
    case OpKind::kEmbedding: {  // iteration: indices' dims, then the weight's columns
      const Layout& indices = L.value_of(n->args[0]).layout;
      const Layout& weight = L.value_of(n->args[1]).layout;
      std::vector<ExprRef> src(rank - 1, sym::integer(0)), idx = indices.strides;
      src.push_back(weight.strides[1]);
      idx.push_back(sym::integer(0));
      k.inputs = {access(weight, src), access(indices, idx)};
      k.body = gathered_load(weight, 0, KExpr::load(1, DType::kInt64));
      break;
    }
    case OpKind::kRoll: {
      const Layout& a = L.value_of(n->args[0]).layout;
      int d = static_cast<int>(wrap_dim(n->args[2].i, static_cast<int64_t>(rank)));
      std::vector<ExprRef> src = a.strides;
      src[d] = sym::integer(0);
      k.inputs = {access(a, src)};
      KExprPtr size = KExpr::scalar_of(a.sizes[d], DType::kInt64);
      KExprPtr shift = KExpr::binary_of(
          BinaryOp::kRemainder, KExpr::scalar_of(L.arg_value(n->args[1]).scalar, DType::kInt64),
          size, DType::kInt64);
      KExprPtr j = KExpr::binary_of(BinaryOp::kSub, KExpr::index(d), shift, DType::kInt64);
      k.body = gathered_load(a, d, KExpr::binary_of(BinaryOp::kRemainder, j, size, DType::kInt64));
      break;
    }
    default:
      SF_UNREACHABLE() << program::op_name(n->op) << " is not a gather";
  }
  k.output = L.contiguous_access(out, out.sizes);
  if (k.sizes.size() != rank) {  // gather from a 0-dim source: write the single element
    k.output = Access{out.buffer, out.dtype, sym::integer(0), {sym::integer(0)}};
  }
  L.add_kernel(std::move(k));
  return IrValue::tensor(out);
}

}  // namespace sf::lower::detail
