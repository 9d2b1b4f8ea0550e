// Meta functions for pointwise ops (broadcasting, dtype promotion) and scalar arithmetic.
#include "engine/base/check.h"
#include "engine/fake/meta/meta_internal.h"
#include "engine/program/schema.h"
#include "engine/sym/make.h"

namespace sf::fake::detail {

using program::BinaryOp;
using program::OpKind;
using program::UnaryOp;

namespace {

// The numeric expression of a scalar (bools count as 0/1 in arithmetic).
ExprRef number(const Value& v) {
  if (v.kind() == Value::Kind::kBool) return sym::bool_to_int(v.expr());
  return v.expr();
}

SymBool truth(const Value& v) {
  if (v.kind() == Value::Kind::kBool) return v.as_bool();
  return SymBool(
      sym::ne(v.expr(), v.kind() == Value::Kind::kFloat ? sym::real(0) : sym::integer(0)));
}

Value wrap(const ExprRef& e) {
  if (e->is_bool()) return Value(SymBool(e));
  if (e->is_float()) return Value(SymFloat(e));
  return Value(SymInt(e));
}

}  // namespace

Value scalar_binary(MetaContext& ctx, BinaryOp op, const Value& a, const Value& b) {
  if (op == BinaryOp::kLogicalAnd) return Value(sym_and(truth(a), truth(b)));
  if (op == BinaryOp::kLogicalOr) return Value(sym_or(truth(a), truth(b)));
  ExprRef x = number(a), y = number(b);
  bool any_float = x->is_float() || y->is_float();
  auto nonzero_divisor = [&]() {
    if (y->is_float()) return;  // float division by zero is inf/nan, not an error
    SymBool ok(sym::ne(y, sym::integer(0)));
    if (auto c = ok.maybe_as_bool(); c && !*c) {
      fail(ctx, UserErrorKind::kZeroDivision,
           "integer division or modulo by zero (" + x->str() + " by " + y->str() + ")");
    }
    require(ctx, ok, UserErrorKind::kZeroDivision,
            "integer division or modulo by zero (" + x->str() + " by " + y->str() + ")");
  };
  switch (op) {
    case BinaryOp::kAdd:
      return wrap(sym::add(x, y));
    case BinaryOp::kSub:
      return wrap(sym::sub(x, y));
    case BinaryOp::kMul:
      return wrap(sym::mul(x, y));
    case BinaryOp::kDiv:
      if (!y->is_float()) nonzero_divisor();
      return wrap(sym::true_div(x, y));
    case BinaryOp::kFloorDiv:
    case BinaryOp::kRemainder:
      if (any_float) {
        fail(ctx, UserErrorKind::kUnsupported, "floor division / modulo of float scalars");
      }
      nonzero_divisor();
      return wrap(op == BinaryOp::kFloorDiv ? sym::floordiv(x, y) : sym::mod(x, y));
    case BinaryOp::kMaximum:
    case BinaryOp::kMinimum:
      // Python's max/min return one of their operands: two bools give a bool.
      if (a.kind() == Value::Kind::kBool && b.kind() == Value::Kind::kBool) {
        return Value(op == BinaryOp::kMaximum ? sym_or(a.as_bool(), b.as_bool())
                                              : sym_and(a.as_bool(), b.as_bool()));
      }
      return wrap(op == BinaryOp::kMaximum ? sym::max(x, y) : sym::min(x, y));
    case BinaryOp::kEq:
      return wrap(sym::eq(x, y));
    case BinaryOp::kNe:
      return wrap(sym::ne(x, y));
    case BinaryOp::kLt:
      return wrap(sym::lt(x, y));
    case BinaryOp::kLe:
      return wrap(sym::le(x, y));
    case BinaryOp::kGt:
      return wrap(sym::gt(x, y));
    case BinaryOp::kGe:
      return wrap(sym::ge(x, y));
    case BinaryOp::kLogicalAnd:
    case BinaryOp::kLogicalOr:
      break;  // handled above
  }
  SF_UNREACHABLE() << "logical ops are handled before the switch";
}

Value scalar_unary(MetaContext& ctx, UnaryOp op, const Value& a) {
  switch (op) {
    case UnaryOp::kLogicalNot:
      return Value(sym_not(truth(a)));
    case UnaryOp::kNeg:  // on a bool, Python's: -True == -1 (bool tensors refuse neg, not bools)
      return wrap(sym::neg(number(a)));
    case UnaryOp::kAbs:  // abs(True) == 1, an int
      if (a.kind() == Value::Kind::kBool) return wrap(number(a));
      return wrap(sym::max(a.expr(), sym::neg(a.expr())));
  }
  SF_UNREACHABLE();
}

namespace {
// PyTorch's refusal of arithmetic on bool tensors (dtype_rules.h), as an invalid_program error.
void refuse_bool_arithmetic(MetaContext& ctx, OpKind op, DType promoted, bool bool_operand) {
  std::string refused = program::bool_arithmetic_refusal(op, promoted, bool_operand);
  if (!refused.empty()) fail(ctx, UserErrorKind::kInvalidProgram, refused);
}
}  // namespace

Value meta_pointwise(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
  if (op == OpKind::kWhere) {
    const FakeTensor& cond = tensor_arg(ctx, args[0], "cond");
    if (cond.dtype() != DType::kBool) {
      fail(ctx, UserErrorKind::kInvalidProgram,
           "where: condition must be bool, got " + cond.type_str());
    }
    const Value& a = args[1].value;
    const Value& b = args[2].value;
    std::vector<SymInt> shape = cond.sizes();
    if (is_tensor(a)) shape = broadcast(ctx, shape, fake_of(a).sizes());
    if (is_tensor(b)) shape = broadcast(ctx, shape, fake_of(b).sizes());
    DType d = arithmetic_dtype(a, b);
    return Value::tensor(ctx.mode.make_contiguous(d, shape));
  }
  if (op == OpKind::kMaskedFill) {  // a's dtype, a and mask broadcast (docs/ops.md)
    const FakeTensor& a = tensor_arg(ctx, args[0], "a");
    const FakeTensor& mask = tensor_arg(ctx, args[1], "mask");
    if (mask.dtype() != DType::kBool) {
      fail(ctx, UserErrorKind::kInvalidProgram,
           "masked_fill: mask must be a bool tensor, got " + mask.type_str());
    }
    if (!is_scalar(args[2].value)) {
      fail(ctx, UserErrorKind::kInvalidProgram, "masked_fill: value must be a scalar");
    }
    return Value::tensor(
        ctx.mode.make_contiguous(a.dtype(), broadcast(ctx, a.sizes(), mask.sizes())));
  }
  if (op == OpKind::kTo) {
    const FakeTensor& a = tensor_arg(ctx, args[0], "a");
    return Value::tensor(ctx.mode.make_contiguous(args[1].dtype, a.sizes()));
  }
  const program::OpSchema& schema = program::schema(op);
  if (op == OpKind::kRelu || schema.element.kind == program::ElementOp::Kind::kUnary) {
    const Value& a = args[0].value;
    if (is_scalar(a)) {
      if (op == OpKind::kRelu) fail(ctx, UserErrorKind::kInvalidProgram, "relu takes a tensor");
      return scalar_unary(ctx, schema.element.unary, a);
    }
    const FakeTensor& t = fake_of(a);
    refuse_bool_arithmetic(ctx, op, t.dtype(), false);
    return Value::tensor(
        ctx.mode.make_contiguous(program::pointwise_result_dtype(op, t.dtype()), t.sizes()));
  }
  SF_CHECK(schema.element.kind == program::ElementOp::Kind::kBinary)
      << "no pointwise meta function for " << program::op_name(op);
  const Value& a = args[0].value;
  const Value& b = args[1].value;
  if (is_scalar(a) && is_scalar(b)) return scalar_binary(ctx, schema.element.binary, a, b);
  std::vector<SymInt> shape;
  if (is_tensor(a) && is_tensor(b)) {
    shape = broadcast(ctx, fake_of(a).sizes(), fake_of(b).sizes());
  } else {
    shape = fake_of(is_tensor(a) ? a : b).sizes();
  }
  DType promoted = arithmetic_dtype(a, b);
  bool bool_operand = scalar_dtype(a) == DType::kBool || scalar_dtype(b) == DType::kBool;
  refuse_bool_arithmetic(ctx, op, promoted, bool_operand);
  return Value::tensor(
      ctx.mode.make_contiguous(program::pointwise_result_dtype(op, promoted), shape));
}

}  // namespace sf::fake::detail
