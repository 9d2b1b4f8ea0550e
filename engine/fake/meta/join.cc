// Meta functions for cat, stack, index_select, flip, gather, embedding and roll (and, in
// copies.cc and sorting.cc, the other joins).
#include <set>

#include "engine/base/check.h"
#include "engine/fake/meta/meta_internal.h"
#include "engine/program/schema.h"

namespace sf::fake::detail {

using program::OpKind;

namespace {

Value cat_of(MetaContext& ctx, const std::vector<const FakeTensor*>& ts, int64_t dim_arg) {
  // Like PyTorch, 1-D tensors of (static) size 0 are skipped (legacy empty tensors).
  std::vector<const FakeTensor*> used;
  for (const FakeTensor* t : ts) {
    bool legacy_empty = t->dim() == 1 && t->sizes()[0].is_constant() && t->sizes()[0].as_int() == 0;
    if (!legacy_empty) used.push_back(t);
  }
  DType dtype = ts[0]->dtype();
  for (const FakeTensor* t : ts) dtype = promote(dtype, t->dtype());
  if (used.empty()) return Value::tensor(ctx.mode.make_contiguous(dtype, {SymInt(0)}));
  int64_t rank = used[0]->dim();
  if (rank == 0)
    fail(ctx, UserErrorKind::kShape, "zero-dimensional tensors cannot be concatenated");
  int64_t dim = normalize_dim(ctx, dim_arg, rank);
  std::vector<SymInt> out = used[0]->sizes();
  for (size_t k = 1; k < used.size(); ++k) {
    const FakeTensor& t = *used[k];
    if (t.dim() != rank) {
      fail(ctx, UserErrorKind::kShape,
           "tensors must have the same rank: " + used[0]->type_str() + " vs " + t.type_str());
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dim) {
        out[d] = out[d] + t.sizes()[d];
        continue;
      }
      if (out[d].same_as(t.sizes()[d])) continue;
      require(ctx, sym_eq(out[d], t.sizes()[d]), UserErrorKind::kShape,
              "sizes of tensors must match except in dimension " + std::to_string(dim) +
                  ": expected " + out[d].str() + " but got " + t.sizes()[d].str() + " in dim " +
                  std::to_string(d) + " (tensor " + std::to_string(k) + ")");
    }
  }
  out[dim] = simplified(ctx, out[dim]);
  return Value::tensor(ctx.mode.make_contiguous(dtype, out));
}

}  // namespace

