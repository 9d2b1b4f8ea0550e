// Creation ops: zeros, ones, full (the fill value is cast to the dtype) and arange.
#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"

namespace sf::eager::internal {

Value fill(const Call& c, FillKind kind) {
  Shape shape = c.ints(0);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      c.fail(UserErrorKind::kShape, "negative size " + std::to_string(shape[d]) + " at dim " +
                                        std::to_string(d) + " in shape " + shape_str(shape));
    }
  }
  bool full = kind == FillKind::kFull;
  DType dtype = c.dtype(full ? 2 : 1);
  HostTensor value = kind == FillKind::kZeros  ? scalar_tensor(Value::of_int(0), dtype)
                     : kind == FillKind::kOnes ? scalar_tensor(Value::of_int(1), dtype)
                                               : scalar_tensor(c.scalar(1), dtype);
  HostTensor out = alloc(c, dtype, shape);
  if (out.is_float()) {
    out.floats.assign(out.floats.size(), value.floats[0]);
  } else {
    out.ints.assign(out.ints.size(), value.ints[0]);
  }
  return Value::of_tensor(std::move(out));
}

Value arange(const Call& c) {
  int64_t start = c.has(1) ? c.integer(0) : 0;
  int64_t end = c.has(1) ? c.integer(1) : c.integer(0);
  DType dtype = c.dtype(2);
  if (dtype == DType::kBool) c.fail(UserErrorKind::kInvalidProgram, "dtype bool is not supported");
  int64_t n = 0;
  if (end > start && __builtin_sub_overflow(end, start, &n)) n = INT64_MAX;
  HostTensor out = alloc(c, dtype, {n});
  for (int64_t k = 0; k < n; ++k) {
    if (out.is_float()) {
      out.floats[k] = static_cast<float>(start + k);
    } else {
      out.ints[k] = start + k;
    }
  }
  return Value::of_tensor(std::move(out));
}

}  // namespace sf::eager::internal
