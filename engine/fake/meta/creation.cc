// Meta functions for creation ops: zeros, ones, full, arange.
#include "engine/base/check.h"
#include "engine/fake/meta/meta_internal.h"

namespace sf::fake::detail {

using program::OpKind;

Value meta_creation(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
  if (op == OpKind::kArange) {
    const Value& a = args[0].value;
    if (a.kind() != Value::Kind::kInt ||
        (args[1].present && args[1].value.kind() != Value::Kind::kInt)) {
      fail(ctx, UserErrorKind::kInvalidProgram, "arange takes integer bounds");
    }
    if (args[2].dtype == DType::kBool)
      fail(ctx, UserErrorKind::kInvalidProgram, "arange of dtype bool");
    SymInt start = args[1].present ? a.as_int() : SymInt(0);
    SymInt end = args[1].present ? args[1].value.as_int() : a.as_int();
    SymInt length = simplified(ctx, sym_max(end - start, 0));
    return Value::tensor(ctx.mode.make_contiguous(args[2].dtype, {length}));
  }
  SF_CHECK(op == OpKind::kZeros || op == OpKind::kOnes || op == OpKind::kFull)
      << "no creation meta function for op " << static_cast<int>(op);
  const MetaArg& shape = args[0];
  for (size_t i = 0; i < shape.ints.size(); ++i) {
    require(ctx, sym_ge(shape.ints[i], 0), UserErrorKind::kShape,
            "negative size " + shape.ints[i].str() + " at dim " + std::to_string(i) + " of " +
                shape_str(shape.ints));
  }
  if (op == OpKind::kFull && !is_scalar(args[1].value)) {
    fail(ctx, UserErrorKind::kInvalidProgram, "full: the fill value must be a scalar");
  }
  const MetaArg& dtype = op == OpKind::kFull ? args[2] : args[1];
  return Value::tensor(ctx.mode.make_contiguous(dtype.dtype, shape.ints));
}

}  // namespace sf::fake::detail
