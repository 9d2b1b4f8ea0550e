// Internal to codegen: emission of a kernel body (a KExpr tree) as CUDA C statements, one
// variable per node, in the CPU interpreter's evaluation order so runtime errors rank alike.
#pragma once

#include <string>
#include <vector>

#include "engine/backend/cuda/codegen.h"

namespace sf::backend::cuda::detail {

// C type of a value of `d` in registers (bool, sf_i64, float) and in device memory.
const char* value_type(program::DType d);
const char* storage_type(program::DType d);
// C expression converting `v` from `from` to `to` as the CPU backend's casts do.
std::string convert(const std::string& v, program::DType from, program::DType to);

class BodyEmitter {
 public:
  // `code` already has rank and num_inputs; scalars and gathers are registered in slot order.
  // `offset_var(i)` names input i's element offset (type I); `linear` the iteration point's
  // row-major linear index (sf_i64), used to rank errors.
  BodyEmitter(const lower::Kernel& k, KernelCode& code, std::string linear, std::string indent);

  // Registers the scalars and gathers of `e` in emission order (call once before emit).
  void collect(const lower::KExpr& e);
  // Appends the statements computing `e` and returns the variable holding it.
  std::string emit(const lower::KExpr& e);
  const std::string& statements() const { return out_; }
  // Inputs the body loads (their offsets must be computed).
  const std::vector<bool>& used_inputs() const { return used_; }
  int ordinals() const { return ordinal_; }  // error-capable nodes emitted so far

  // Loads of `inputs` without a gather read `pre<in><index>` (e.g. "pre0[u]"), a value the caller
  // loaded before the body, instead of memory (call before emit). The caller checks the access
  // and notes a bad read with plain_load_ordinal(in), the smallest ordinal of those loads (their
  // errors have the same key otherwise, so the smallest is the one the body would keep).
  void preload(const std::vector<bool>& inputs, std::string index);
  int plain_load_ordinal(int in) const { return plain_ordinal_.at(in); }  // -1: none

 private:
  std::string temp(program::DType d, const std::string& init);
  void line(const std::string& s) { out_ += indent_ + s + "\n"; }
  std::string fail(int ordinal, DeviceError code, int aux, const std::string& value);
  std::string emit_load(const lower::KExpr& e);
  std::string emit_unary(const lower::KExpr& e);
  std::string emit_binary(const lower::KExpr& e);

  const lower::Kernel& k_;
  KernelCode& code_;
  std::string linear_, indent_, out_;
  std::vector<bool> used_, preloaded_;
  std::string preload_index_;
  std::vector<int> plain_ordinal_;
  int temps_ = 0, ordinal_ = 0, next_scalar_ = 0, next_gather_ = 0;
};

}  // namespace sf::backend::cuda::detail
