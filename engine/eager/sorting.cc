// Ops that order, scan or count along a dim: argmax/argmin (first extremum, NaN counts as one),
// cumsum (f32 accumulates in double, each prefix rounded), sort/argsort/topk (stable; NaN sorts
// as the largest value), histc (PyTorch's linear bin rule in f32) and searchsorted.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"

namespace sf::eager::internal {

namespace {

// One line of a tensor along a dim: element j is at first + j * stride (row-major), and the
// line is number `outer` of the dims before and `inner` of the dims after.
struct Line {
  int64_t outer, inner, first, stride, n;
};

// Every line along dim d (a 0-dim tensor is one line of one element).
void for_each_line(const Shape& sizes, int64_t d, const std::function<void(const Line&)>& fn) {
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= sizes[k];
  for (size_t k = d + 1; k < sizes.size(); ++k) inner *= sizes[k];
  int64_t n = sizes.empty() ? 1 : sizes[d];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) fn(Line{o, i, o * n * inner + i, inner, n});
  }
}

void require_not_bool(const Call& c, const HostTensor& t) {
  if (t.dtype == DType::kBool) {
    c.fail(UserErrorKind::kInvalidProgram, "not implemented for bool, got " + c.arg(0).describe());
  }
}

// The order of each line (stable); `descending` reverses the comparison, not the ties.
std::vector<int64_t> line_order(const HostTensor& t, int64_t first, int64_t stride, int64_t n,
                                bool descending) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    int64_t a = first + x * stride, b = first + y * stride;
    return descending ? sorts_before(t, b, a) : sorts_before(t, a, b);
  });
  return order;
}

// The dim argument i, checked (a 0-dim tensor takes 0 and -1, as PyTorch's wrap_scalar).
int64_t dim_of(const Call& c, size_t i, const HostTensor& t) {
  int64_t rank = static_cast<int64_t>(t.sizes.size());
  int64_t d = wrap_dim(c, c.integer(i), rank);
  return rank == 0 ? 0 : d;
}

// values[k] = t along each line at order[k], indices[k] = order[k], for the first `k` of it.
Value ordered(const Call& c, const HostTensor& t, int64_t d, bool descending, int64_t k,
              bool values_too) {
  Shape out_sizes = t.sizes;
  if (!out_sizes.empty()) out_sizes[d] = k;
  HostTensor indices = alloc(c, DType::kInt64, out_sizes);
  std::vector<int64_t> src(indices.numel());
  for_each_line(t.sizes, d, [&](const Line& l) {
    std::vector<int64_t> order = line_order(t, l.first, l.stride, l.n, descending);
    // The output line: the same outer and inner position, k long.
    int64_t out_first = l.outer * k * l.stride + l.inner;
    for (int64_t j = 0; j < k; ++j) {
      indices.ints[out_first + j * l.stride] = order[j];
      src[out_first + j * l.stride] = l.first + order[j] * l.stride;
    }
  });
  if (!values_too) return Value::of_tensor(std::move(indices));
  return Value::tuple(
      {Value::of_tensor(gather(c, t, out_sizes, src)), Value::of_tensor(std::move(indices))});
}

