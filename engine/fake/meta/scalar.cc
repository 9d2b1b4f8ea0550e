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

}  // namespace sf::fake::detail
