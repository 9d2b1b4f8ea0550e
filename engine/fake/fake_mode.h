// FakeMode: owns the link to the ShapeEnv, the epoch that invalidates unbacked memos on retrace
// (spec §4.3), inference mode, and the fakification of program inputs.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "engine/fake/fake_tensor.h"
#include "engine/program/ast.h"
#include "engine/shape_env/shape_env.h"

namespace sf::fake {

class FakeMode {
 public:
  explicit FakeMode(ShapeEnv* env) : env_(env) {}

  ShapeEnv& env() const { return *env_; }
  int64_t epoch() const { return epoch_; }
  // "Every time you retrace using the same fake mode, advance the epoch."
  void bump_epoch() { ++epoch_; }
  bool inference_mode = false;  // memos are never written (spec §4.1, issue #122127)

  // A fresh tensor with its own storage.
  FakeTensorPtr make_tensor(DType dtype, std::vector<SymInt> sizes, std::vector<SymInt> strides,
                            SymInt offset = 0);
  // A fresh contiguous tensor (strides multiply by max(size, 1), as PyTorch).
  FakeTensorPtr make_contiguous(DType dtype, std::vector<SymInt> sizes);
  // A view sharing `base`'s storage (and version counter).
  FakeTensorPtr make_view(const FakeTensor& base, std::vector<SymInt> sizes,
                          std::vector<SymInt> strides, SymInt offset, DType dtype);
  // `through_replacements` false: simplified with the ranges only (an input's strides, see
  // fakify_input).
  std::vector<SymInt> contiguous_strides(const std::vector<SymInt>& sizes,
                                         bool through_replacements = true) const;

  // Fakifies an input through the stateful symbolic context, so re-fakifying the same input in
  // a fresh FakeMode over the same ShapeEnv yields the same symbols.
  Value fakify_input(const program::InputDecl& decl, StatefulSymbolicContext* context);

  // Memo access with the version/epoch rule of spec §4.1.
  std::optional<Value> memo_get(const FakeTensor& t, Memo FakeTensor::*memo) const;
  void memo_set(const FakeTensor& t, Memo FakeTensor::*memo, const Value& v) const;

 private:
  ShapeEnv* env_;
  int64_t epoch_ = 0;
  int64_t next_storage_id_ = 0;
};

}  // namespace sf::fake
