// Joins and gathers: cat (1-D empty tensors skipped, as PyTorch), stack, index_select (an index
// outside [0, size) is an index error: PyTorch's index_select does not wrap negatives), flip.
#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"

namespace sf::eager::internal {

namespace {

int64_t prod(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t d = from; d < to; ++d) p *= s[d];
  return p;
}

std::vector<TensorPtr> nonempty_list(const Call& c) {
  std::vector<TensorPtr> ts = c.tensors(0);
  if (ts.empty()) c.fail(UserErrorKind::kValue, "expected a non-empty list of tensors");
  return ts;
}

// Appends, for every outer index, `chunk` consecutive elements of `t` (cast to out's dtype).
void interleave(const std::vector<HostTensor>& parts, const std::vector<int64_t>& chunks,
                int64_t outer, HostTensor* out) {
  // An empty result may still have a huge outer extent ([2**62, 0] along dim 1): copy nothing.
  if (out->numel() == 0) return;
  int64_t pos = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < parts.size(); ++k) {
      for (int64_t i = 0; i < chunks[k]; ++i, ++pos) {
        if (out->is_float()) {
          out->floats[pos] = parts[k].floats[o * chunks[k] + i];
        } else {
          out->ints[pos] = parts[k].ints[o * chunks[k] + i];
        }
      }
    }
  }
}

}  // namespace

Value cat(const Call& c) {
  std::vector<TensorPtr> ts = nonempty_list(c);
  DType dtype = ts[0]->dtype;
  const HostTensor* ref = nullptr;
  for (size_t k = 0; k < ts.size(); ++k) {
    dtype = promote(dtype, ts[k]->dtype);
    if (ts[k]->sizes.empty()) {
      c.fail(UserErrorKind::kShape, "zero-dimensional tensor (at position " + std::to_string(k) +
                                        ") cannot be concatenated");
    }
    bool skipped = ts[k]->sizes.size() == 1 && ts[k]->sizes[0] == 0;
    if (!skipped && !ref) ref = ts[k].get();
  }
  if (!ref) {  // every tensor is a 1-D empty one
    wrap_dim(c, c.integer(1), 1);
    return Value::of_tensor(alloc(c, dtype, {0}));
  }
  int64_t rank = static_cast<int64_t>(ref->sizes.size());
  int64_t d = wrap_dim(c, c.integer(1), rank);
  Shape sizes = ref->sizes;
  sizes[d] = 0;
  std::vector<HostTensor> parts;
  std::vector<int64_t> chunks;
  int64_t inner = prod(ref->sizes, d + 1, rank);
  for (size_t k = 0; k < ts.size(); ++k) {
    const HostTensor& t = *ts[k];
    if (t.sizes.size() == 1 && t.sizes[0] == 0) continue;
    if (static_cast<int64_t>(t.sizes.size()) != rank) {
      c.fail(UserErrorKind::kShape, "tensors must have the same rank: got shapes " +
                                        shape_str(ref->sizes) + " and " + shape_str(t.sizes) +
                                        " (tensor " + std::to_string(k) + ")");
    }
    for (int64_t e = 0; e < rank; ++e) {
      if (e != d && t.sizes[e] != ref->sizes[e]) {
        c.fail(UserErrorKind::kShape,
               "sizes must match except in dim " + std::to_string(d) + ": expected " +
                   std::to_string(ref->sizes[e]) + " but got " + std::to_string(t.sizes[e]) +
                   " in dim " + std::to_string(e) + " for tensor " + std::to_string(k) +
                   " (shapes " + shape_str(ref->sizes) + " and " + shape_str(t.sizes) + ")");
      }
    }
    if (__builtin_add_overflow(sizes[d], t.sizes[d], &sizes[d])) {
      c.fail(UserErrorKind::kTooComplex,
             "the sizes of dim " + std::to_string(d) + " add up to more than int64 holds (tensor " +
                 std::to_string(k) + " of shape " + shape_str(t.sizes) + ")");
    }
    parts.push_back(cast(t, dtype));
    chunks.push_back(t.sizes[d] * inner);
  }
  HostTensor out = alloc(c, dtype, sizes);
  interleave(parts, chunks, prod(sizes, 0, d), &out);
  return Value::of_tensor(std::move(out));
}

