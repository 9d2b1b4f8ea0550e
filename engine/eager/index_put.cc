// index_put_ with a bool mask, PyTorch's `a[mask] = values`: the mask covers a's leading dims, and
// the values broadcast to the indexing result [count, *rest], written in place.
#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"

namespace sf::eager::internal {

Value index_put_inplace(const Call& c) {
  const TensorPtr& self = c.tensor_ptr(0);
  const HostTensor& mask = c.tensor(1);
  require_bool_mask(c, 1);
  size_t mrank = mask.sizes.size();
  if (mrank > self->sizes.size()) {
    c.fail(UserErrorKind::kIndex, "too many indices for a tensor of shape " +
                                      shape_str(self->sizes) + ": mask " + c.arg(1).describe());
  }
  for (size_t d = 0; d < mrank; ++d) {
    if (mask.sizes[d] != self->sizes[d]) {
      c.fail(UserErrorKind::kIndex,
             "the shape of the mask " + shape_str(mask.sizes) + " at index " + std::to_string(d) +
                 " does not match the shape of the indexed tensor " + shape_str(self->sizes));
    }
  }
  // A tensor of values keeps its dtype, which must be a's, except that one element under a mask
  // of rank >= 1 converts like a number (PyTorch CPU's masked_fill path); a 0-d mask is a long
  // index to PyTorch, and then only a Python number converts.
  const Value& v = c.tensor_or_scalar(2);
  bool number = v.kind != Value::Kind::kTensor || (mrank > 0 && v.tensor->numel() == 1);
  if (!number && v.tensor->dtype != self->dtype) {
    c.fail(UserErrorKind::kInvalidProgram,
           std::string("the values must have the destination's dtype ") +
               program::dtype_name(self->dtype) + ", got " + v.describe());
  }
  HostTensor values = operand_as(v, self->dtype);
  // As PyTorch's setitem, leading size-1 dims of the values are dropped before broadcasting.
  size_t lead = 0;
  while (lead < values.sizes.size() && values.sizes[lead] == 1) ++lead;
  values.sizes.erase(values.sizes.begin(),
                     values.sizes.begin() + static_cast<std::ptrdiff_t>(lead));
  std::vector<int64_t> rows;  // the selected positions of the mask, row-major
  for (int64_t k = 0; k < mask.numel(); ++k) {
    if (mask.ints[k]) rows.push_back(k);
  }
  Shape result{static_cast<int64_t>(rows.size())};
  result.insert(result.end(), self->sizes.begin() + static_cast<std::ptrdiff_t>(mrank),
                self->sizes.end());
  bool fits = values.sizes.size() <= result.size();
  for (size_t d = 0; fits && d < values.sizes.size(); ++d) {
    int64_t want = result[result.size() - values.sizes.size() + d];
    fits = values.sizes[d] == want || values.sizes[d] == 1;
  }
  if (!fits) {
    c.fail(UserErrorKind::kShape,
           "shape mismatch: value tensor of shape " + shape_str(values.sizes) +
               " cannot be broadcast to indexing result of shape " + shape_str(result));
  }
  std::vector<int64_t> from = strided_offsets(result, broadcast_strides(result, values.sizes));
  int64_t inner = 1;
  for (size_t d = 1; d < result.size(); ++d) inner *= result[d];
  HostTensor out = *self;
  for (size_t j = 0; j < rows.size(); ++j) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t to = rows[j] * inner + i, src = from[j * inner + i];
      if (out.is_float()) {
        out.floats[to] = values.floats[src];
      } else {
        out.ints[to] = values.ints[src];
      }
    }
  }
  *self = std::move(out);  // every name bound to this tensor sees the new value
  return c.arg(0);
}

}  // namespace sf::eager::internal
