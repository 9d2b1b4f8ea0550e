// Pointwise tensor ops: broadcasting binary ops with the weak-scalar promotion rule, unary ops,
// relu, casts, where, and the in-place add_. f32 arithmetic is done in float, i64 wraps.
#include <cmath>

#include "engine/base/check.h"
#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"
#include "engine/program/dtype_rules.h"
#include "engine/program/schema.h"

namespace sf::eager::internal {

namespace {

struct Spec {
  DType compute;  // both operands are cast to this
  DType out;
};

// The op's dtype rule (ops.def) applied to the promoted operand dtype.
Spec spec_for(program::DTypeRule rule, DType promoted) {
  return {program::compute_dtype(rule, promoted), program::result_dtype(rule, promoted)};
}

int64_t wrap(uint64_t v) { return static_cast<int64_t>(v); }

// The broadcast result of `a op b` (at least one a tensor), before any in-place cast.
HostTensor binary_tensors(const Call& c, BinaryOp op, program::DTypeRule rule, const Value& a,
                          const Value& b) {
  Spec s = spec_for(rule, result_type({&a, &b}));
  HostTensor x = operand_as(a, s.compute), y = operand_as(b, s.compute);
  Shape shape = broadcast_shapes(c, {x.sizes, y.sizes});
  HostTensor out = alloc(c, s.out, shape);
  std::vector<int64_t> xi = strided_offsets(shape, broadcast_strides(shape, x.sizes));
  std::vector<int64_t> yi = strided_offsets(shape, broadcast_strides(shape, y.sizes));
  bool zero = false;
  for (size_t k = 0; k < xi.size(); ++k) {
    if (s.compute == DType::kFloat32) {
      float r = program::float_binary(op, x.floats[xi[k]], y.floats[yi[k]]);
      if (out.is_float()) {
        out.floats[k] = r;
      } else {
        out.ints[k] = r != 0.0f;
      }
    } else {
      out.ints[k] = program::int_binary(op, x.ints[xi[k]], y.ints[yi[k]], &zero);
      if (zero) {
        c.fail(UserErrorKind::kZeroDivision,
               "integer division by zero (dividend " + x.str() + ", divisor " + y.str() + ")");
      }
    }
  }
  return out;
}

// PyTorch's refusal of arithmetic on bool tensors (dtype_rules.h), as an invalid_program error.
void refuse_bool_arithmetic(const Call& c, DType promoted, bool bool_operand = false) {
  std::string refused = program::bool_arithmetic_refusal(c.op(), promoted, bool_operand);
  if (!refused.empty()) c.fail(UserErrorKind::kInvalidProgram, refused);
}

}  // namespace

Value binary(const Call& c, BinaryOp op) {
  const Value& a = c.tensor_or_scalar(0);
  const Value& b = c.tensor_or_scalar(1);
  if (a.is_scalar() && b.is_scalar()) return scalar_binary(c, op, a, b);
  DType promoted = result_type({&a, &b});
  bool bool_operand = result_type({&a}) == DType::kBool || result_type({&b}) == DType::kBool;
  refuse_bool_arithmetic(c, promoted, bool_operand);
  HostTensor out = binary_tensors(c, op, program::schema(c.op()).dtype_rule, a, b);
  // add / mul of bools compute as i64 and stay bool (or / and).
  DType dtype = program::pointwise_result_dtype(c.op(), promoted);
  return Value::of_tensor(out.dtype == dtype ? std::move(out) : cast(out, dtype));
}

Value unary(const Call& c, UnaryOp op) {
  const Value& a = c.tensor_or_scalar(0);
  if (a.is_scalar()) return scalar_unary(c, op, a);
  const HostTensor& t = *a.tensor;
  switch (op) {
    case UnaryOp::kLogicalNot: {
      HostTensor out = alloc(c, DType::kBool, t.sizes);
      for (int64_t k = 0; k < t.numel(); ++k) out.ints[k] = !truthy(t, k);
      return Value::of_tensor(std::move(out));
    }
    case UnaryOp::kNeg:
    case UnaryOp::kAbs: {
      refuse_bool_arithmetic(c, t.dtype);
      HostTensor out = cast(t, program::result_dtype(program::schema(c.op()).dtype_rule, t.dtype));
      bool neg = op == UnaryOp::kNeg;
      for (int64_t k = 0; k < out.numel(); ++k) {
        if (out.is_float()) {
          out.floats[k] = neg ? -out.floats[k] : std::fabs(out.floats[k]);
        } else if (neg || out.ints[k] < 0) {
          out.ints[k] = wrap(0 - static_cast<uint64_t>(out.ints[k]));  // INT64_MIN stays
        }
      }
      return Value::of_tensor(std::move(out));
    }
  }
  SF_UNREACHABLE();
}

Value relu(const Call& c) {
  refuse_bool_arithmetic(c, c.tensor(0).dtype);
  // relu(a) = maximum(a, 0) with a weak int 0: NaN propagates.
  return Value::of_tensor(binary_tensors(c, BinaryOp::kMaximum, program::DTypeRule::kPromote,
                                         c.arg(0), Value::of_int(0)));
}

Value to_dtype(const Call& c) { return Value::of_tensor(cast(c.tensor(0), c.dtype(1))); }

Value where(const Call& c) {
  const HostTensor& cond = c.tensor(0);
  if (cond.dtype != DType::kBool) {
    c.fail(UserErrorKind::kInvalidProgram,
           "condition must be a bool tensor, got " + c.arg(0).describe());
  }
  const Value& a = c.tensor_or_scalar(1);
  const Value& b = c.tensor_or_scalar(2);
  DType dtype = result_type({&a, &b});
  HostTensor x = operand_as(a, dtype), y = operand_as(b, dtype);
  Shape shape = broadcast_shapes(c, {cond.sizes, x.sizes, y.sizes});
  std::vector<int64_t> ci = strided_offsets(shape, broadcast_strides(shape, cond.sizes));
  std::vector<int64_t> xi = strided_offsets(shape, broadcast_strides(shape, x.sizes));
  std::vector<int64_t> yi = strided_offsets(shape, broadcast_strides(shape, y.sizes));
  HostTensor out = alloc(c, dtype, shape);
  for (size_t k = 0; k < ci.size(); ++k) {
    bool pick_x = cond.ints[ci[k]] != 0;
    if (out.is_float()) {
      out.floats[k] = pick_x ? x.floats[xi[k]] : y.floats[yi[k]];
    } else {
      out.ints[k] = pick_x ? x.ints[xi[k]] : y.ints[yi[k]];
    }
  }
  return Value::of_tensor(std::move(out));
}

// masked_fill(a, mask, value): a and mask broadcast (PyTorch's out-of-place form expands both);
// the result keeps a's dtype, the value converted to it as `to` converts.
Value masked_fill(const Call& c) {
  const HostTensor& a = c.tensor(0);
  const HostTensor& mask = c.tensor(1);
  if (mask.dtype != DType::kBool) {
    c.fail(UserErrorKind::kInvalidProgram,
           "mask must be a bool tensor, got " + c.arg(1).describe());
  }
  HostTensor value = scalar_tensor(c.scalar(2), a.dtype);
  Shape shape = broadcast_shapes(c, {a.sizes, mask.sizes});
  std::vector<int64_t> ai = strided_offsets(shape, broadcast_strides(shape, a.sizes));
  std::vector<int64_t> mi = strided_offsets(shape, broadcast_strides(shape, mask.sizes));
  HostTensor out = alloc(c, a.dtype, shape);
  for (size_t k = 0; k < ai.size(); ++k) {
    bool fill = mask.ints[mi[k]] != 0;
    if (out.is_float()) {
      out.floats[k] = fill ? value.floats[0] : a.floats[ai[k]];
    } else {
      out.ints[k] = fill ? value.ints[0] : a.ints[ai[k]];
    }
  }
  return Value::of_tensor(std::move(out));
}

Value add_inplace(const Call& c) {
  const TensorPtr& self = c.tensor_ptr(0);
  const Value& other = c.tensor_or_scalar(1);
  // (In-place addition on a bool tensor stays refused, in eager as in the meta function.)
  HostTensor sum =
      binary_tensors(c, BinaryOp::kAdd, program::schema(c.op()).dtype_rule, c.arg(0), other);
  // As PyTorch's in-place ops: the broadcast shape must be self's shape and the result dtype
  // must cast to self's dtype without a float->int or number->bool narrowing.
  if (sum.sizes != self->sizes) {
    c.fail(UserErrorKind::kShape, "output with shape " + shape_str(self->sizes) +
                                      " doesn't match the broadcast shape " + shape_str(sum.sizes) +
                                      " (operand " + other.describe() + ")");
  }
  bool narrowing = (sum.dtype == DType::kFloat32 && self->dtype != DType::kFloat32) ||
                   (sum.dtype != DType::kBool && self->dtype == DType::kBool);
  if (narrowing) {
    c.fail(UserErrorKind::kInvalidProgram,
           std::string("result type ") + program::dtype_name(sum.dtype) +
               " can't be cast to the desired output type " + program::dtype_name(self->dtype) +
               " (operands " + c.arg(0).describe() + " and " + other.describe() + ")");
  }
  *self = cast(sum, self->dtype);  // every name bound to this tensor sees the new value
  return c.arg(0);
}

}  // namespace sf::eager::internal
