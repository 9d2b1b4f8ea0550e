// Meta functions for scalars read from tensors (size, stride, numel) and scalar min/max.
#include "engine/base/check.h"
#include "engine/fake/meta/meta_internal.h"
#include "engine/program/schema.h"

namespace sf::fake::detail {

using program::OpKind;

Value meta_scalar(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
  if (op == OpKind::kMin || op == OpKind::kMax) {
    if (!is_scalar(args[0].value) || !is_scalar(args[1].value)) {
      fail(ctx, UserErrorKind::kInvalidProgram,
           "min/max take scalars; use minimum/maximum for tensors");
    }
    return scalar_binary(ctx, program::binary_element(op), args[0].value, args[1].value);
  }
  SF_CHECK(op == OpKind::kNumel || op == OpKind::kSize || op == OpKind::kStride)
      << "no scalar meta function for " << program::op_name(op);
  const FakeTensor& a = tensor_arg(ctx, args[0], "a");
  if (op == OpKind::kNumel) return Value(simplified(ctx, a.numel()));
  if (a.dim() == 0) {
    fail(ctx, UserErrorKind::kShape,
         std::string(program::op_name(op)) + ": dimension specified as " +
             std::to_string(args[1].dims[0]) + " but tensor has no dimensions");
  }
  int64_t d = normalize_dim(ctx, args[1].dims[0], a.dim());
  return Value(op == OpKind::kSize ? a.sizes()[d] : a.strides()[d]);
}

Value meta_mutation(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
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

}  // namespace sf::fake::detail
