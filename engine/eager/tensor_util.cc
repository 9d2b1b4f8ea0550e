// Shapes, dims, allocation, promotion, casts and strided gathers for the eager op families.
#include "engine/eager/tensor_util.h"

#include <cmath>

#include "engine/base/check.h"
#include "engine/program/elementwise.h"

namespace sf::eager::internal {

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

int64_t checked_numel(const Call& c, const Shape& sizes) {
  int64_t n = 1;
  bool too_big = false;
  for (int64_t s : sizes) {
    SF_CHECK(s >= 0) << "negative size in " << shape_str(sizes);
    if (s == 0) return 0;
    if (__builtin_mul_overflow(n, s, &n) || n > kMaxElements) too_big = true;
  }
  if (too_big) {
    c.fail(UserErrorKind::kTooComplex, "a tensor of shape " + shape_str(sizes) +
                                           " exceeds the eager limit of " +
                                           std::to_string(kMaxElements) + " elements");
  }
  return n;
}

HostTensor alloc(const Call& c, DType dtype, Shape sizes) {
  checked_numel(c, sizes);
  return HostTensor::zeros(dtype, std::move(sizes));
}

int64_t wrap_dim(const Call& c, int64_t dim, int64_t rank, bool allow_scalar) {
  if (rank == 0 && !allow_scalar) {
    c.fail(UserErrorKind::kShape,
           "cannot be applied to a 0-dim tensor (dim " + std::to_string(dim) + ")");
  }
  int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) {
    c.fail(UserErrorKind::kShape, "dim " + std::to_string(dim) +
                                      " out of range for a tensor of rank " + std::to_string(rank) +
                                      " (expected [" + std::to_string(-r) + ", " +
                                      std::to_string(r - 1) + "])");
  }
  return dim < 0 ? dim + r : dim;
}

int64_t wrap_new_dim(const Call& c, int64_t dim, int64_t rank) {
  if (dim < -rank - 1 || dim > rank) {
    c.fail(UserErrorKind::kShape,
           "dim " + std::to_string(dim) + " out of range for a new dim of a tensor of rank " +
               std::to_string(rank) + " (expected [" + std::to_string(-rank - 1) + ", " +
               std::to_string(rank) + "])");
  }
  return dim < 0 ? dim + rank + 1 : dim;
}

Shape contiguous_strides(const Shape& sizes) {
  Shape strides(sizes.size());
  int64_t acc = 1;
  for (size_t k = sizes.size(); k-- > 0;) {
    strides[k] = acc;
    acc *= std::max<int64_t>(sizes[k], 1);
  }
  return strides;
}

Shape strides_of(const Value& v) {
  return v.view_strides.empty() ? contiguous_strides(v.tensor->sizes) : v.view_strides;
}

DType result_type(const std::vector<const Value*>& operands) {
  std::vector<DType> tensors, scalars;
  for (const Value* v : operands) {
    if (v->is_tensor()) {
      tensors.push_back(v->tensor->dtype);
      continue;
    }
    SF_CHECK(v->is_scalar()) << v->describe();
    scalars.push_back(v->kind == Value::Kind::kBool  ? DType::kBool
                      : v->kind == Value::Kind::kInt ? DType::kInt64
                                                     : DType::kFloat32);
  }
  return program::result_type(tensors, scalars);
}

int64_t float_to_int(double v) { return program::float_to_int(v); }

HostTensor scalar_tensor(const Value& v, DType dtype) {
  HostTensor t = HostTensor::zeros(dtype, {});
  switch (v.kind) {
    case Value::Kind::kInt:
      if (dtype == DType::kFloat32)
        t.floats[0] = static_cast<float>(v.i);
      else
        t.ints[0] = dtype == DType::kBool ? (v.i != 0) : v.i;
      break;
    case Value::Kind::kBool:
      if (dtype == DType::kFloat32)
        t.floats[0] = v.b ? 1.0f : 0.0f;
      else
        t.ints[0] = v.b;
      break;
    case Value::Kind::kFloat:
      if (dtype == DType::kFloat32)
        t.floats[0] = static_cast<float>(v.f);
      else
        t.ints[0] = dtype == DType::kBool ? (v.f != 0.0) : float_to_int(v.f);
      break;
    case Value::Kind::kNone:
    case Value::Kind::kTensor:
    case Value::Kind::kTuple:
    case Value::Kind::kDType:
    case Value::Kind::kStr:
      SF_UNREACHABLE() << "scalar_tensor of " << v.describe();
  }
  return t;
}

