// Internal interface of the eager interpreter: runtime values (tensors behind shared storage so
// add_ is seen through every alias), bound call arguments, and the per-family op entry points.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/program/ast.h"
#include "engine/program/elementwise.h"
#include "engine/program/host_value.h"

namespace sf::eager::internal {

using program::DType;
using program::HostTensor;
using program::OpKind;
using TensorPtr = std::shared_ptr<HostTensor>;

struct Value {
  // kDType and kStr exist only as call arguments (dtype and str parameters).
  enum class Kind { kNone, kTensor, kInt, kFloat, kBool, kTuple, kDType, kStr };
  Kind kind = Kind::kNone;
  TensorPtr tensor;  // kTensor: shared, so `b = a` then `add_(a, 1)` changes b too
  int64_t i = 0;
  double f = 0.0;
  bool b = false;
  DType dtype = DType::kFloat32;
  std::string str;
  std::vector<Value> elems;  // kTuple
  // kTensor made by a view op: the strides PyTorch reports for it (the data itself is a copy).
  // Empty for every other tensor, whose strides are contiguous.
  std::vector<int64_t> view_strides;

  static Value of_tensor(HostTensor t);
  // A view's values (as a copy) with the strides the view has over its base.
  static Value of_view(HostTensor t, std::vector<int64_t> strides);
  static Value of_int(int64_t v);
  static Value of_float(double v);
  static Value of_bool(bool v);
  static Value tuple(std::vector<Value> elems);
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool is_scalar() const {
    return kind == Kind::kInt || kind == Kind::kFloat || kind == Kind::kBool;
  }
  // For messages: "i64[2, 3] tensor", "int 3", "float 0.5", "bool True", "tuple of 2".
  std::string describe() const;
};

// A call's arguments bound to its schema (one per parameter; kNone when absent) with typed
// accessors that raise invalid_program naming the op and the parameter.
class Call {
 public:
  Call(OpKind op, std::vector<Value> args) : op_(op), args_(std::move(args)) {}
  OpKind op() const { return op_; }
  const char* name() const;
  bool has(size_t i) const { return args_.at(i).kind != Value::Kind::kNone; }
  const Value& arg(size_t i) const { return args_.at(i); }

  const HostTensor& tensor(size_t i) const;
  const TensorPtr& tensor_ptr(size_t i) const;
  const Value& tensor_or_scalar(size_t i) const;
  const Value& scalar(size_t i) const;
  int64_t integer(size_t i) const;
  std::vector<int64_t> ints(size_t i) const;
  std::optional<std::vector<int64_t>> dims(size_t i) const;  // an int or a list; absent: nullopt
  std::vector<TensorPtr> tensors(size_t i) const;
  DType dtype(size_t i) const;
  bool flag(size_t i) const;

  // Throws UserError(kind) with the message prefixed by the op name ("add: ...").
  [[noreturn]] void fail(UserErrorKind kind, const std::string& message) const;

 private:
  [[noreturn]] void type_error(size_t i, const char* expected) const;
  OpKind op_;
  std::vector<Value> args_;
};

// Pointwise ops. Binary ops with two scalars go to scalar_binary. The element-level semantics
// are shared with the CPU backend (engine/program/elementwise.h).
using program::BinaryOp;
using program::UnaryOp;
Value binary(const Call& c, BinaryOp op);  // arguments 0 and 1
Value unary(const Call& c, UnaryOp op);    // argument 0
Value relu(const Call& c);
Value to_dtype(const Call& c);
Value where(const Call& c);
Value masked_fill(const Call& c);
Value add_inplace(const Call& c);
Value index_put_inplace(const Call& c);  // index_put.cc

// Scalar arithmetic (Python semantics) and scalar-valued ops.
Value scalar_binary(const Call& c, BinaryOp op, const Value& a, const Value& b);
Value scalar_unary(const Call& c, UnaryOp op, const Value& a);
Value size(const Call& c);
Value stride(const Call& c);
Value numel(const Call& c);

// Creation.
enum class FillKind { kZeros, kOnes, kFull };
Value fill(const Call& c, FillKind kind);
Value arange(const Call& c);

// Reductions.
enum class ReduceOp { kSum, kAmax, kAmin, kAny, kAll, kCountNonzero };
Value reduce(const Call& c, ReduceOp op);
// mm, bmm, matmul (contraction.cc).
Value contraction(const Call& c);

// Views (copies here: only values matter in eager).
Value view(const Call& c);  // view and reshape
Value permute(const Call& c);
Value transpose(const Call& c);
Value unsqueeze(const Call& c);
Value squeeze(const Call& c);
Value expand(const Call& c);
Value slice(const Call& c);
Value narrow(const Call& c);
Value select(const Call& c);
Value flatten(const Call& c);
Value split_with_sizes(const Call& c);
Value tensor_split(const Call& c);

// Joins and gathers.
Value cat(const Call& c);
Value stack(const Call& c);
Value index_select(const Call& c);
Value flip(const Call& c);
Value gather_op(const Call& c);  // (gather is tensor_util's helper)
Value embedding(const Call& c);
Value roll(const Call& c);
// copies.cc
Value repeat(const Call& c);
Value tile(const Call& c);
Value pad(const Call& c);
Value scatter_add(const Call& c);
Value index_add(const Call& c);

// Ordering, scanning and counting along a dim (sorting.cc).
Value arg_extremum(const Call& c, bool max);  // argmax, argmin
Value cumsum(const Call& c);
Value sort(const Call& c, bool values_too);  // sort; argsort without the values
Value topk(const Call& c);
Value histc(const Call& c);
Value searchsorted(const Call& c);

// Data-dependent ops.
Value nonzero(const Call& c);
Value index(const Call& c);
Value masked_select(const Call& c);
Value unique(const Call& c);  // and unique_consecutive
Value unique_dim(const Call& c);
Value bincount(const Call& c);
Value one_hot(const Call& c);
Value item(const Call& c);
Value tolist(const Call& c);
Value repeat_interleave(const Call& c);

// Any op on concrete values (dispatch.cc): the one switch over every op, so a new op in ops.def
// fails to compile there until eager computes it (-Werror=switch).
Value dispatch(const Call& c);

}  // namespace sf::eager::internal
