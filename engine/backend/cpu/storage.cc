// CPU storage helpers.
#include "engine/backend/cpu/storage.h"

#include "engine/base/check.h"

namespace sf::backend::cpu {

Storage Storage::of(DType dtype, int64_t numel) {
  Storage s;
  s.dtype = dtype;
  if (dtype == DType::kFloat32) {
    s.floats.assign(numel, 0.0f);
  } else {
    s.ints.assign(numel, 0);
  }
  return s;
}

Storage Storage::of_host(const program::HostTensor& t) {
  Storage s;
  s.dtype = t.dtype;
  s.ints = t.ints;
  s.floats = t.floats;
  return s;
}

std::vector<int64_t> strided_offsets(const std::vector<int64_t>& sizes,
                                     const std::vector<int64_t>& strides, int64_t offset) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> out(n > 0 ? n : 0);
  if (n <= 0) return out;
  size_t rank = sizes.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t cur = offset;
  for (int64_t k = 0; k < n; ++k) {
    out[k] = cur;
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < sizes[d]) {
        cur += strides[d];
        break;
      }
      cur -= strides[d] * (sizes[d] - 1);
      idx[d] = 0;
    }
  }
  return out;
}

program::HostTensor gather_layout(const Storage& s, const ResolvedLayout& l) {
  program::HostTensor t = program::HostTensor::zeros(l.dtype, l.sizes);
  std::vector<int64_t> offs = strided_offsets(l.sizes, l.strides, l.offset);
  for (size_t k = 0; k < offs.size(); ++k) {
    SF_CHECK(offs[k] >= 0 && offs[k] < s.size())
        << "layout reads element " << offs[k] << " of a buffer of " << s.size();
    if (t.is_float()) {
      t.floats[k] = s.dtype == DType::kFloat32 ? s.floats[offs[k]] : static_cast<float>(s.ints[offs[k]]);
    } else {
      t.ints[k] = s.dtype == DType::kFloat32 ? static_cast<int64_t>(s.floats[offs[k]]) : s.ints[offs[k]];
    }
  }
  return t;
}

}  // namespace sf::backend::cpu
