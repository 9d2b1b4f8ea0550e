// Value trees that binding discovery walks: None, Sym scalars (constants included), tuples and
// tensor-like objects exposing sizes, strides and a storage offset (spec §2.6).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/shape_env/sym_value.h"

namespace sf {

class Value;

// Anything with tensor metadata. FakeTensor implements this; tests use small stand-ins.
class TensorLike {
 public:
  virtual ~TensorLike() = default;
  virtual const std::vector<SymInt>& sizes() const = 0;
  virtual const std::vector<SymInt>& strides() const = 0;
  virtual const SymInt& storage_offset() const = 0;
  // Inner tensors of a wrapper subclass (InnerTensorKey); plain tensors have none.
  virtual std::vector<std::pair<std::string, Value>> inner_tensors() const;
  virtual std::string describe() const;
};

class Value {
 public:
  enum class Kind { kNone, kInt, kFloat, kBool, kTuple, kTensor };

  Value() = default;  // None
  Value(SymInt v);    // NOLINT
  Value(SymFloat v);  // NOLINT
  Value(SymBool v);   // NOLINT
  static Value tuple(std::vector<Value> elems);
  static Value tensor(std::shared_ptr<const TensorLike> t);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  // Int/Float/Bool: the raw expression (a number or BoolConst when constant).
  const ExprRef& expr() const { return expr_; }
  SymInt as_int() const;
  SymFloat as_float() const;
  SymBool as_bool() const;
  const std::vector<Value>& elems() const { return elems_; }
  const std::shared_ptr<const TensorLike>& tensor() const { return tensor_; }
  // True for Int/Float/Bool holding a plain number (no symbols).
  bool is_constant_scalar() const;
  std::string str() const;

 private:
  Kind kind_ = Kind::kNone;
  ExprRef expr_;
  std::vector<Value> elems_;
  std::shared_ptr<const TensorLike> tensor_;
};

// A minimal TensorLike with given metadata (tests, and IR-derived fake inputs).
class TensorMeta : public TensorLike {
 public:
  TensorMeta(std::vector<SymInt> sizes, std::vector<SymInt> strides, SymInt offset = 0);
  // Contiguous strides for the given sizes.
  static std::shared_ptr<TensorMeta> contiguous(std::vector<SymInt> sizes);
  const std::vector<SymInt>& sizes() const override { return sizes_; }
  const std::vector<SymInt>& strides() const override { return strides_; }
  const SymInt& storage_offset() const override { return offset_; }

 private:
  std::vector<SymInt> sizes_, strides_;
  SymInt offset_;
};

}  // namespace sf
