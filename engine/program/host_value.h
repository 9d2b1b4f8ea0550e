// Concrete host values: dense row-major tensors and scalars. Program inputs, eager results and
// backend outputs all use these, so results can be compared exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/program/ast.h"

namespace sf::program {

struct HostTensor {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> sizes;
  std::vector<int64_t> ints;  // bool (0/1) and i64 data, row-major
  std::vector<float> floats;  // f32 data, row-major

  int64_t numel() const;
  bool is_float() const { return dtype == DType::kFloat32; }
  // Sizes are >= 0 and the data vector of the dtype holds exactly numel() elements.
  bool well_formed() const;
  // Element i (row-major) as a double / int64 regardless of dtype.
  double at_double(int64_t i) const {
    return is_float() ? floats[i] : static_cast<double>(ints[i]);
  }
  int64_t at_int(int64_t i) const { return is_float() ? static_cast<int64_t>(floats[i]) : ints[i]; }
  static HostTensor zeros(DType dtype, std::vector<int64_t> sizes);
  std::string str(size_t max_elems = 16) const;  // "i64[2, 3] [1, 2, 3, 4, 5, 6]"
};

// Row i of a tensor of rank >= 1 (its sizes without the first), and the rows stacked back into
// a tensor of `dtype` whose rows have sizes `row_sizes` (map's slices and stacked outputs).
HostTensor row_of(const HostTensor& t, int64_t i);
HostTensor stack_rows(const std::vector<HostTensor>& rows, DType dtype,
                      const std::vector<int64_t>& row_sizes);

// `t` with its dim `from` moved to position `to`, the others keeping their order (torch's
// movedim), as a dense copy: associative_scan goes over the rows of any dim this way.
HostTensor move_dim(const HostTensor& t, int64_t from, int64_t to);

struct HostValue;
// Why `v` cannot be given for a tensor input of this dtype and rank ("" when it can): not a
// tensor, another dtype or rank, or data that does not match its sizes. Shared by every entry
// point that takes inputs (plan runner, CompiledProgram).
std::string tensor_input_mismatch(const HostValue& v, DType dtype, size_t rank);

struct HostValue {
  enum class Kind { kNone, kTensor, kInt, kFloat, kBool, kTuple };
  Kind kind = Kind::kNone;
  HostTensor tensor;
  int64_t i = 0;
  double f = 0.0;
  bool b = false;
  std::vector<HostValue> elems;

  static HostValue of_tensor(HostTensor t);
  static HostValue of_int(int64_t v);
  static HostValue of_float(double v);
  static HostValue of_bool(bool v);
  static HostValue tuple(std::vector<HostValue> elems);
  std::string str() const;
};

}  // namespace sf::program
