// FakeTensor: tensor metadata with symbolic sizes/strides/offset, a dtype, a version counter
// shared with its views, and the unbacked memos (nonzero/item/unique) of spec §4.1.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/program/ast.h"
#include "engine/shape_env/value.h"

namespace sf::fake {

using program::DType;

// The storage a tensor and its views share; the version counter lives here (PyTorch semantics:
// an in-place op on a view bumps the base's version too).
struct Storage {
  int64_t id = 0;
  int64_t version = 0;
};

// A memoized data-dependent result, valid only for the same tensor version and fake-mode epoch.
struct Memo {
  std::optional<Value> value;
  int64_t version = -1;
  int64_t epoch = -1;
};

class FakeTensor : public TensorLike {
 public:
  FakeTensor(DType dtype, std::vector<SymInt> sizes, std::vector<SymInt> strides, SymInt offset,
             std::shared_ptr<Storage> storage);

  DType dtype() const { return dtype_; }
  const std::vector<SymInt>& sizes() const override { return sizes_; }
  const std::vector<SymInt>& strides() const override { return strides_; }
  const SymInt& storage_offset() const override { return offset_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  SymInt numel() const;
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  int64_t version() const { return storage_->version; }
  void bump_version() const { ++storage_->version; }
  std::string describe() const override;  // "f32[u0, 4]"
  std::string type_str() const;           // same, without strides

  // Memos are mutable metadata on an otherwise immutable value (like PyTorch's descriptors).
  mutable Memo nonzero_memo, item_memo, unique_memo, unique_consecutive_memo;

 private:
  DType dtype_;
  std::vector<SymInt> sizes_, strides_;
  SymInt offset_;
  std::shared_ptr<Storage> storage_;
};

using FakeTensorPtr = std::shared_ptr<const FakeTensor>;

// The FakeTensor inside a Value (SF_CHECKs that it is one).
const FakeTensor& fake_of(const Value& v);
FakeTensorPtr fake_ptr(const Value& v);
bool is_fake_tensor(const Value& v);

}  // namespace sf::fake