// torch's cus_lower_bound / cus_upper_bound: the first position whose value is >= (or >) the
// value at k of `values` (compared in the dtype: i64 exactly, f32 with NaN never >=).
int64_t bound(const HostTensor& seq, int64_t first, int64_t n, const HostTensor& values, int64_t k,
              bool right) {
  auto greater_equal = [&](int64_t at, bool strict) {
    if (!seq.is_float()) {
      return strict ? seq.ints[at] > values.ints[k] : seq.ints[at] >= values.ints[k];
    }
    return strict ? seq.floats[at] > values.floats[k] : seq.floats[at] >= values.floats[k];
  };
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + ((hi - lo) >> 1);
    bool before = !greater_equal(first + mid, right);
    if (before) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace

Value arg_extremum(const Call& c, bool max) {
  const HostTensor& t = c.tensor(0);
  require_not_bool(c, t);
  int64_t rank = static_cast<int64_t>(t.sizes.size());
  bool keepdim = c.flag(2);
  Shape line_sizes = t.sizes;  // the lines searched: along dim, or the flattened tensor
  int64_t d = 0;
  Shape out_sizes;
  if (c.has(1)) {
    d = wrap_dim(c, c.integer(1), rank);
    if (rank > 0 && t.sizes[d] == 0) {
      c.fail(UserErrorKind::kIndex, "expected reduction dim " + std::to_string(d) +
                                        " to have non-zero size, got shape " + shape_str(t.sizes));
    }
    for (int64_t k = 0; k < rank; ++k) {
      if (k != d) out_sizes.push_back(t.sizes[k]);
      if (k == d && keepdim) out_sizes.push_back(1);
    }
  } else {
    if (t.numel() == 0) {
      c.fail(
          UserErrorKind::kIndex,
          "expected a reduction dim to be given for an empty input of shape " + shape_str(t.sizes));
    }
    line_sizes = {t.numel()};
    if (keepdim) out_sizes.assign(rank, 1);
  }
  HostTensor out = alloc(c, DType::kInt64, out_sizes);
  int64_t slot = 0;
  for_each_line(line_sizes, d, [&](const Line& l) {
    int64_t best = 0;
    for (int64_t j = 1; j < l.n; ++j) {
      int64_t a = l.first + j * l.stride, b = l.first + best * l.stride;
      if (t.is_float() && std::isnan(t.floats[b])) break;  // the first NaN wins
      bool nan = t.is_float() && std::isnan(t.floats[a]);
      if (nan || (max ? sorts_before(t, b, a) : sorts_before(t, a, b))) best = j;
    }
    out.ints[slot++] = best;
  });
  return Value::of_tensor(std::move(out));
}

Value cumsum(const Call& c) {
  const HostTensor& t = c.tensor(0);
  int64_t d = dim_of(c, 1, t);
  DType dtype = t.is_float() ? DType::kFloat32 : DType::kInt64;
  HostTensor out = alloc(c, dtype, t.sizes);
  for_each_line(t.sizes, d, [&](const Line& l) {
    double facc = 0;
    int64_t iacc = 0;
    for (int64_t j = 0; j < l.n; ++j) {
      int64_t k = l.first + j * l.stride;
      if (t.is_float()) {
        facc += t.floats[k];
        out.floats[k] = static_cast<float>(facc);
      } else {
        iacc = static_cast<int64_t>(static_cast<uint64_t>(iacc) + static_cast<uint64_t>(t.ints[k]));
        out.ints[k] = iacc;
      }
    }
  });
  return Value::of_tensor(std::move(out));
}

Value sort(const Call& c, bool values_too) {
  const HostTensor& t = c.tensor(0);
  int64_t d = dim_of(c, 1, t);
  int64_t n = t.sizes.empty() ? 1 : t.sizes[d];
  return ordered(c, t, d, c.flag(2), n, values_too);
}

Value topk(const Call& c) {
  const HostTensor& t = c.tensor(0);
  require_not_bool(c, t);
  int64_t d = dim_of(c, 2, t);
  int64_t n = t.sizes.empty() ? 1 : t.sizes[d];
  int64_t k = c.integer(1);
  if (k < 0 || k > n) {
    c.fail(UserErrorKind::kIndex, "k " + std::to_string(k) + " is out of range for dim " +
                                      std::to_string(d) + " of shape " + shape_str(t.sizes));
  }
  return ordered(c, t, d, c.flag(3), k, true);
}

Value histc(const Call& c) {
  const HostTensor& t = c.tensor(0);
  if (!t.is_float())
    c.fail(UserErrorKind::kInvalidProgram, "input must be f32, got " + c.arg(0).describe());
  int64_t bins = c.integer(1);
  if (bins <= 0) c.fail(UserErrorKind::kValue, "bins must be > 0, got " + std::to_string(bins));
  // PyTorch computes the edges in the input's dtype.
  float lo = static_cast<float>(operand_as(c.scalar(2), DType::kFloat32).floats[0]);
  float hi = static_cast<float>(operand_as(c.scalar(3), DType::kFloat32).floats[0]);
  if (lo > hi) c.fail(UserErrorKind::kValue, "max must be larger than min");
  if (lo == hi && t.numel() > 0) {  // the data's range (NaN if any element is NaN)
    lo = hi = t.floats[0];
    for (float v : t.floats) {
      if (std::isnan(v) || std::isnan(lo)) {
        lo = hi = NAN;
        continue;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    c.fail(UserErrorKind::kValue,
           "range of [" + std::to_string(lo) + ", " + std::to_string(hi) + "] is not finite");
  }
  HostTensor out = alloc(c, DType::kFloat32, {bins});
  for (float v : t.floats) {
    if (!(v >= lo && v <= hi)) continue;
    float scaled = (v - lo) * static_cast<float>(bins) / (hi - lo);
    // A range too wide or too narrow for f32 (hi - lo overflows, or lo -= 1 rounds back) gives
    // no finite position: such an element falls in no bin (PyTorch's arithmetic is undefined).
    if (!std::isfinite(scaled)) continue;
    int64_t pos = std::clamp<int64_t>(static_cast<int64_t>(scaled), 0, bins - 1);
    out.floats[pos] += 1.0f;
  }
  return Value::of_tensor(std::move(out));
}

Value searchsorted(const Call& c) {
  const HostTensor& seq = c.tensor(0);
  const HostTensor& values = c.tensor(1);
  if (seq.dtype != values.dtype || seq.dtype == DType::kBool) {
    c.fail(UserErrorKind::kInvalidProgram,
           "sorted_sequence and values must have the same f32 or i64 dtype, got " +
               c.arg(0).describe() + " and " + c.arg(1).describe());
  }
  size_t rank = seq.sizes.size();
  if (rank == 0) c.fail(UserErrorKind::kShape, "sorted_sequence must have a dim");
  bool rows = rank > 1;
  if (rows && (values.sizes.size() != rank ||
               !std::equal(seq.sizes.begin(), seq.sizes.end() - 1, values.sizes.begin()))) {
    c.fail(UserErrorKind::kShape, "the leading dims of sorted_sequence " + shape_str(seq.sizes) +
                                      " and values " + shape_str(values.sizes) + " must match");
  }
  bool right = c.flag(2);
  int64_t n = seq.sizes.back();
  int64_t per_row = values.sizes.empty() ? 1 : values.sizes.back();
  HostTensor out = alloc(c, DType::kInt64, values.sizes);
  for (int64_t k = 0; k < values.numel(); ++k) {
    int64_t first = rows ? (k / per_row) * n : 0;
    out.ints[k] = bound(seq, first, n, values, k, right);
  }
  return Value::of_tensor(std::move(out));
}

}  // namespace sf::eager::internal
