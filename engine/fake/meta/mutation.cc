// Meta functions for in-place ops (add_, index_put_): each returns its mutated first argument, one
// version later (the tracer functionalizes it: variables naming the tensor then name the result).
#include "engine/base/check.h"
#include "engine/fake/meta/meta_internal.h"
#include "engine/program/schema.h"

namespace sf::fake::detail {

using program::DType;
using program::OpKind;

namespace {

Value add_inplace(MetaContext& ctx, const std::vector<MetaArg>& args) {
  // add_(a, b): b broadcasts to a's shape; the result is a itself, one version later.
  const FakeTensor& a = tensor_arg(ctx, args[0], "a");
  const Value& b = args[1].value;
  if (is_tensor(b)) {
    // As TensorIterator's in-place check: the broadcast shape must be self's, dim for dim (a
    // size-1 dim of self that b stretches would grow the mutated tensor).
    std::vector<SymInt> shape = broadcast(ctx, a.sizes(), fake_of(b).sizes());
    std::string mismatch = "add_: output with shape " + shape_str(a.sizes()) +
                           " doesn't match the broadcast shape " + shape_str(shape);
    if (shape.size() != a.sizes().size()) fail(ctx, UserErrorKind::kShape, mismatch);
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d].same_as(a.sizes()[d])) continue;
      require(ctx, sym_eq(shape[d], a.sizes()[d]), UserErrorKind::kShape, mismatch);
    }
  }
  DType result = arithmetic_dtype(args[0].value, b);
  if (result != a.dtype() && !(a.dtype() == DType::kInt64 && result == DType::kBool)) {
    fail(ctx, UserErrorKind::kInvalidProgram,
         std::string("add_: result type ") + program::dtype_name(result) +
             " can't be cast to the desired output type " + program::dtype_name(a.dtype()));
  }
  if (a.dtype() == DType::kBool) {
    fail(ctx, UserErrorKind::kInvalidProgram, "add_: in-place addition on a bool tensor");
  }
  a.bump_version();
  return args[0].value;
}

// index_put_(a, mask, values), PyTorch's `a[mask] = values`. The mask must cover a's leading dims
// (checked here, as index's meta does). How many elements it selects is data, so the values
// (their dtype and whether they broadcast to [count, *rest]) are eager's run-time check, as in
// PyTorch, whose meta returns self unchecked.
Value index_put_inplace(MetaContext& ctx, const std::vector<MetaArg>& args) {
  const FakeTensor& a = tensor_arg(ctx, args[0], "a");
  const FakeTensor& mask = tensor_arg(ctx, args[1], "mask");
  require_leading_mask(ctx, "index_put_", a, mask, UserErrorKind::kIndex);
  a.bump_version();
  return args[0].value;
}

}  // namespace

Value meta_mutation(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
  switch (op) {
    case OpKind::kAddInplace:
      return add_inplace(ctx, args);
    case OpKind::kIndexPutInplace:
      return index_put_inplace(ctx, args);
    default:  // ops of other families: run_meta routes by family (see docs/decisions.md)
      SF_UNREACHABLE() << program::op_name(op) << " is not an in-place op";
  }
}

}  // namespace sf::fake::detail
