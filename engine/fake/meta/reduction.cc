// Meta functions for reductions: sum, amax, amin, any, all, count_nonzero (and the contractions,
// contraction.cc; the sorting and scanning ops, sorting.cc).
#include <set>

#include "engine/fake/meta/meta_internal.h"
#include "engine/program/schema.h"

namespace sf::fake::detail {

using program::OpKind;

Value meta_reduction(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
  if (op == OpKind::kMm || op == OpKind::kBmm || op == OpKind::kMatmul) {
    return meta_contraction(ctx, op, args);
  }
  switch (op) {
    case OpKind::kArgmax:
    case OpKind::kArgmin:
    case OpKind::kCumsum:
    case OpKind::kSort:
    case OpKind::kArgsort:
    case OpKind::kTopk:
    case OpKind::kHistc:
      return meta_sorting(ctx, op, args);
    default:
      break;
  }
  const FakeTensor& a = tensor_arg(ctx, args[0], "a");

  int64_t rank = a.dim();
  std::set<int64_t> dims;
  // An empty list reduces every dim, as an absent one (PyTorch's sum(dim=[]), docs/ops.md).
  if (args[1].present && !args[1].dims.empty()) {
    for (int64_t d : args[1].dims) {
      int64_t nd = normalize_dim(ctx, d, rank);
      if (!dims.insert(nd).second) {
        fail(ctx, UserErrorKind::kShape, "dim " + std::to_string(d) + " appears twice");
      }
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) dims.insert(d);
  }
  bool keepdim = op != OpKind::kCountNonzero && args[2].flag;
  if (op == OpKind::kAmax || op == OpKind::kAmin) {
    // No identity: reducing an empty extent is an error in eager, so it must be here too. As
    // PyTorch's _reduction (torch 2.15): each reduced dim is checked `size > 0`, a relation the
    // ShapeEnv refines the size's range with (Ne(extent, 0) would not make it >= 1).
    // A 0-d tensor has one element (its dim 0 / -1 names no size).
    if (rank > 0) {
      for (int64_t d : dims) {
        require(ctx, sym_gt(a.sizes()[d], 0), UserErrorKind::kShape,
                std::string(program::op_name(op)) + " over an empty extent of " + a.type_str());
      }
    }
  }
  std::vector<SymInt> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!dims.count(d)) {
      out.push_back(a.sizes()[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  DType dtype = program::result_dtype(program::schema(op).dtype_rule, a.dtype());
  return Value::tensor(ctx.mode.make_contiguous(dtype, out));
}

}  // namespace sf::fake::detail
