// View ops as strided copies: view/reshape, permute, transpose, unsqueeze, squeeze, expand,
// slice, narrow, select, flatten. The values are copied; the strides a view reports (stride()) are
// carried beside them, derived from the base's as PyTorch does (reshape, view and flatten give
// contiguous strides: a view of a contiguous base, else a copy).
#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"

namespace sf::eager::internal {

namespace {

int64_t rank_of(const HostTensor& t) { return static_cast<int64_t>(t.sizes.size()); }

HostTensor with_sizes(const HostTensor& t, Shape sizes) {
  HostTensor out = t;
  out.sizes = std::move(sizes);
  return out;
}

// The strides `view` gives a tensor of `old_sizes` and `old_strides` reshaped to `new_sizes`, or
// none when no strides can (ATen's computeStride): the old dims split into chunks that are
// contiguous among themselves, and the new shape must split into chunks of the same element
// counts; size-1 dims fit anywhere. Element-free tensors keep their strides or become contiguous.
std::optional<Shape> view_strides(const Shape& old_sizes, const Shape& old_strides,
                                  const Shape& new_sizes) {
  if (old_sizes.empty()) return Shape(new_sizes.size(), 1);
  int64_t numel = 1;
  for (int64_t s : old_sizes) numel *= s;
  if (numel == 0) {
    return old_sizes == new_sizes ? old_strides : contiguous_strides(new_sizes);
  }
  Shape out(new_sizes.size(), 0);
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.back(), tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    bool chunk_ends =
        d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
      out[view_d] = view_numel * chunk_base_stride;
      view_numel *= new_sizes[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (d > 0) {
      chunk_base_stride = old_strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace

Value view(const Call& c) {
  const HostTensor& t = c.tensor(0);
  Shape shape = c.ints(1);
  int64_t inferred = -1, known = 1;
  bool overflow = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (inferred >= 0)
        c.fail(UserErrorKind::kShape,
               "only one dimension can be inferred in shape " + shape_str(shape));
      inferred = static_cast<int64_t>(d);
    } else if (shape[d] < 0) {
      c.fail(UserErrorKind::kShape, "invalid size " + std::to_string(shape[d]) + " at dim " +
                                        std::to_string(d) + " of shape " + shape_str(shape));
    } else {
      overflow = overflow || __builtin_mul_overflow(known, shape[d], &known);
    }
  }
  int64_t n = t.numel();
  auto mismatch = [&](const std::string& why) {
    c.fail(UserErrorKind::kShape, "shape " + shape_str(shape) + " is invalid for input of shape " +
                                      shape_str(t.sizes) + " (" + std::to_string(n) + " elements)" +
                                      why);
  };
  if (overflow) mismatch("");
  if (inferred >= 0) {
    if (known == 0) mismatch(n == 0 ? ": the -1 dim is ambiguous" : "");
    if (n % known != 0) mismatch("");
    shape[inferred] = n / known;
  } else if (known != n) {
    mismatch("");
  }
  // reshape copies what view cannot describe, and reports contiguous strides either way (as the
  // compiled program does; PyTorch's reshape would keep a view's strides).
  if (c.op() != OpKind::kView) return Value::of_tensor(with_sizes(t, shape));
  std::optional<Shape> strides = view_strides(t.sizes, strides_of(c.arg(0)), shape);
  if (!strides) {
    c.fail(UserErrorKind::kShape,
           "view size " + shape_str(shape) + " is not compatible with input tensor's size " +
               shape_str(t.sizes) + " and stride " + shape_str(strides_of(c.arg(0))) +
               " (at least one dimension spans across two contiguous subspaces); use reshape "
               "instead");
  }
  return Value::of_view(with_sizes(t, shape), *strides);
}

Value permute(const Call& c) {
  const HostTensor& t = c.tensor(0);
  Shape dims = c.dims(1).value_or(Shape{});
  int64_t rank = rank_of(t);
  if (static_cast<int64_t>(dims.size()) != rank) {
    c.fail(UserErrorKind::kShape, "dims " + shape_str(dims) + " do not match the rank " +
                                      std::to_string(rank) + " of shape " + shape_str(t.sizes));
  }
  Shape in_strides = contiguous_strides(t.sizes), sizes, strides, base = strides_of(c.arg(0)),
        reported;
  std::vector<bool> used(rank, false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(c, d, rank);
    if (used[w])
      c.fail(UserErrorKind::kShape,
             "dim " + std::to_string(w) + " repeats in dims " + shape_str(dims));
    used[w] = true;
    sizes.push_back(t.sizes[w]);
    strides.push_back(in_strides[w]);
    reported.push_back(base[w]);
  }
  return Value::of_view(strided_copy(c, t, sizes, strides), reported);
}

Value transpose(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t rank = rank_of(t);
  int64_t d0 = wrap_dim(c, c.integer(1), rank), d1 = wrap_dim(c, c.integer(2), rank);
  if (rank == 0) return Value::of_view(t, strides_of(c.arg(0)));
  Shape sizes = t.sizes, strides = contiguous_strides(t.sizes), reported = strides_of(c.arg(0));
  std::swap(sizes[d0], sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  std::swap(reported[d0], reported[d1]);
  return Value::of_view(strided_copy(c, t, sizes, strides), reported);
}

Value unsqueeze(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t d = wrap_new_dim(c, c.integer(1), rank_of(t));
  Shape sizes = t.sizes, reported = strides_of(c.arg(0));
  int64_t rank = rank_of(t);
  reported.insert(reported.begin() + d, d < rank ? sizes[d] * reported[d] : 1);
  sizes.insert(sizes.begin() + d, 1);
  return Value::of_view(with_sizes(t, sizes), reported);
}

Value squeeze(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t d = wrap_dim(c, c.integer(1), rank_of(t));
  Shape sizes = t.sizes, reported = strides_of(c.arg(0));
  if (!sizes.empty() && sizes[d] == 1) {
    sizes.erase(sizes.begin() + d);
    reported.erase(reported.begin() + d);
  }
  return Value::of_view(with_sizes(t, sizes), reported);
}

Value expand(const Call& c) {
  const HostTensor& t = c.tensor(0);
  Shape target = c.ints(1);
  int64_t rank = rank_of(t), n = static_cast<int64_t>(target.size());
  auto fail = [&](const std::string& why) {
    c.fail(UserErrorKind::kShape, why + " (target sizes " + shape_str(target) + ", tensor sizes " +
                                      shape_str(t.sizes) + ")");
  };
  if (n < rank) fail("the number of sizes must be at least the tensor's rank");
  Shape in_strides = contiguous_strides(t.sizes), sizes(n), strides(n, 0), reported(n, 0);
  Shape base = strides_of(c.arg(0));
  for (int64_t d = 0; d < n; ++d) {
    int64_t want = target[d];
    if (d < n - rank) {
      if (want < 0)
        fail("size " + std::to_string(want) + " is not allowed in new leading dim " +
             std::to_string(d));
      sizes[d] = want;
      continue;
    }
    int64_t have = t.sizes[d - (n - rank)];
    if (want == -1 || want == have) {
      sizes[d] = have;
      strides[d] = in_strides[d - (n - rank)];
      reported[d] = base[d - (n - rank)];
    } else if (have == 1 && want >= 0) {
      sizes[d] = want;
    } else {
      fail("the expanded size " + std::to_string(want) + " must match the existing size " +
           std::to_string(have) + " at non-singleton dim " + std::to_string(d));
    }
  }
  return Value::of_view(strided_copy(c, t, sizes, strides), reported);
}

Value slice(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t d = wrap_dim(c, c.integer(1), rank_of(t), false);
  int64_t size = t.sizes[d];
  int64_t step = c.integer(4);
  if (step <= 0)
    c.fail(UserErrorKind::kValue, "step must be positive, got " + std::to_string(step));
  // Python slicing: negative bounds count from the end, then both clamp to [0, size].
  auto clamp = [&](int64_t v) {
    if (v < 0) v += size;
    return v < 0 ? 0 : v > size ? size : v;
  };
  int64_t start = clamp(c.has(2) ? c.integer(2) : 0);
  int64_t end = clamp(c.has(3) ? c.integer(3) : size);
  int64_t len = end <= start ? 0 : (end - start - 1) / step + 1;
  Shape sizes = t.sizes, strides = contiguous_strides(t.sizes), reported = strides_of(c.arg(0));
  sizes[d] = len;
  int64_t offset = start * strides[d];
  strides[d] *= step;
  reported[d] *= step;
  return Value::of_view(strided_copy(c, t, sizes, strides, len == 0 ? 0 : offset), reported);
}

Value narrow(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t d = wrap_dim(c, c.integer(1), rank_of(t), false);
  int64_t size = t.sizes[d], start = c.integer(2), length = c.integer(3);
  std::string where = " for dim " + std::to_string(d) + " of shape " + shape_str(t.sizes);
  if (start < -size || start > size) {
    c.fail(UserErrorKind::kIndex, "start " + std::to_string(start) + " out of range [" +
                                      std::to_string(-size) + ", " + std::to_string(size) + "]" +
                                      where);
  }
  if (start < 0) start += size;
  if (length < 0)
    c.fail(UserErrorKind::kValue, "length must be non-negative, got " + std::to_string(length));
  if (length > size - start) {
    c.fail(UserErrorKind::kIndex, "start " + std::to_string(start) + " + length " +
                                      std::to_string(length) + " exceeds the size " +
                                      std::to_string(size) + where);
  }
  Shape sizes = t.sizes, strides = contiguous_strides(t.sizes);
  sizes[d] = length;
  return Value::of_view(strided_copy(c, t, sizes, strides, length == 0 ? 0 : start * strides[d]),
                        strides_of(c.arg(0)));
}

// split_with_sizes: one narrow per size, the sizes non-negative and summing to the dim's size.
Value split_with_sizes(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t d = wrap_dim(c, c.integer(2), rank_of(t), false);
  Shape parts = c.ints(1);
  int64_t total = 0;
  for (int64_t s : parts) {
    if (s < 0) c.fail(UserErrorKind::kValue, "sizes must be non-negative, got " + shape_str(parts));
    total += s;
  }
  if (total != t.sizes[d]) {
    c.fail(UserErrorKind::kValue, "the sizes " + shape_str(parts) + " sum to " +
                                      std::to_string(total) + ", not to the size " +
                                      std::to_string(t.sizes[d]) + " of dim " + std::to_string(d));
  }
  Shape strides = contiguous_strides(t.sizes);
  std::vector<Value> views;
  int64_t start = 0;
  for (int64_t s : parts) {
    Shape sizes = t.sizes;
    sizes[d] = s;
    views.push_back(Value::of_view(
        strided_copy(c, t, sizes, strides, s == 0 ? 0 : start * strides[d]), strides_of(c.arg(0))));
    start += s;
  }
  return Value::tuple(std::move(views));
}

// tensor_split by indices: the slices [0, i0), [i0, i1), ..., [ik, end) with Python's clamping,
// as ATen's composite implementation.
Value tensor_split(const Call& c) {
  const HostTensor& t = c.tensor(0);
  if (t.sizes.empty()) {
    c.fail(UserErrorKind::kShape,
           "expected at least a 1-dimensional tensor, got " + c.arg(0).describe());
  }
  wrap_dim(c, c.integer(2), rank_of(t), false);  // an error names tensor_split, not slice
  Value start = Value::of_int(0);
  std::vector<Value> parts;
  for (int64_t index : c.ints(1)) {
    parts.push_back(slice(
        Call(OpKind::kSlice, {c.arg(0), c.arg(2), start, Value::of_int(index), Value::of_int(1)})));
    start = Value::of_int(index);
  }
  parts.push_back(
      slice(Call(OpKind::kSlice, {c.arg(0), c.arg(2), start, Value(), Value::of_int(1)})));
  return Value::tuple(std::move(parts));
}

Value select(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t d = wrap_dim(c, c.integer(1), rank_of(t), false);
  int64_t size = t.sizes[d], i = c.integer(2);
  if (i < -size || i >= size) {
    c.fail(UserErrorKind::kIndex, "index " + std::to_string(i) + " is out of bounds for dim " +
                                      std::to_string(d) + " with size " + std::to_string(size) +
                                      " (shape " + shape_str(t.sizes) + ")");
  }
  if (i < 0) i += size;
  Shape sizes = t.sizes, strides = contiguous_strides(t.sizes), reported = strides_of(c.arg(0));
  int64_t offset = i * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  reported.erase(reported.begin() + d);
  return Value::of_view(strided_copy(c, t, sizes, strides, offset), reported);
}

Value flatten(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t rank = rank_of(t);
  int64_t s = wrap_dim(c, c.integer(1), rank), e = wrap_dim(c, c.integer(2), rank);
  if (rank == 0) return Value::of_tensor(with_sizes(t, {1}));  // PyTorch: 0-dim -> [1]
  if (s > e) {
    c.fail(UserErrorKind::kShape, "start_dim " + std::to_string(s) + " comes after end_dim " +
                                      std::to_string(e) + " (shape " + shape_str(t.sizes) + ")");
  }
  Shape sizes(t.sizes.begin(), t.sizes.begin() + s);
  int64_t prod = 1;
  bool empty = false;
  for (int64_t d = s; d <= e; ++d) empty = empty || t.sizes[d] == 0;
  for (int64_t d = s; d <= e && !empty; ++d) {
    if (__builtin_mul_overflow(prod, t.sizes[d], &prod)) {
      c.fail(UserErrorKind::kTooComplex, "flattening dims " + std::to_string(s) + " to " +
                                             std::to_string(e) + " of shape " + shape_str(t.sizes) +
                                             " gives a size beyond int64");
    }
  }
  if (empty) prod = 0;
  sizes.push_back(prod);
  sizes.insert(sizes.end(), t.sizes.begin() + e + 1, t.sizes.end());
  return Value::of_tensor(with_sizes(t, sizes));
}

}  // namespace sf::eager::internal
