// Helpers shared by the eager op families: shapes and dims, allocation with a size limit, dtype
// promotion and casts, and strided gathers (every view and index op is one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/eager/internal.h"
#include "engine/program/dtype_rules.h"

namespace sf::eager::internal {

using Shape = std::vector<int64_t>;

// Eager refuses bigger tensors (too_complex) instead of exhausting memory on a huge
// data-dependent size.
inline constexpr int64_t kMaxElements = int64_t{1} << 26;

std::string shape_str(const Shape& s);  // "[2, 3]"
// Product of sizes; too_complex past kMaxElements. Sizes must already be >= 0.
int64_t checked_numel(const Call& c, const Shape& sizes);
HostTensor alloc(const Call& c, DType dtype, Shape sizes);

// Wraps a possibly negative dim into [0, rank). A 0-dim tensor accepts dims -1 and 0 (as
// PyTorch's wrap_scalar) unless `allow_scalar` is false. Out of range: shape error.
int64_t wrap_dim(const Call& c, int64_t dim, int64_t rank, bool allow_scalar = true);
// Wraps the position of a new dim (unsqueeze, stack): [-rank-1, rank] into [0, rank].
int64_t wrap_new_dim(const Call& c, int64_t dim, int64_t rank);
// Contiguous strides; a size-0 dim counts as 1 for the dims before it (docs/ops.md).
Shape contiguous_strides(const Shape& sizes);
// The strides a tensor value reports: a view's own, else contiguous (docs/ops.md "Views").
Shape strides_of(const Value& v);

// bool < i64 < f32.
using program::promote;  // engine/program/dtype_rules.h
// The weak-scalar rule: tensors' dtypes promote; a scalar only raises the category
// (bool < int < float) to its default dtype (i64 or f32).
DType result_type(const std::vector<const Value*>& operands);
// Python-scalar value as a 0-dim tensor of `dtype` (double -> i64 truncates, like `to`).
HostTensor scalar_tensor(const Value& v, DType dtype);
// The operand as a tensor (0-dim for a scalar) cast to `dtype`.
HostTensor operand_as(const Value& v, DType dtype);
HostTensor cast(const HostTensor& t, DType dtype);
// f32 -> i64: truncation toward zero; NaN, inf and out-of-range give INT64_MIN (x86 cvttss2si,
// which is what PyTorch CPU produces).
int64_t float_to_int(double v);
bool truthy(const HostTensor& t, int64_t i);
// Argument i is a bool mask (index, masked_select, index_put_): invalid_program otherwise.
void require_bool_mask(const Call& c, size_t i);
// Element x before element y in PyTorch's sort order: ascending, NaN above everything (and never
// before another NaN). sort, topk, argmax and unique order by it.
bool sorts_before(const HostTensor& t, int64_t x, int64_t y);

// Broadcast shape of the operands (NumPy rules); shape error naming the dim and all shapes.
Shape broadcast_shapes(const Call& c, const std::vector<Shape>& shapes);
// Strides that read `in` (row-major) while iterating over `out`, 0 on broadcast dims.
Shape broadcast_strides(const Shape& out, const Shape& in);

// Source offsets offset + sum(idx[d] * strides[d]) for every index of `sizes`, row-major.
std::vector<int64_t> strided_offsets(const Shape& sizes, const Shape& strides, int64_t offset = 0);
// A tensor of `sizes` whose element k is src[src_index[k]].
HostTensor gather(const Call& c, const HostTensor& src, Shape sizes,
                  const std::vector<int64_t>& src_index);
// index_select with already wrapped rows: the slices t[..., rows[j], ...] along dim d (rank > 0).
HostTensor take_rows(const Call& c, const HostTensor& t, int64_t d,
                     const std::vector<int64_t>& rows);
HostTensor strided_copy(const Call& c, const HostTensor& src, Shape sizes, const Shape& strides,
                        int64_t offset = 0);

}  // namespace sf::eager::internal
