// Python's slice-index normalization as expressions: negative counts from the end, then clamp.
#include "engine/fake/meta/slice_geometry.h"

#include "engine/sym/make.h"

namespace sf::fake {

namespace {

sym::ExprRef clamp_index(const sym::ExprRef& i, const sym::ExprRef& n) {
  sym::ExprRef zero = sym::integer(0);
  sym::ExprRef wrapped = sym::where(sym::lt(i, zero), sym::add(i, n), i);
  return sym::min(sym::max(wrapped, zero), n);
}

}  // namespace

SliceGeometry exact_slice_geometry(const sym::ExprRef& n, const sym::ExprRef& stride,
                                   const sym::ExprRef& base_offset, const sym::ExprRef& start,
                                   const sym::ExprRef& end, const sym::ExprRef& step) {
  sym::ExprRef s = start ? clamp_index(start, n) : sym::integer(0);
  sym::ExprRef e = end ? clamp_index(end, n) : n;
  sym::ExprRef one = sym::integer(1);
  sym::ExprRef len = sym::floordiv(sym::sub(sym::add(sym::sub(e, s), step), one), step);
  return {sym::max(len, sym::integer(0)), sym::add(base_offset, sym::mul(s, stride))};
}

sym::ExprRef narrow_end(const sym::ExprRef& n, const sym::ExprRef& start,
                        const sym::ExprRef& length) {
  sym::ExprRef zero = sym::integer(0);
  sym::ExprRef end = sym::add(start, length);
  sym::ExprRef wraps_to_end = sym::and_(sym::lt(start, zero), sym::eq(end, zero));
  return sym::add(end, sym::where(wraps_to_end, n, zero));
}

}  // namespace sf::fake
