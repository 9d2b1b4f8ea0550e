// Host tensors and values: construction and printing.
#include "engine/program/host_value.h"

#include <sstream>

namespace sf::program {

bool HostTensor::well_formed() const {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s < 0 || __builtin_mul_overflow(n, s, &n)) return false;
  }
  return static_cast<int64_t>(is_float() ? floats.size() : ints.size()) == n;
}

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

HostTensor row_of(const HostTensor& t, int64_t i) {
  HostTensor r;
  r.dtype = t.dtype;
  r.sizes.assign(t.sizes.begin() + 1, t.sizes.end());
  int64_t n = r.numel();
  if (t.is_float()) {
    r.floats.assign(t.floats.begin() + i * n, t.floats.begin() + (i + 1) * n);
  } else {
    r.ints.assign(t.ints.begin() + i * n, t.ints.begin() + (i + 1) * n);
  }
  return r;
}

HostTensor stack_rows(const std::vector<HostTensor>& rows, DType dtype,
                      const std::vector<int64_t>& row_sizes) {
  HostTensor t;
  t.dtype = dtype;
  t.sizes = {static_cast<int64_t>(rows.size())};
  t.sizes.insert(t.sizes.end(), row_sizes.begin(), row_sizes.end());
  for (const HostTensor& r : rows) {
    t.floats.insert(t.floats.end(), r.floats.begin(), r.floats.end());
    t.ints.insert(t.ints.end(), r.ints.begin(), r.ints.end());
  }
  return t;
}

HostTensor move_dim(const HostTensor& t, int64_t from, int64_t to) {
  const int64_t rank = static_cast<int64_t>(t.sizes.size());
  if (from == to) return t;
  // order[k]: the source dim that becomes dim k.
  std::vector<int64_t> order;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != from) order.push_back(d);
  }
  order.insert(order.begin() + to, from);
  std::vector<int64_t> src_strides(rank, 1);
  for (int64_t d = rank - 1; d > 0; --d) src_strides[d - 1] = src_strides[d] * t.sizes[d];
  HostTensor out;
  out.dtype = t.dtype;
  for (int64_t d : order) out.sizes.push_back(t.sizes[d]);
  const int64_t n = t.numel();
  std::vector<int64_t> index(rank, 0);  // the output element's index, row-major
  for (int64_t e = 0; e < n; ++e) {
    int64_t src = 0;
    for (int64_t k = 0; k < rank; ++k) src += index[k] * src_strides[order[k]];
    if (t.is_float()) {
      out.floats.push_back(t.floats[src]);
    } else {
      out.ints.push_back(t.ints[src]);
    }
    for (int64_t k = rank - 1; k >= 0 && ++index[k] == out.sizes[k]; --k) index[k] = 0;
  }
  return out;
}

HostTensor HostTensor::zeros(DType dtype, std::vector<int64_t> sizes) {
  HostTensor t;
  t.dtype = dtype;
  t.sizes = std::move(sizes);
  if (dtype == DType::kFloat32) {
    t.floats.assign(t.numel(), 0.0f);
  } else {
    t.ints.assign(t.numel(), 0);
  }
  return t;
}

std::string HostTensor::str(size_t max_elems) const {
  std::ostringstream out;
  out << dtype_name(dtype) << "[";
  for (size_t i = 0; i < sizes.size(); ++i) out << (i ? ", " : "") << sizes[i];
  out << "] [";
  int64_t n = numel();
  for (int64_t i = 0; i < n && static_cast<size_t>(i) < max_elems; ++i) {
    if (i) out << ", ";
    if (is_float()) {
      out << floats[i];
    } else if (dtype == DType::kBool) {
      out << (ints[i] ? "True" : "False");
    } else {
      out << ints[i];
    }
  }
  if (static_cast<size_t>(n) > max_elems) out << ", ...";
  out << "]";
  return out.str();
}

HostValue HostValue::of_tensor(HostTensor t) {
  HostValue v;
  v.kind = Kind::kTensor;
  v.tensor = std::move(t);
  return v;
}
HostValue HostValue::of_int(int64_t x) {
  HostValue v;
  v.kind = Kind::kInt;
  v.i = x;
  return v;
}
HostValue HostValue::of_float(double x) {
  HostValue v;
  v.kind = Kind::kFloat;
  v.f = x;
  return v;
}
HostValue HostValue::of_bool(bool x) {
  HostValue v;
  v.kind = Kind::kBool;
  v.b = x;
  return v;
}
HostValue HostValue::tuple(std::vector<HostValue> elems) {
  HostValue v;
  v.kind = Kind::kTuple;
  v.elems = std::move(elems);
  return v;
}

std::string tensor_input_mismatch(const HostValue& v, DType dtype, size_t rank) {
  std::string want = std::string(dtype_name(dtype)) + " tensor of rank " + std::to_string(rank);
  if (v.kind != HostValue::Kind::kTensor) return "expected a " + want + ", got " + v.str();
  const HostTensor& t = v.tensor;
  if (t.dtype != dtype) return "expected a " + want + ", got " + dtype_name(t.dtype);
  if (t.sizes.size() != rank) {
    return "expected a " + want + ", got rank " + std::to_string(t.sizes.size());
  }
  if (!t.well_formed()) {
    return "its data does not match the sizes " + t.str(0) + " (give one data element per entry)";
  }
  return "";
}

std::string HostValue::str() const {
  switch (kind) {
    case Kind::kNone:
      return "None";
    case Kind::kTensor:
      return tensor.str();
    case Kind::kInt:
      return std::to_string(i);
    case Kind::kFloat: {
      std::ostringstream out;
      out << f;
      return out.str();
    }
    case Kind::kBool:
      return b ? "True" : "False";
    case Kind::kTuple: {
      std::string out = "(";
      for (size_t k = 0; k < elems.size(); ++k) out += (k ? ", " : "") + elems[k].str();
      return out + (elems.size() == 1 ? ",)" : ")");
    }
  }
  return "?";
}

}  // namespace sf::program
