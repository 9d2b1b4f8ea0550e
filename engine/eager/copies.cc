// Joins that copy an input into a new shape or add into a copy of one: repeat and tile (element
// i of each dim reads i mod size), constant pad (value outside, the input inside; negative pads
// crop), scatter_add and index_add (in index order, each addition rounded in the dtype).
#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"

namespace sf::eager::internal {

namespace {

// The row-major index tuple of element k of `sizes`.
Shape unravel(int64_t k, const Shape& sizes) {
  Shape idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = k % sizes[d];
    k /= sizes[d];
  }
  return idx;
}

int64_t ravel(const Shape& idx, const Shape& strides) {
  int64_t k = 0;
  for (size_t d = 0; d < idx.size(); ++d) k += idx[d] * strides[d];
  return k;
}

Value repeat_to(const Call& c, const HostTensor& a, const Shape& reps) {
  if (reps.size() < a.sizes.size()) {
    c.fail(UserErrorKind::kShape, std::to_string(reps.size()) +
                                      " repeats are fewer than the dims of shape " +
                                      shape_str(a.sizes));
  }
  Shape in(reps.size() - a.sizes.size(), 1), out;
  in.insert(in.end(), a.sizes.begin(), a.sizes.end());
  for (size_t d = 0; d < reps.size(); ++d) {
    if (reps[d] < 0) {
      c.fail(UserErrorKind::kValue, "repeats must be non-negative, got " + shape_str(reps));
    }
    int64_t size = 0;
    if (__builtin_mul_overflow(reps[d], in[d], &size)) size = INT64_MAX;
    out.push_back(size);
  }
  checked_numel(c, out);
  Shape strides = contiguous_strides(in);
  std::vector<int64_t> src;
  int64_t total = 1;
  for (int64_t s : out) total *= s;
  src.reserve(total);
  for (int64_t k = 0; k < total; ++k) {
    Shape idx = unravel(k, out);
    for (size_t d = 0; d < idx.size(); ++d) idx[d] %= in[d];
    src.push_back(ravel(idx, strides));
  }
  return Value::of_tensor(gather(c, a, out, src));
}

void require_i64_index(const Call& c, size_t i) {
  if (c.tensor(i).dtype != DType::kInt64) {
    c.fail(UserErrorKind::kInvalidProgram,
           "index must be an i64 tensor, got " + c.arg(i).describe());
  }
}

void require_source_dtype(const Call& c, size_t i) {
  if (c.tensor(i).dtype != c.tensor(0).dtype) {
    c.fail(UserErrorKind::kInvalidProgram,
           "the source " + c.arg(i).describe() + " must have the dtype of " + c.arg(0).describe());
  }
}

// out[k] += src[j] in the tensor's dtype.
void add_into(HostTensor& out, int64_t k, const HostTensor& src, int64_t j) {
  if (out.is_float()) {
    out.floats[k] += src.floats[j];
  } else if (out.dtype == DType::kBool) {
    out.ints[k] = out.ints[k] || src.ints[j];
  } else {
    out.ints[k] = static_cast<int64_t>(static_cast<uint64_t>(out.ints[k]) +
                                       static_cast<uint64_t>(src.ints[j]));
  }
}

void check_index(const Call& c, int64_t v, int64_t size, int64_t d) {
  if (v < 0 || v >= size) {
    c.fail(UserErrorKind::kIndex, "index " + std::to_string(v) + " is out of bounds for dim " +
                                      std::to_string(d) + " with size " + std::to_string(size));
  }
}

Shape at_least_1d(const Shape& s) { return s.empty() ? Shape{1} : s; }

}  // namespace

Value repeat(const Call& c) { return repeat_to(c, c.tensor(0), c.ints(1)); }

Value tile(const Call& c) {
  const HostTensor& a = c.tensor(0);
  Shape reps = c.ints(1);
  if (reps.size() < a.sizes.size()) reps.insert(reps.begin(), a.sizes.size() - reps.size(), 1);
  return repeat_to(c, a, reps);
}