HostTensor cast(const HostTensor& t, DType dtype) {
  if (t.dtype == dtype) return t;
  HostTensor out = HostTensor::zeros(dtype, t.sizes);
  int64_t n = t.numel();
  for (int64_t k = 0; k < n; ++k) {
    if (dtype == DType::kFloat32) {
      out.floats[k] = static_cast<float>(t.ints[k]);
    } else if (dtype == DType::kBool) {
      out.ints[k] = truthy(t, k);
    } else if (t.is_float()) {
      out.ints[k] = float_to_int(t.floats[k]);
    } else {
      out.ints[k] = t.ints[k];
    }
  }
  return out;
}

HostTensor operand_as(const Value& v, DType dtype) {
  return v.is_tensor() ? cast(*v.tensor, dtype) : scalar_tensor(v, dtype);
}

void require_bool_mask(const Call& c, size_t i) {
  if (c.tensor(i).dtype != DType::kBool) {
    c.fail(UserErrorKind::kInvalidProgram,
           "mask must be a bool tensor, got " + c.arg(i).describe());
  }
}

bool sorts_before(const HostTensor& t, int64_t x, int64_t y) {
  if (!t.is_float()) return t.ints[x] < t.ints[y];
  float a = t.floats[x], b = t.floats[y];
  if (std::isnan(a)) return false;
  return std::isnan(b) || a < b;
}

bool truthy(const HostTensor& t, int64_t i) {
  return t.is_float() ? t.floats[i] != 0.0f : t.ints[i] != 0;  // NaN != 0 is true
}

Shape broadcast_shapes(const Call& c, const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    int64_t size = 1;
    for (const Shape& s : shapes) {
      if (d + s.size() < rank) continue;  // s has no dim aligned with output dim d
      int64_t v = s[d + s.size() - rank];
      if (v == 1) continue;
      if (size != 1 && v != size) {
        std::string all;
        for (size_t k = 0; k < shapes.size(); ++k) {
          all += (k == 0 ? "" : k + 1 == shapes.size() ? " and " : ", ") + shape_str(shapes[k]);
        }
        c.fail(UserErrorKind::kShape, "cannot broadcast dim " + std::to_string(d) + ": " +
                                          std::to_string(size) + " vs " + std::to_string(v) +
                                          " (shapes " + all + ")");
      }
      size = v;
    }
    out[d] = size;
  }
  return out;
}

Shape broadcast_strides(const Shape& out, const Shape& in) {
  Shape in_strides = contiguous_strides(in);
  Shape strides(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) {
    strides[lead + d] = in[d] == 1 ? 0 : in_strides[d];
  }
  return strides;
}

std::vector<int64_t> strided_offsets(const Shape& sizes, const Shape& strides, int64_t offset) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> out;
  out.reserve(n);
  if (n == 0) return out;
  Shape idx(sizes.size(), 0);
  int64_t pos = offset;
  for (int64_t k = 0; k < n; ++k) {
    out.push_back(pos);
    for (size_t d = sizes.size(); d-- > 0;) {  // odometer increment, last dim fastest
      pos += strides[d];
      if (++idx[d] < sizes[d]) break;
      pos -= strides[d] * sizes[d];
      idx[d] = 0;
    }
  }
  return out;
}

HostTensor gather(const Call& c, const HostTensor& src, Shape sizes,
                  const std::vector<int64_t>& src_index) {
  HostTensor out = alloc(c, src.dtype, std::move(sizes));
  SF_CHECK(static_cast<int64_t>(src_index.size()) == out.numel());
  for (size_t k = 0; k < src_index.size(); ++k) {
    if (src.is_float()) {
      out.floats[k] = src.floats[src_index[k]];
    } else {
      out.ints[k] = src.ints[src_index[k]];
    }
  }
  return out;
}

HostTensor take_rows(const Call& c, const HostTensor& t, int64_t d,
                     const std::vector<int64_t>& rows) {
  Shape sizes = t.sizes;
  sizes[d] = static_cast<int64_t>(rows.size());
  // An empty result may still have a huge outer extent ([2**62, 0] with no rows): copy nothing.
  if (checked_numel(c, sizes) == 0) return gather(c, t, sizes, {});
  int64_t outer = 1, inner = 1;
  for (int64_t e = 0; e < d; ++e) outer *= t.sizes[e];
  for (size_t e = d + 1; e < t.sizes.size(); ++e) inner *= t.sizes[e];
  std::vector<int64_t> src;
  src.reserve(outer * rows.size() * inner);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t r : rows) {
      for (int64_t i = 0; i < inner; ++i) src.push_back((o * t.sizes[d] + r) * inner + i);
    }
  }
  return gather(c, t, sizes, src);
}

HostTensor strided_copy(const Call& c, const HostTensor& src, Shape sizes, const Shape& strides,
                        int64_t offset) {
  checked_numel(c, sizes);
  std::vector<int64_t> index = strided_offsets(sizes, strides, offset);
  return gather(c, src, std::move(sizes), index);
}

}  // namespace sf::eager::internal