Value meta_join(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
  if (op == OpKind::kFlip) {  // a contiguous copy; the dims are literals, checked as eager does
    const FakeTensor& a = tensor_arg(ctx, args[0], "a");
    std::set<int64_t> seen;
    for (int64_t d : args[1].dims) {
      int64_t w = normalize_dim(ctx, d, a.dim());
      if (!seen.insert(w).second) {
        fail(ctx, UserErrorKind::kShape,
             "flip: dim " + std::to_string(w) + " appears multiple times in the list of dims");
      }
    }
    return Value::tensor(ctx.mode.make_contiguous(a.dtype(), a.sizes()));
  }
  if (op == OpKind::kGather) {  // index's shape; its sizes no larger than a's apart from dim
    const FakeTensor& a = tensor_arg(ctx, args[0], "a");
    const FakeTensor& index = tensor_arg(ctx, args[2], "index");
    if (index.dtype() != DType::kInt64) {
      fail(ctx, UserErrorKind::kInvalidProgram,
           "gather: index must be an i64 tensor, got " + index.type_str());
    }
    int64_t d = normalize_dim(ctx, args[1].dims[0], a.dim());
    if (index.dim() != a.dim()) {
      fail(ctx, UserErrorKind::kShape,
           "gather: index must have a's number of dims: " + index.type_str() + " and " +
               a.type_str());
    }
    for (int64_t k = 0; k < a.dim(); ++k) {
      if (k == d) continue;
      require(ctx, sym_le(index.sizes()[k], a.sizes()[k]), UserErrorKind::kShape,
              "gather: index " + index.type_str() + " is larger than the input " + a.type_str() +
                  " in dim " + std::to_string(k));
    }
    return Value::tensor(ctx.mode.make_contiguous(a.dtype(), index.sizes()));
  }
  if (op == OpKind::kEmbedding) {  // indices.shape + [weight.size(1)]
    const FakeTensor& indices = tensor_arg(ctx, args[0], "indices");
    const FakeTensor& weight = tensor_arg(ctx, args[1], "weight");
    if (indices.dtype() != DType::kInt64) {
      fail(ctx, UserErrorKind::kInvalidProgram,
           "embedding: indices must be an i64 tensor, got " + indices.type_str());
    }
    if (weight.dim() != 2) {
      fail(ctx, UserErrorKind::kShape, "embedding: weight must be 2-D, got " + weight.type_str());
    }
    std::vector<SymInt> out = indices.sizes();
    out.push_back(weight.sizes()[1]);
    return Value::tensor(ctx.mode.make_contiguous(weight.dtype(), out));
  }
  switch (op) {
    case OpKind::kSearchsorted:
      return meta_sorting(ctx, op, args);
    case OpKind::kRepeat:
    case OpKind::kTile:
    case OpKind::kPad:
    case OpKind::kScatterAdd:
    case OpKind::kIndexAdd:
      return meta_copies(ctx, op, args);
    default:
      break;
  }
  if (op == OpKind::kRoll) {  // a's shape
    const FakeTensor& a = tensor_arg(ctx, args[0], "a");
    if (a.dim() == 0) fail(ctx, UserErrorKind::kShape, "roll: a 0-dim tensor has no dim to roll");
    normalize_dim(ctx, args[2].dims[0], a.dim());
    if (!is_scalar(args[1].value)) {
      fail(ctx, UserErrorKind::kInvalidProgram, "roll: shifts must be an int");
    }
    return Value::tensor(ctx.mode.make_contiguous(a.dtype(), a.sizes()));
  }
  if (op == OpKind::kIndexSelect) {
    const FakeTensor& a = tensor_arg(ctx, args[0], "a");
    const FakeTensor& index = tensor_arg(ctx, args[2], "index");
    // In eager's order: the index's dtype (a type error), its rank, the dim, then its length.
    if (index.dtype() != DType::kInt64) {
      fail(ctx, UserErrorKind::kInvalidProgram,
           "index_select: index must be a 1-D i64 tensor, got " + index.type_str());
    }
    if (index.dim() > 1) {
      fail(ctx, UserErrorKind::kShape,
           "index_select: index must be 0-D or 1-D, got " + index.type_str());
    }
    int64_t d = normalize_dim(ctx, args[1].dims[0], a.dim());
    if (a.dim() == 0) {
      // ATen's index_select: "Index to scalar can have only 1 value" (an IndexError).
      require(
          ctx, sym_eq(index.numel(), 1), UserErrorKind::kIndex,
          "index_select: index into a 0-d tensor must have one value, got " + index.numel().str());
      return Value::tensor(ctx.mode.make_contiguous(a.dtype(), {}));
    }
    std::vector<SymInt> out = a.sizes();
    out[d] = index.dim() == 0 ? SymInt(1) : index.sizes()[0];
    return Value::tensor(ctx.mode.make_contiguous(a.dtype(), out));
  }
  const std::vector<Value>& tensors = args[0].tensors;
  if (tensors.empty()) {
    // A value error, as eager and docs/ops.md (PyTorch raises a RuntimeError, not a TypeError).
    fail(ctx, UserErrorKind::kValue,
         std::string(program::op_name(op)) + " expects a non-empty list of tensors");
  }
  std::vector<const FakeTensor*> ts;
  for (const Value& v : tensors) {
    if (!is_tensor(v)) fail(ctx, UserErrorKind::kInvalidProgram, "list element is not a tensor");
    ts.push_back(&fake_of(v));
  }
  if (op == OpKind::kCat) return cat_of(ctx, ts, args[1].dims[0]);
  SF_CHECK(op == OpKind::kStack) << "no join meta function for " << program::op_name(op);
  // stack: all shapes equal, then a new dim.
  int64_t rank = ts[0]->dim();
  int64_t dim = normalize_dim(ctx, args[1].dims[0], rank + 1);
  std::vector<SymInt> shape = ts[0]->sizes();
  for (size_t k = 1; k < ts.size(); ++k) {
    if (ts[k]->dim() != rank) {
      fail(ctx, UserErrorKind::kShape,
           "stack expects each tensor to be equal size, but got " + ts[0]->type_str() + " and " +
               ts[k]->type_str());
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (shape[d].same_as(ts[k]->sizes()[d])) continue;
      require(ctx, sym_eq(shape[d], ts[k]->sizes()[d]), UserErrorKind::kShape,
              "stack expects each tensor to be equal size, but got " + ts[0]->type_str() + " and " +
                  ts[k]->type_str());
    }
  }
  DType dtype = ts[0]->dtype();
  for (const FakeTensor* t : ts) dtype = promote(dtype, t->dtype());
  shape.insert(shape.begin() + dim, SymInt(static_cast<int64_t>(ts.size())));
  return Value::tensor(ctx.mode.make_contiguous(dtype, shape));
}

}  // namespace sf::fake::detail
