// Dtype promotion and the per-op result and compute dtypes (docs/ops.md "Values and dtypes"): the
// one place these rules live; meta functions, eager, lowering and the generator all ask here.
#pragma once

#include <string>
#include <vector>

#include "engine/program/ast.h"

namespace sf::program {

// How an op's result dtype follows from its data operands (column DTypeRule of ops.def).
enum class DTypeRule {
  kFromArgument,  // the dtype argument (creation ops, to)
  kArithmetic,    // the promoted dtype, bool computed as i64 (add, neg, sum, ...)
  kTrueDivision,  // always f32 (div)
  kPromote,       // the promoted dtype of the data operands (maximum, where, cat, views, ...)
  kBool,          // always bool (comparisons, logical ops, any, all)
  kInt64,         // i64 (count_nonzero, nonzero, argmax; bincount with f32 weights is f32)
  kScalar,        // a scalar or tuple of scalars, no tensor dtype (item, size, min, ...)
};

// The wider of two dtypes: bool < i64 < f32.
DType promote(DType a, DType b);
// The dtype an op's operands promote to (PyTorch's result_type): tensors promote among themselves
// and a scalar is weak, raising only the category (an i64 tensor + 2 stays i64, + 0.5 is f32);
// with no tensor, the scalars promote. Every layer computes operand promotion here.
DType result_type(const std::vector<DType>& tensor_dtypes, const std::vector<DType>& scalar_dtypes);
// The dtype a rule computes in, given the promoted operand dtype (both operands are cast to it).
DType compute_dtype(DTypeRule rule, DType promoted);
// The dtype a rule yields, given the promoted operand dtype. kFromArgument and kScalar have no
// rule-derived dtype (an internal error to ask).
DType result_dtype(DTypeRule rule, DType promoted);

// PyTorch's arithmetic on bool tensors (tensor operands and weak scalars that promote to bool):
// add and mul keep bool (computed as i64 and cast back, so they are or / and); sub, neg, abs,
// relu, floordiv and remainder refuse them (add_ on a bool tensor stays refused, as before).
// Scalar-only arithmetic is Python's (True + True is 2) and never asks here. The result dtype of
// pointwise `op` on operands promoting to `promoted`.
DType pointwise_result_dtype(OpKind op, DType promoted);
// Why pointwise `op` refuses operands promoting to `promoted` ("" when it does not); sub refuses
// any bool operand (`bool_operand`: a bool tensor or a bool scalar beside a tensor), as ATen's.
std::string bool_arithmetic_refusal(OpKind op, DType promoted, bool bool_operand = false);

}  // namespace sf::program
