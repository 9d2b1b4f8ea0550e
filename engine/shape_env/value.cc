// Value trees and the plain TensorMeta.
#include "engine/shape_env/value.h"

#include "engine/base/check.h"

namespace sf {

std::vector<std::pair<std::string, Value>> TensorLike::inner_tensors() const { return {}; }

std::string TensorLike::describe() const {
  std::string out = "Tensor(size=[";
  for (size_t i = 0; i < sizes().size(); ++i) out += (i ? ", " : "") + sizes()[i].str();
  out += "], stride=[";
  for (size_t i = 0; i < strides().size(); ++i) out += (i ? ", " : "") + strides()[i].str();
  out += "], offset=" + storage_offset().str() + ")";
  return out;
}

Value::Value(SymInt v) : kind_(Kind::kInt), expr_(v.expr()) {}
Value::Value(SymFloat v) : kind_(Kind::kFloat), expr_(v.expr()) {}
Value::Value(SymBool v) : kind_(Kind::kBool), expr_(v.expr()) {}

Value Value::tuple(std::vector<Value> elems) {
  Value v;
  v.kind_ = Kind::kTuple;
  v.elems_ = std::move(elems);
  return v;
}

Value Value::tensor(std::shared_ptr<const TensorLike> t) {
  SF_CHECK(t) << "null tensor";
  Value v;
  v.kind_ = Kind::kTensor;
  v.tensor_ = std::move(t);
  return v;
}

SymInt Value::as_int() const {
  SF_CHECK(kind_ == Kind::kInt) << "not an int: " << str();
  return SymInt(expr_);
}
SymFloat Value::as_float() const {
  SF_CHECK(kind_ == Kind::kFloat) << "not a float: " << str();
  return SymFloat(expr_);
}
SymBool Value::as_bool() const {
  SF_CHECK(kind_ == Kind::kBool) << "not a bool: " << str();
  return SymBool(expr_);
}

bool Value::is_constant_scalar() const {
  return (kind_ == Kind::kInt || kind_ == Kind::kFloat || kind_ == Kind::kBool) &&
         expr_->is_ground();
}

std::string Value::str() const {
  switch (kind_) {
    case Kind::kNone:
      return "None";
    case Kind::kInt:
    case Kind::kFloat:
    case Kind::kBool:
      return expr_->str();
    case Kind::kTuple: {
      std::string out = "(";
      for (size_t i = 0; i < elems_.size(); ++i) out += (i ? ", " : "") + elems_[i].str();
      return out + (elems_.size() == 1 ? ",)" : ")");
    }
    case Kind::kTensor:
      return tensor_->describe();
  }
  return "?";
}

TensorMeta::TensorMeta(std::vector<SymInt> sizes, std::vector<SymInt> strides, SymInt offset)
    : sizes_(std::move(sizes)), strides_(std::move(strides)), offset_(std::move(offset)) {
  SF_CHECK(sizes_.size() == strides_.size()) << "rank mismatch between sizes and strides";
}

std::shared_ptr<TensorMeta> TensorMeta::contiguous(std::vector<SymInt> sizes) {
  std::vector<SymInt> strides(sizes.size(), SymInt(1));
  // Like PyTorch, a zero-size dim does not zero the strides before it: multiply by max(size, 1).
  for (size_t i = sizes.size(); i-- > 1;) strides[i - 1] = strides[i] * sym_max(sizes[i], 1);
  return std::make_shared<TensorMeta>(std::move(sizes), std::move(strides), SymInt(0));
}

}  // namespace sf