Value stack(const Call& c) {
  std::vector<TensorPtr> ts = nonempty_list(c);
  const Shape& shape = ts[0]->sizes;
  DType dtype = ts[0]->dtype;
  for (size_t k = 1; k < ts.size(); ++k) {
    if (ts[k]->sizes != shape) {
      c.fail(UserErrorKind::kShape, "expects tensors of equal shape, got " + shape_str(shape) +
                                        " at entry 0 and " + shape_str(ts[k]->sizes) +
                                        " at entry " + std::to_string(k));
    }
    dtype = promote(dtype, ts[k]->dtype);
  }
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t d = wrap_new_dim(c, c.integer(1), rank);
  Shape sizes = shape;
  sizes.insert(sizes.begin() + d, static_cast<int64_t>(ts.size()));
  std::vector<HostTensor> parts;
  std::vector<int64_t> chunks;
  for (const TensorPtr& t : ts) {
    parts.push_back(cast(*t, dtype));
    chunks.push_back(prod(shape, d, rank));
  }
  HostTensor out = alloc(c, dtype, sizes);
  interleave(parts, chunks, prod(shape, 0, d), &out);
  return Value::of_tensor(std::move(out));
}

Value index_select(const Call& c) {
  const HostTensor& t = c.tensor(0);
  const HostTensor& idx = c.tensor(2);
  if (idx.dtype != DType::kInt64) {
    c.fail(UserErrorKind::kInvalidProgram,
           "index must be an i64 tensor, got " + c.arg(2).describe());
  }
  if (idx.sizes.size() > 1) {
    c.fail(UserErrorKind::kShape, "index must be 0-D or 1-D, got shape " + shape_str(idx.sizes));
  }
  int64_t rank = static_cast<int64_t>(t.sizes.size());
  int64_t d = wrap_dim(c, c.integer(1), rank);
  int64_t size = rank == 0 ? 1 : t.sizes[d];  // a 0-dim tensor is indexed as one element
  int64_t m = idx.numel();
  if (rank == 0 && m != 1) {
    c.fail(UserErrorKind::kIndex,
           "index into a 0-dim tensor must have one value, got " + std::to_string(m));
  }
  std::vector<int64_t> rows(m);
  for (int64_t j = 0; j < m; ++j) {
    int64_t i = idx.ints[j];
    if (i < 0 || i >= size) {
      c.fail(UserErrorKind::kIndex, "index " + std::to_string(i) + " is out of range for dim " +
                                        std::to_string(d) + " with size " + std::to_string(size) +
                                        " (shape " + shape_str(t.sizes) + ")");
    }
    rows[j] = i;
  }
  if (rank == 0) return Value::of_tensor(t);
  return Value::of_tensor(take_rows(c, t, d, rows));
}

// flip(a, dims): a copy read backwards along each listed dim (a 0-dim tensor takes dims 0 and
// -1); a dim listed twice is an error, as PyTorch's.
Value flip(const Call& c) {
  const HostTensor& a = c.tensor(0);
  int64_t rank = static_cast<int64_t>(a.sizes.size());
  Shape strides = contiguous_strides(a.sizes);
  int64_t offset = 0;
  std::vector<bool> seen(std::max<int64_t>(rank, 1), false);
  for (int64_t d : c.dims(1).value_or(Shape{})) {
    int64_t w = wrap_dim(c, d, rank);
    if (seen[w]) {
      c.fail(UserErrorKind::kShape,
             "dim " + std::to_string(w) + " appears multiple times in the list of dims");
    }
    seen[w] = true;
    if (rank == 0 || a.sizes[w] == 0) continue;
    offset += (a.sizes[w] - 1) * strides[w];
    strides[w] = -strides[w];
  }
  return Value::of_tensor(strided_copy(c, a, a.sizes, strides, offset));
}

