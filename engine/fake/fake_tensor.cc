// FakeTensor metadata and printing.
#include "engine/fake/fake_tensor.h"

#include "engine/base/check.h"

namespace sf::fake {

FakeTensor::FakeTensor(DType dtype, std::vector<SymInt> sizes, std::vector<SymInt> strides,
                       SymInt offset, std::shared_ptr<Storage> storage)
    : dtype_(dtype),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      offset_(std::move(offset)),
      storage_(std::move(storage)) {
  SF_CHECK(sizes_.size() == strides_.size()) << "rank mismatch in FakeTensor";
  SF_CHECK(storage_) << "FakeTensor without storage";
}

SymInt FakeTensor::numel() const {
  SymInt n = 1;
  for (const SymInt& s : sizes_) n = n * s;
  return n;
}

std::string FakeTensor::type_str() const {
  std::string out = program::dtype_name(dtype_);
  out += "[";
  for (size_t i = 0; i < sizes_.size(); ++i) out += (i ? ", " : "") + sizes_[i].str();
  return out + "]";
}

std::string FakeTensor::describe() const {
  std::string out = type_str();
  bool trivial_offset = offset_.is_constant() && offset_.as_int() == 0;
  out += " stride=[";
  for (size_t i = 0; i < strides_.size(); ++i) out += (i ? ", " : "") + strides_[i].str();
  out += "]";
  if (!trivial_offset) out += " offset=" + offset_.str();
  return out;
}

bool is_fake_tensor(const Value& v) {
  return v.kind() == Value::Kind::kTensor &&
         dynamic_cast<const FakeTensor*>(v.tensor().get()) != nullptr;
}

const FakeTensor& fake_of(const Value& v) {
  SF_CHECK(is_fake_tensor(v)) << "not a fake tensor: " << v.str();
  return static_cast<const FakeTensor&>(*v.tensor());
}

FakeTensorPtr fake_ptr(const Value& v) {
  SF_CHECK(is_fake_tensor(v)) << "not a fake tensor: " << v.str();
  return std::static_pointer_cast<const FakeTensor>(v.tensor());
}

}  // namespace sf::fake
