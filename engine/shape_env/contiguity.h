// Layout predicates over symbolic sizes and strides that never raise data-dependent errors:
// undecidable comparisons answer "no" (spec T10/T11, PyTorch's is_non_overlapping_and_dense).
#pragma once

#include <vector>

#include "engine/shape_env/shape_env.h"

namespace sf {

// True when the strides describe a dense, non-overlapping layout of `sizes` in some dim order.
// Comparisons are size-oblivious and static: an undecidable one makes the answer false.
bool is_non_overlapping_and_dense(const ShapeEnv& env, const std::vector<SymInt>& sizes,
                                  const std::vector<SymInt>& strides);
// True when strides are the row-major contiguous strides (size-1 dims may have any stride).
bool is_contiguous(const ShapeEnv& env, const std::vector<SymInt>& sizes,
                   const std::vector<SymInt>& strides);

}  // namespace sf
