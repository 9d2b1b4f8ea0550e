// Ops whose output shape or value depends on tensor data: nonzero, boolean index, masked_select,
// unique (sorted, optional counts; over a dim), item, tolist, repeat_interleave.
#include <algorithm>
#include <cmath>

#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"

namespace sf::eager::internal {

namespace {

// repeats must be a 1-D i64 tensor of non-negative counts.
const HostTensor& checked_repeats(const Call& c, size_t i) {
  const HostTensor& r = c.tensor(i);
  if (r.dtype != DType::kInt64) {
    c.fail(UserErrorKind::kInvalidProgram,
           "repeats must be an i64 tensor, got " + c.arg(i).describe());
  }
  if (r.sizes.size() != 1) {
    c.fail(UserErrorKind::kShape, "repeats must be 1-D, got shape " + shape_str(r.sizes));
  }
  for (int64_t k = 0; k < r.numel(); ++k) {
    if (r.ints[k] < 0) {
      c.fail(UserErrorKind::kValue, "repeats must be non-negative, got " +
                                        std::to_string(r.ints[k]) + " at index " +
                                        std::to_string(k) + " of " + r.str());
    }
  }
  return r;
}

// [0, 0, 1, 2, 2, ...]: index k repeated repeats[k] times (exactly output_size of them when
// it is given: PyTorch fills a larger one with garbage and refuses a smaller one).
std::vector<int64_t> expand_repeats(const Call& c, const HostTensor& r) {
  int64_t total = 0;
  for (int64_t v : r.ints) {
    if (__builtin_add_overflow(total, v, &total)) total = INT64_MAX;
  }
  if (c.has(3) && c.integer(3) != total) {
    c.fail(UserErrorKind::kShape, "output_size " + std::to_string(c.integer(3)) +
                                      " does not match the sum of repeats " +
                                      std::to_string(total) + " of " + r.str());
  }
  checked_numel(c, {total});
  std::vector<int64_t> out;
  out.reserve(total);
  for (int64_t k = 0; k < r.numel(); ++k) out.insert(out.end(), r.ints[k], k);
  return out;
}

// The first of each run of equal neighbours in `order`, and the runs' lengths (unique's values
// and counts, over elements or over slices).
struct Runs {
  std::vector<int64_t> firsts, counts;
};
template <typename Same>
Runs runs_of(const std::vector<int64_t>& order, Same same) {
  Runs r;
  for (int64_t k : order) {
    if (!r.firsts.empty() && same(r.firsts.back(), k)) {
      ++r.counts.back();
    } else {
      r.firsts.push_back(k);
      r.counts.push_back(1);
    }
  }
  return r;
}

// The values, or with return_counts the tuple (values, i64 counts).
Value with_counts(const Call& c, Value values, bool return_counts,
                  const std::vector<int64_t>& counts) {
  if (!return_counts) return values;
  HostTensor ct = alloc(c, DType::kInt64, {static_cast<int64_t>(counts.size())});
  ct.ints = counts;
  return Value::tuple({std::move(values), Value::of_tensor(std::move(ct))});
}

}  // namespace

Value nonzero(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t rank = static_cast<int64_t>(t.sizes.size());
  std::vector<int64_t> coords;
  for (int64_t k = 0; k < t.numel(); ++k) {
    if (!truthy(t, k)) continue;
    std::vector<int64_t> idx(rank);
    for (int64_t d = rank, rest = k; d-- > 0;) {
      idx[d] = rest % t.sizes[d];
      rest /= t.sizes[d];
    }
    coords.insert(coords.end(), idx.begin(), idx.end());
  }
  int64_t n = 0;
  for (int64_t k = 0; k < t.numel(); ++k) n += truthy(t, k);
  HostTensor out = alloc(c, DType::kInt64, {n, rank});
  out.ints = std::move(coords);
  return Value::of_tensor(std::move(out));
}

Value index(const Call& c) {
  const HostTensor& t = c.tensor(0);
  const HostTensor& mask = c.tensor(1);
  require_bool_mask(c, 1);
  size_t mrank = mask.sizes.size();
  bool leading =
      mrank <= t.sizes.size() && std::equal(mask.sizes.begin(), mask.sizes.end(), t.sizes.begin());
  if (!leading) {
    c.fail(UserErrorKind::kShape, "mask shape " + shape_str(mask.sizes) +
                                      " does not match the leading dims of the indexed shape " +
                                      shape_str(t.sizes));
  }
  int64_t inner = 1;
  for (size_t d = mrank; d < t.sizes.size(); ++d) inner *= t.sizes[d];
  std::vector<int64_t> src;
  for (int64_t k = 0; k < mask.numel(); ++k) {
    if (!mask.ints[k]) continue;
    for (int64_t i = 0; i < inner; ++i) src.push_back(k * inner + i);
  }
  Shape sizes{inner == 0 ? 0 : static_cast<int64_t>(src.size()) / inner};
  if (inner == 0) {
    for (int64_t k = 0; k < mask.numel(); ++k) sizes[0] += mask.ints[k] != 0;
  }
  sizes.insert(sizes.end(), t.sizes.begin() + mrank, t.sizes.end());
  return Value::of_tensor(gather(c, t, sizes, src));
}

Value masked_select(const Call& c) {
  const HostTensor& t = c.tensor(0);
  const HostTensor& mask = c.tensor(1);
  require_bool_mask(c, 1);
  Shape shape = broadcast_shapes(c, {t.sizes, mask.sizes});
  std::vector<int64_t> ti = strided_offsets(shape, broadcast_strides(shape, t.sizes));
  std::vector<int64_t> mi = strided_offsets(shape, broadcast_strides(shape, mask.sizes));
  std::vector<int64_t> src;
  for (size_t k = 0; k < ti.size(); ++k) {
    if (mask.ints[mi[k]]) src.push_back(ti[k]);
  }
  return Value::of_tensor(gather(c, t, {static_cast<int64_t>(src.size())}, src));
}

// unique (sorted) and unique_consecutive (in order): the first element of each run of equal
// values, with the run lengths when counts are asked for.
Value unique(const Call& c) {
  const HostTensor& t = c.tensor(0);
  bool counts = c.flag(1);
  int64_t n = t.numel();
  std::vector<int64_t> order(n);
  for (int64_t k = 0; k < n; ++k) order[k] = k;
  // Ascending; NaNs sort last and, never equal to anything, each stays its own value.
  auto less = [&](int64_t x, int64_t y) { return sorts_before(t, x, y); };
  if (c.op() == OpKind::kUnique) std::stable_sort(order.begin(), order.end(), less);
  Runs runs = runs_of(order, [&](int64_t x, int64_t y) {
    return t.is_float() ? t.floats[x] == t.floats[y] : t.ints[x] == t.ints[y];
  });
  Value values =
      Value::of_tensor(gather(c, t, {static_cast<int64_t>(runs.firsts.size())}, runs.firsts));
  return with_counts(c, std::move(values), counts, runs.counts);
}

// unique over a dim: the distinct slices along `dim`, sorted lexicographically by the order of
// sorts_before (NaN last), with counts. A NaN equals nothing, so a slice holding one is its own
// value.
Value unique_dim(const Call& c) {
  const HostTensor& t = c.tensor(0);
  if (t.sizes.empty()) {
    c.fail(UserErrorKind::kIndex, "dimension specified as " + std::to_string(c.integer(1)) +
                                      " but the tensor has no dimensions");
  }
  int64_t d = wrap_dim(c, c.integer(1), static_cast<int64_t>(t.sizes.size()), false);
  int64_t zero_dims = std::count(t.sizes.begin(), t.sizes.end(), 0);
  if (t.sizes[d] == 0 && zero_dims > 1) {
    c.fail(UserErrorKind::kShape, "more than one dim of " + shape_str(t.sizes) + " is 0");
  }
  if (t.sizes[d] != 0 && zero_dims > 0) {
    c.fail(UserErrorKind::kShape,
           "a dim of " + shape_str(t.sizes) + " other than dim " + std::to_string(d) + " is 0");
  }
  if (t.sizes[d] == 0) {  // nothing to compare (and the other dims may be huge): empty results
    return with_counts(c, Value::of_tensor(take_rows(c, t, d, {})), c.flag(2), {});
  }
  // Slice r along d holds the elements base(r) + offsets[k], in row-major order of the rest.
  Shape rest = t.sizes, strides = contiguous_strides(t.sizes);
  rest[d] = 1;
  std::vector<int64_t> offsets = strided_offsets(rest, strides);
  auto lex_less = [&](int64_t x, int64_t y) {
    for (int64_t o : offsets) {
      int64_t a = x * strides[d] + o, b = y * strides[d] + o;
      if (sorts_before(t, a, b)) return true;
      if (sorts_before(t, b, a)) return false;
    }
    return false;
  };
  auto same = [&](int64_t x, int64_t y) {
    for (int64_t o : offsets) {
      int64_t a = x * strides[d] + o, b = y * strides[d] + o;
      if (t.is_float() ? !(t.floats[a] == t.floats[b]) : t.ints[a] != t.ints[b]) return false;
    }
    return true;
  };
  std::vector<int64_t> order(t.sizes[d]);
  for (int64_t r = 0; r < t.sizes[d]; ++r) order[r] = r;
  std::stable_sort(order.begin(), order.end(), lex_less);
  Runs runs = runs_of(order, same);
  return with_counts(c, Value::of_tensor(take_rows(c, t, d, runs.firsts)), c.flag(2), runs.counts);
}

// bincount: counts (or summed f32 weights) of each value of a 1-D non-negative i64 tensor, over
// max(max + 1, minlength) bins.
Value bincount(const Call& c) {
  const HostTensor& t = c.tensor(0);
  if (t.dtype != DType::kInt64 || t.sizes.size() != 1) {
    c.fail(UserErrorKind::kInvalidProgram,
           "the input must be a 1-D i64 tensor, got " + c.arg(0).describe());
  }
  const HostTensor* w = c.has(1) ? &c.tensor(1) : nullptr;
  if (w && w->dtype != DType::kFloat32) {
    c.fail(UserErrorKind::kInvalidProgram, "weights must be f32, got " + c.arg(1).describe());
  }
  if (w && (w->sizes.size() != 1 || w->numel() != t.numel())) {
    c.fail(UserErrorKind::kShape, "weights of shape " + shape_str(w->sizes) +
                                      " must have the input's shape " + shape_str(t.sizes));
  }
  int64_t minlength = c.integer(2);
  if (minlength < 0) {
    c.fail(UserErrorKind::kValue, "minlength must be >= 0, got " + std::to_string(minlength));
  }
  int64_t bins = minlength;
  for (int64_t v : t.ints) {
    if (v < 0) c.fail(UserErrorKind::kValue, "the input must be non-negative, got " + t.str());
    int64_t past = 0;
    bins = std::max(bins, __builtin_add_overflow(v, 1, &past) ? INT64_MAX : past);
  }
  HostTensor out = alloc(c, w ? DType::kFloat32 : DType::kInt64, {bins});
  for (int64_t k = 0; k < t.numel(); ++k) {
    if (w) {
      out.floats[t.ints[k]] += w->floats[k];
    } else {
      ++out.ints[t.ints[k]];
    }
  }
  return Value::of_tensor(std::move(out));
}

// one_hot: out[..., j] = (a[...] == j) over num_classes classes (max(a) + 1 when -1).
Value one_hot(const Call& c) {
  const HostTensor& t = c.tensor(0);
  if (t.dtype != DType::kInt64) {
    c.fail(UserErrorKind::kInvalidProgram,
           "the input must be an i64 tensor of class indices, got " + c.arg(0).describe());
  }
  int64_t classes = c.integer(1);
  if (classes == -1) {
    if (t.numel() == 0) {
      c.fail(UserErrorKind::kValue, "cannot infer the number of classes from an empty tensor");
    }
    classes = *std::max_element(t.ints.begin(), t.ints.end()) + 1;
  } else if (classes < 0) {
    c.fail(UserErrorKind::kValue,
           "num_classes must be -1 or non-negative, got " + std::to_string(classes));
  }
  for (int64_t v : t.ints) {
    if (v < 0) c.fail(UserErrorKind::kValue, "class values must be non-negative, got " + t.str());
    if (v >= classes) {
      c.fail(UserErrorKind::kValue, "class values must be smaller than num_classes " +
                                        std::to_string(classes) + ", got " + t.str());
    }
  }
  Shape sizes = t.sizes;
  sizes.push_back(classes);
  HostTensor out = alloc(c, DType::kInt64, sizes);
  for (int64_t k = 0; k < t.numel(); ++k) out.ints[k * classes + t.ints[k]] = 1;
  return Value::of_tensor(std::move(out));
}

Value item(const Call& c) {
  const HostTensor& t = c.tensor(0);
  if (t.numel() != 1) {
    c.fail(UserErrorKind::kShape, "a tensor with " + std::to_string(t.numel()) +
                                      " elements cannot be converted to a scalar (shape " +
                                      shape_str(t.sizes) + ")");
  }
  switch (t.dtype) {
    case DType::kBool:
      return Value::of_bool(t.ints[0] != 0);
    case DType::kInt64:
      return Value::of_int(t.ints[0]);
    case DType::kFloat32:
      return Value::of_float(t.floats[0]);
  }
  return Value{};
}

Value tolist(const Call& c) {
  const HostTensor& t = c.tensor(0);
  if (t.dtype == DType::kFloat32) {
    c.fail(UserErrorKind::kInvalidProgram,
           "expects an i64 or bool tensor, got " + c.arg(0).describe());
  }
  if (t.sizes.size() != 1) {
    c.fail(UserErrorKind::kShape, "expects a 1-D tensor, got shape " + shape_str(t.sizes));
  }
  std::vector<Value> elems;
  for (int64_t v : t.ints) {
    elems.push_back(t.dtype == DType::kBool ? Value::of_bool(v != 0) : Value::of_int(v));
  }
  return Value::tuple(std::move(elems));
}

Value repeat_interleave(const Call& c) {
  if (!c.has(1)) {  // repeat_interleave(repeats)
    if (c.has(2)) c.fail(UserErrorKind::kInvalidProgram, "dim given without repeats");
    std::vector<int64_t> idx = expand_repeats(c, checked_repeats(c, 0));
    HostTensor out = alloc(c, DType::kInt64, {static_cast<int64_t>(idx.size())});
    out.ints = std::move(idx);
    return Value::of_tensor(std::move(out));
  }
  const HostTensor& t = c.tensor(0);
  const HostTensor& r = checked_repeats(c, 1);
  HostTensor src = t;
  int64_t d = 0;
  if (c.has(2)) {
    d = wrap_dim(c, c.integer(2), static_cast<int64_t>(t.sizes.size()), false);
  } else {
    src.sizes = {t.numel()};  // no dim: the flattened input, as PyTorch
  }
  if (r.numel() != src.sizes[d]) {
    c.fail(UserErrorKind::kShape, "repeats has " + std::to_string(r.numel()) +
                                      " entries but the input has size " +
                                      std::to_string(src.sizes[d]) + " in dim " +
                                      std::to_string(d) + " (shape " + shape_str(src.sizes) + ")");
  }
  return Value::of_tensor(take_rows(c, src, d, expand_repeats(c, r)));
}

}  // namespace sf::eager::internal
