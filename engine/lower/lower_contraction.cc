// mm, bmm and matmul as one reduction kernel over [batch..., m, n, k]: the body multiplies an
// element of each operand (in their dtype: f32 products rounded to f32, i64 wrapping) and the
// reduction sums over k (f32 in double), as eager's contraction.cc. A vector operand is a matrix
// with a dim of size 1 (stride 0) that the output lacks.
#include "engine/base/check.h"
#include "engine/fake/fake_tensor.h"
#include "engine/lower/lowering_internal.h"
#include "engine/program/schema.h"
#include "engine/sym/make.h"

namespace sf::lower::detail {

using graph::Node;

IrValue lower_contraction(Lowering& L, const Node* n) {
  const IrValue& a = L.value_of(n->args[0]);
  const IrValue& b = L.value_of(n->args[1]);
  Layout x = a.layout, y = b.layout;
  size_t ra = x.sizes.size(), rb = y.sizes.size();
  SF_CHECK(ra >= 1 && rb >= 1) << "%" << n->name << ": a contraction of a 0-dim tensor";
  if (ra == 1) {
    x.sizes.insert(x.sizes.begin(), sym::integer(1));
    x.strides.insert(x.strides.begin(), sym::integer(0));
  }
  if (rb == 1) {
    y.sizes.push_back(sym::integer(1));
    y.strides.push_back(sym::integer(0));
  }
  Layout out = L.alloc_for(n->value, program::op_name(n->op));
  size_t batch_rank = out.sizes.size() - (ra > 1) - (rb > 1);
  std::vector<ExprRef> batch(out.sizes.begin(), out.sizes.begin() + batch_rank);
  // Each operand's batch dims over the output's (aligned at the trailing dims, 0 where they
  // broadcast), then its row, column and contracted dims.
  auto batch_access = [&](const Layout& l) {
    Layout part = l;
    part.sizes.resize(l.sizes.size() - 2);
    part.strides.resize(l.strides.size() - 2);
    return L.access_of(part, batch);
  };
  size_t nx = x.sizes.size(), ny = y.sizes.size();
  Kernel k;
  k.kind = Kernel::Kind::kReduction;
  k.name = program::op_name(n->op);
  k.sizes = batch;
  k.sizes.push_back(x.sizes[nx - 2]);  // m
  k.sizes.push_back(y.sizes[ny - 1]);  // n
  k.sizes.push_back(x.sizes[nx - 1]);  // k
  Access xa = batch_access(x);
  xa.strides.push_back(x.strides[nx - 2]);
  xa.strides.push_back(sym::integer(0));
  xa.strides.push_back(x.strides[nx - 1]);
  Access ya = batch_access(y);
  ya.strides.push_back(sym::integer(0));
  ya.strides.push_back(y.strides[ny - 1]);
  ya.strides.push_back(y.strides[ny - 2]);
  k.inputs = {xa, ya};
  DType dtype = out.dtype;
  k.body =
      KExpr::binary_of(BinaryOp::kMul, KExpr::load(0, x.dtype), KExpr::load(1, y.dtype), dtype);
  k.reduce = ReduceOp::kSum;
  k.reduced.assign(k.sizes.size(), false);
  k.reduced.back() = true;
  Access o;
  o.buffer = out.buffer;
  o.dtype = out.dtype;
  o.offset = sym::integer(0);
  o.strides.assign(out.strides.begin(), out.strides.begin() + batch_rank);
  size_t od = batch_rank;
  o.strides.push_back(ra > 1 ? out.strides[od++] : sym::integer(0));
  o.strides.push_back(rb > 1 ? out.strides[od++] : sym::integer(0));
  o.strides.push_back(sym::integer(0));
  k.output = o;
  L.add_kernel(std::move(k));
  return IrValue::tensor(out);
}

}  // namespace sf::lower::detail
