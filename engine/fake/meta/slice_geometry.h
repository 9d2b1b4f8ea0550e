// The exact size and storage offset of a slice as expressions over its operands, with Python's
// clamping written out as Min/Max: what a run computes for the fresh symbols a trace binds at a
// slice whose clamp it could not decide (PyTorch's DynamicSliceSize).
#pragma once

#include "engine/sym/expr.h"

namespace sf::fake {

struct SliceGeometry {
  sym::ExprRef size;
  sym::ExprRef offset;
};

// slice(dim of size `n`, stride `stride`, at `base_offset`)[start:end:step]; a null start or
// end is absent (0 and n).
SliceGeometry exact_slice_geometry(const sym::ExprRef& n, const sym::ExprRef& stride,
                                   const sym::ExprRef& base_offset, const sym::ExprRef& start,
                                   const sym::ExprRef& end, const sym::ExprRef& step);

// narrow(start, length) as the slice it is: a start that is negative with start + length == 0
// ends at n, not at 0 (x.narrow(0, -2, 2) is x[-2:], not x[-2:0]).
sym::ExprRef narrow_end(const sym::ExprRef& n, const sym::ExprRef& start,
                        const sym::ExprRef& length);

}  // namespace sf::fake