// gather(a, dim, index): out[i] = a[i with dim replaced by index[i]]; index has a's rank (a 0-dim
// tensor counts as one element) and no larger a size than a's apart from dim; an index outside
// [0, size) is an index error.
Value gather_op(const Call& c) {
  const HostTensor& a = c.tensor(0);
  const HostTensor& index = c.tensor(2);
  if (index.dtype != DType::kInt64) {
    c.fail(UserErrorKind::kInvalidProgram,
           "index must be an i64 tensor, got " + c.arg(2).describe());
  }
  int64_t rank = static_cast<int64_t>(a.sizes.size());
  int64_t d = wrap_dim(c, c.integer(1), rank);
  if (index.sizes.size() != a.sizes.size()) {
    c.fail(UserErrorKind::kShape, "index must have a's number of dims: " + shape_str(index.sizes) +
                                      " and " + shape_str(a.sizes));
  }
  for (int64_t k = 0; k < rank; ++k) {
    if (k != d && index.sizes[k] > a.sizes[k]) {
      c.fail(UserErrorKind::kShape, "index " + shape_str(index.sizes) +
                                        " is larger than the input " + shape_str(a.sizes) +
                                        " in dim " + std::to_string(k));
    }
  }
  Shape strides = contiguous_strides(a.sizes);
  int64_t size = rank == 0 ? 1 : a.sizes[d], stride = rank == 0 ? 0 : strides[d];
  if (rank > 0) strides[d] = 0;
  std::vector<int64_t> at = strided_offsets(index.sizes, strides);
  for (size_t k = 0; k < at.size(); ++k) {
    int64_t v = index.ints[k];
    if (v < 0 || v >= size) {
      c.fail(UserErrorKind::kIndex, "index " + std::to_string(v) + " is out of bounds for dim " +
                                        std::to_string(d) + " of size " + std::to_string(size));
    }
    at[k] += v * stride;
  }
  return Value::of_tensor(gather(c, a, index.sizes, at));
}

// embedding(indices, weight): the rows of the 2-D weight the indices name, shaped
// indices.shape + [weight.size(1)]; an index outside [0, rows) is an index error.
Value embedding(const Call& c) {
  const HostTensor& indices = c.tensor(0);
  const HostTensor& weight = c.tensor(1);
  if (indices.dtype != DType::kInt64) {
    c.fail(UserErrorKind::kInvalidProgram,
           "indices must be an i64 tensor, got " + c.arg(0).describe());
  }
  if (weight.sizes.size() != 2) {
    c.fail(UserErrorKind::kShape, "weight must be 2-D, got " + c.arg(1).describe());
  }
  int64_t rows = weight.sizes[0];
  Shape shape = indices.sizes;
  shape.push_back(weight.sizes[1]);
  checked_numel(c, shape);
  for (int64_t v : indices.ints) {
    if (v < 0 || v >= rows) {
      c.fail(UserErrorKind::kIndex, "index " + std::to_string(v) + " is out of range for " +
                                        std::to_string(rows) + " rows");
    }
  }
  HostTensor out = take_rows(c, weight, 0, indices.ints);  // [indices, columns]
  out.sizes = shape;
  return Value::of_tensor(std::move(out));
}

// roll(a, shifts, dim): out[j] = a[(j - shifts) mod n] along dim (a 0-dim tensor has no dim to
// roll: a shape error, as PyTorch's).
Value roll(const Call& c) {
  const HostTensor& a = c.tensor(0);
  int64_t rank = static_cast<int64_t>(a.sizes.size());
  if (rank == 0) c.fail(UserErrorKind::kShape, "a 0-dim tensor has no dim to roll");
  int64_t d = wrap_dim(c, c.integer(2), rank);
  int64_t n = a.sizes[d];
  Shape strides = contiguous_strides(a.sizes);
  int64_t stride = strides[d];
  strides[d] = 0;
  std::vector<int64_t> at = strided_offsets(a.sizes, strides);
  if (n > 0) {
    // (j - shift mod n) mod n, each step in range: what the compiled kernel computes.
    int64_t shift = program::int_binary(BinaryOp::kRemainder, c.integer(1), n, nullptr);
    int64_t inner = stride, k = 0;
    for (int64_t& o : at) {
      int64_t j = (k++ / inner) % n;
      o += program::int_binary(BinaryOp::kRemainder, j - shift, n, nullptr) * stride;
    }
  }
  return Value::of_tensor(gather(c, a, a.sizes, at));
}

}  // namespace sf::eager::internal
