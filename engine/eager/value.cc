// Runtime values and typed access to bound call arguments (type errors are invalid_program).
#include <sstream>

#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"
#include "engine/program/schema.h"

namespace sf::eager::internal {

Value Value::of_tensor(HostTensor t) {
  Value v;
  v.kind = Kind::kTensor;
  v.tensor = std::make_shared<HostTensor>(std::move(t));
  return v;
}
Value Value::of_view(HostTensor t, std::vector<int64_t> strides) {
  Value v = of_tensor(std::move(t));
  v.view_strides = std::move(strides);
  return v;
}

Value Value::of_int(int64_t x) {
  Value v;
  v.kind = Kind::kInt;
  v.i = x;
  return v;
}
Value Value::of_float(double x) {
  Value v;
  v.kind = Kind::kFloat;
  v.f = x;
  return v;
}
Value Value::of_bool(bool x) {
  Value v;
  v.kind = Kind::kBool;
  v.b = x;
  return v;
}
Value Value::tuple(std::vector<Value> elems) {
  Value v;
  v.kind = Kind::kTuple;
  v.elems = std::move(elems);
  return v;
}

std::string Value::describe() const {
  switch (kind) {
    case Kind::kNone:
      return "None";
    case Kind::kTensor:
      return std::string(program::dtype_name(tensor->dtype)) + shape_str(tensor->sizes) + " tensor";
    case Kind::kInt:
      return "int " + std::to_string(i);
    case Kind::kFloat: {
      std::ostringstream out;
      out << "float " << f;
      return out.str();
    }
    case Kind::kBool:
      return b ? "bool True" : "bool False";
    case Kind::kTuple:
      return "tuple of " + std::to_string(elems.size());
    case Kind::kDType:
      return std::string("dtype ") + program::dtype_name(dtype);
    case Kind::kStr:
      return "string \"" + str + "\"";
  }
  return "?";
}

const char* Call::name() const { return program::op_name(op_); }

void Call::fail(UserErrorKind kind, const std::string& message) const {
  throw_user_error(kind, std::string(name()) + ": " + message);
}

void Call::type_error(size_t i, const char* expected) const {
  fail(UserErrorKind::kInvalidProgram, "argument '" + program::schema(op_).params.at(i).name +
                                           "' must be " + expected + ", got " +
                                           args_.at(i).describe());
}

const HostTensor& Call::tensor(size_t i) const { return *tensor_ptr(i); }

const TensorPtr& Call::tensor_ptr(size_t i) const {
  if (!arg(i).is_tensor()) type_error(i, "a tensor");
  return arg(i).tensor;
}

const Value& Call::tensor_or_scalar(size_t i) const {
  if (!arg(i).is_tensor() && !arg(i).is_scalar()) type_error(i, "a tensor or a scalar");
  return arg(i);
}

const Value& Call::scalar(size_t i) const {
  if (!arg(i).is_scalar()) type_error(i, "a scalar (int, float or bool)");
  return arg(i);
}

int64_t Call::integer(size_t i) const {
  if (arg(i).kind != Value::Kind::kInt) type_error(i, "an int");
  return arg(i).i;
}

std::vector<int64_t> Call::ints(size_t i) const {
  const Value& v = arg(i);
  if (v.kind != Value::Kind::kTuple) type_error(i, "a list of ints");
  std::vector<int64_t> out;
  for (const Value& e : v.elems) {
    if (e.kind != Value::Kind::kInt) type_error(i, "a list of ints");
    out.push_back(e.i);
  }
  return out;
}

std::optional<std::vector<int64_t>> Call::dims(size_t i) const {
  if (!has(i)) return std::nullopt;
  if (arg(i).kind == Value::Kind::kInt) return std::vector<int64_t>{arg(i).i};
  return ints(i);
}

std::vector<TensorPtr> Call::tensors(size_t i) const {
  const Value& v = arg(i);
  if (v.kind != Value::Kind::kTuple) type_error(i, "a list of tensors");
  std::vector<TensorPtr> out;
  for (const Value& e : v.elems) {
    if (!e.is_tensor()) type_error(i, "a list of tensors");
    out.push_back(e.tensor);
  }
  return out;
}

DType Call::dtype(size_t i) const {
  if (arg(i).kind != Value::Kind::kDType) type_error(i, "a dtype (f32, i64 or bool)");
  return arg(i).dtype;
}

bool Call::flag(size_t i) const {
  if (arg(i).kind != Value::Kind::kBool) type_error(i, "True or False");
  return arg(i).b;
}

}  // namespace sf::eager::internal
