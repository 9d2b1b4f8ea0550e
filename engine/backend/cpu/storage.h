// Host buffers for the CPU backend: typed flat storage and layout-directed copies.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/backend/runner.h"
#include "engine/program/host_value.h"

namespace sf::backend::cpu {

struct Storage {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> ints;  // bool (0/1) and i64
  std::vector<float> floats;  // f32
  int64_t size() const { return dtype == DType::kFloat32 ? static_cast<int64_t>(floats.size())
                                                         : static_cast<int64_t>(ints.size()); }
  static Storage of(DType dtype, int64_t numel);
  static Storage of_host(const program::HostTensor& t);
};

// The element offsets of a strided walk over `sizes` (row-major), starting at `offset`.
std::vector<int64_t> strided_offsets(const std::vector<int64_t>& sizes,
                                     const std::vector<int64_t>& strides, int64_t offset);
// Materializes a layout over a storage as a dense row-major host tensor.
program::HostTensor gather_layout(const Storage& s, const ResolvedLayout& l);

}  // namespace sf::backend::cpu