Value pad(const Call& c) {
  const HostTensor& a = c.tensor(0);
  Shape pads = c.ints(1);
  size_t rank = a.sizes.size();
  if (pads.size() % 2 != 0) {
    c.fail(UserErrorKind::kValue, "the padding length must be even, got " + shape_str(pads));
  }
  if (pads.size() / 2 > rank) {
    c.fail(UserErrorKind::kValue,
           shape_str(pads) + " pads too many dims of shape " + shape_str(a.sizes));
  }
  // PyTorch narrows by the negative pads first, from the first dim: each narrow needs a
  // non-negative length.
  for (size_t d = rank - pads.size() / 2; d < rank; ++d) {
    size_t p = rank - 1 - d;
    int64_t cropped = a.sizes[d] + std::min<int64_t>(pads[2 * p], 0);
    if (cropped < 0 || cropped + std::min<int64_t>(pads[2 * p + 1], 0) < 0) {
      c.fail(UserErrorKind::kValue, "cropping " + shape_str(pads) + " from dim " +
                                        std::to_string(d) + " of size " +
                                        std::to_string(a.sizes[d]) + " leaves a negative length");
    }
  }
  Shape lo(rank, 0), out = a.sizes;
  for (size_t p = 0; p < pads.size() / 2; ++p) {
    size_t d = rank - 1 - p;
    lo[d] = pads[2 * p];
    out[d] = a.sizes[d] + pads[2 * p] + pads[2 * p + 1];
    if (out[d] < 0) {
      c.fail(UserErrorKind::kShape, "the size " + std::to_string(a.sizes[d]) + " of dim " +
                                        std::to_string(d) + " padded by " + shape_str(pads) +
                                        " is negative");
    }
  }
  HostTensor result = alloc(c, a.dtype, out);
  HostTensor fill = scalar_tensor(c.scalar(2), a.dtype);
  Shape strides = contiguous_strides(a.sizes);
  for (int64_t k = 0; k < result.numel(); ++k) {
    Shape idx = unravel(k, out);
    bool inside = true;
    for (size_t d = 0; d < rank && inside; ++d) {
      idx[d] -= lo[d];
      inside = idx[d] >= 0 && idx[d] < a.sizes[d];
    }
    const HostTensor& from = inside ? a : fill;
    int64_t j = inside ? ravel(idx, strides) : 0;
    if (a.is_float()) {
      result.floats[k] = from.floats[j];
    } else {
      result.ints[k] = from.ints[j];
    }
  }
  return Value::of_tensor(std::move(result));
}

// scatter_add(a, dim, index, src): out = a; out[p with dim replaced by index[p]] += src[p] for
// every position p of index (whose sizes fit src's, and a's off dim).
Value scatter_add(const Call& c) {
  const HostTensor& a = c.tensor(0);
  const HostTensor& index = c.tensor(2);
  const HostTensor& src = c.tensor(3);
  int64_t rank = static_cast<int64_t>(a.sizes.size());
  int64_t d = wrap_dim(c, c.integer(1), rank);
  require_i64_index(c, 2);
  require_source_dtype(c, 3);
  Shape as = at_least_1d(a.sizes), is = at_least_1d(index.sizes), ss = at_least_1d(src.sizes);
  if (is.size() != as.size() || ss.size() != as.size()) {
    c.fail(UserErrorKind::kShape, "index " + shape_str(index.sizes) + ", src " +
                                      shape_str(src.sizes) + " and the input " +
                                      shape_str(a.sizes) + " must have the same number of dims");
  }
  for (size_t k = 0; k < is.size(); ++k) {
    if (is[k] > ss[k] || (static_cast<int64_t>(k) != d && is[k] > as[k])) {
      c.fail(UserErrorKind::kShape, "index " + shape_str(index.sizes) + " is larger than src " +
                                        shape_str(src.sizes) + " or the input " +
                                        shape_str(a.sizes) + " in dim " + std::to_string(k));
    }
  }
  HostTensor out = a;
  Shape a_strides = contiguous_strides(as), s_strides = contiguous_strides(ss);
  for (int64_t p = 0; p < index.numel(); ++p) {
    Shape idx = unravel(p, is);
    int64_t target = index.ints[p];
    check_index(c, target, as[d], d);
    int64_t from = ravel(idx, s_strides);
    idx[d] = target;
    add_into(out, ravel(idx, a_strides), src, from);
  }
  return Value::of_tensor(std::move(out));
}

// index_add(a, dim, index, source): out = a; out.select(dim, index[j]) += source.select(dim, j).
Value index_add(const Call& c) {
  const HostTensor& a = c.tensor(0);
  const HostTensor& index = c.tensor(2);
  const HostTensor& source = c.tensor(3);
  int64_t rank = static_cast<int64_t>(a.sizes.size());
  int64_t d = wrap_dim(c, c.integer(1), rank);
  require_i64_index(c, 2);
  if (index.sizes.size() > 1) {
    c.fail(UserErrorKind::kShape, "index must be 0-D or 1-D, got shape " + shape_str(index.sizes));
  }
  require_source_dtype(c, 3);
  // torch 2.15 takes a source of a's dims only: a 0-dim source for a 0-dim a, not a 1-D one.
  if (source.sizes.size() != a.sizes.size()) {
    c.fail(UserErrorKind::kShape, "source " + shape_str(source.sizes) + " must have the dims of " +
                                      "the input " + shape_str(a.sizes));
  }
  Shape as = at_least_1d(a.sizes), ss = at_least_1d(source.sizes);
  Shape want = as;
  want[d] = index.numel();
  if (ss != want) {
    c.fail(UserErrorKind::kShape, "source " + shape_str(source.sizes) + " must have shape " +
                                      shape_str(want) + " for the input " + shape_str(a.sizes) +
                                      " and " + std::to_string(index.numel()) + " indices");
  }
  HostTensor out = a;
  Shape a_strides = contiguous_strides(as);
  for (int64_t p = 0; p < source.numel(); ++p) {
    Shape idx = unravel(p, ss);
    int64_t target = index.ints[idx[d]];
    check_index(c, target, as[d], d);
    idx[d] = target;
    add_into(out, ravel(idx, a_strides), source, p);
  }
  return Value::of_tensor(std::move(out));
}

}  // namespace sf::eager::internal
