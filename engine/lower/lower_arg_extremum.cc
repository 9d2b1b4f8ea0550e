// argmax and argmin as two reductions: the extremum into a scratch buffer (NaN propagates, as
// amax's), then the smallest index whose element equals it or is NaN (PyTorch's first extremum,
// a NaN counting as one), over the dim or the flattened tensor.
#include "engine/base/faults.h"
#include "engine/fake/fake_tensor.h"
#include "engine/lower/lowering_internal.h"
#include "engine/program/schema.h"
#include "engine/sym/make.h"

namespace sf::lower::detail {

using graph::Node;
using graph::NodeArg;
using program::OpKind;

namespace {

// The access of a keepdim-shaped buffer over the full iteration space: reduced dims read stride 0.
Access reduced_access(int buffer, DType dtype, const std::vector<ExprRef>& strides,
                      const std::vector<bool>& reduced) {
  Access a{buffer, dtype, sym::integer(0), {}};
  for (size_t d = 0; d < reduced.size(); ++d) {
    a.strides.push_back(reduced[d] ? sym::integer(0) : strides[d]);
  }
  return a;
}

}  // namespace

IrValue lower_arg_extremum(Lowering& L, const Node* n) {
  const IrValue& a = L.value_of(n->args[0]);
  const std::vector<ExprRef>& sizes = a.layout.sizes;
  size_t rank = sizes.size();
  bool has_dim = n->args[1].kind != NodeArg::Kind::kNone && rank > 0;
  std::vector<bool> reduced(rank, !has_dim);
  if (has_dim) reduced[wrap_dim(n->args[1].i, static_cast<int64_t>(rank))] = true;
  std::vector<ExprRef> kept;
  std::vector<SymInt> kept_sym, all_sym;
  for (size_t d = 0; d < rank; ++d) {
    kept.push_back(reduced[d] ? sym::integer(1) : sizes[d]);
    kept_sym.emplace_back(kept.back());
    all_sym.emplace_back(sizes[d]);
  }
  std::vector<ExprRef> kept_strides, flat_strides;
  for (const SymInt& s : L.trace().mode->contiguous_strides(kept_sym))
    kept_strides.push_back(s.expr());
  for (const SymInt& s : L.trace().mode->contiguous_strides(all_sym))
    flat_strides.push_back(s.expr());
  const std::string name = program::op_name(n->op);
  // 1. The extremum of each reduced line.
  int extremum = L.add_buffer(a.layout.dtype, kept);
  Step alloc;
  alloc.kind = Step::Kind::kAlloc;
  alloc.buffer = extremum;
  alloc.message = name + "_extremum";
  L.add_step(alloc);
  Kernel k1;
  k1.kind = Kernel::Kind::kReduction;
  k1.sizes = sizes;
  k1.reduced = reduced;
  k1.reduce = n->op == OpKind::kArgmax ? ReduceOp::kMax : ReduceOp::kMin;
  k1.body = operand(k1, L, a, sizes);
  k1.output = reduced_access(extremum, a.layout.dtype, kept_strides, reduced);
  k1.name = name + "_extremum";
  L.add_kernel(std::move(k1));
  // 2. The first index that holds it: min over where(hit, index, past-the-end).
  Kernel k2;
  k2.kind = Kernel::Kind::kReduction;
  k2.sizes = sizes;
  k2.reduced = reduced;
  k2.reduce = ReduceOp::kMin;
  KExprPtr x = operand(k2, L, a, sizes);
  k2.inputs.push_back(reduced_access(extremum, a.layout.dtype, kept_strides, reduced));
  KExprPtr m = KExpr::load(static_cast<int>(k2.inputs.size()) - 1, a.layout.dtype);
  KExprPtr hit = KExpr::binary_of(BinaryOp::kEq, x, m, DType::kBool);
  // Bug zoo (before PR #118358, Inductor's cpp argmax): no NaN rule.
  if (a.layout.dtype == DType::kFloat32 && !fault_on(Fault::kArgmaxLoweringIgnoresNan)) {
    hit = KExpr::binary_of(BinaryOp::kLogicalOr, hit,
                           KExpr::binary_of(BinaryOp::kNe, x, x, DType::kBool), DType::kBool);
  }
  KExprPtr index = KExpr::constant_i(0);
  ExprRef past_end = sym::integer(1);
  for (size_t d = 0; d < rank; ++d) {
    if (!reduced[d]) continue;
    KExprPtr term =
        has_dim ? KExpr::index(static_cast<int>(d))
                : KExpr::binary_of(BinaryOp::kMul, KExpr::index(static_cast<int>(d)),
                                   KExpr::scalar_of(flat_strides[d], DType::kInt64), DType::kInt64);
    index = KExpr::binary_of(BinaryOp::kAdd, index, term, DType::kInt64);
    past_end = sym::mul(past_end, sizes[d]);
  }
  k2.body = KExpr::where_of(hit, index, KExpr::scalar_of(L.simplified(past_end), DType::kInt64));
  Layout out = L.alloc_for(n->value, name);
  k2.output = reduction_output(out, reduced);
  k2.name = name;
  L.add_kernel(std::move(k2));
  return IrValue::tensor(out);
}

}  // namespace sf::lower::detail
