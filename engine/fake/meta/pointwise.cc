// Meta functions for pointwise ops (broadcasting, dtype promotion) and scalar arithmetic.
#include "engine/base/check.h"
#include "engine/fake/meta/meta_internal.h"
#include "engine/sym/make.h"

namespace sf::fake::detail {

using program::OpKind;

namespace {

bool is_comparison(OpKind op) {
  return op == OpKind::kEq || op == OpKind::kNe || op == OpKind::kLt || op == OpKind::kLe ||
         op == OpKind::kGt || op == OpKind::kGe;
}
bool is_logical(OpKind op) {
  return op == OpKind::kLogicalAnd || op == OpKind::kLogicalOr || op == OpKind::kLogicalNot;
}

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

Value scalar_binary(MetaContext& ctx, OpKind op, const Value& a, const Value& b) {
  if (op == OpKind::kLogicalAnd) return Value(sym_and(truth(a), truth(b)));
  if (op == OpKind::kLogicalOr) return Value(sym_or(truth(a), truth(b)));
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
    case OpKind::kAdd:
      return wrap(sym::add(x, y));
    case OpKind::kSub:
      return wrap(sym::sub(x, y));
    case OpKind::kMul:
      return wrap(sym::mul(x, y));
    case OpKind::kDiv:
      if (!y->is_float()) nonzero_divisor();
      return wrap(sym::true_div(x, y));
    case OpKind::kFloorDiv:
    case OpKind::kRemainder:
      if (any_float) {
        fail(ctx, UserErrorKind::kUnsupported, "floor division / modulo of float scalars");
      }
      nonzero_divisor();
      return wrap(op == OpKind::kFloorDiv ? sym::floordiv(x, y) : sym::mod(x, y));
    case OpKind::kMaximum:
    case OpKind::kMax:
      return wrap(sym::max(x, y));
    case OpKind::kMinimum:
    case OpKind::kMin:
      return wrap(sym::min(x, y));
    case OpKind::kEq:
      return wrap(sym::eq(x, y));
    case OpKind::kNe:
      return wrap(sym::ne(x, y));
    case OpKind::kLt:
      return wrap(sym::lt(x, y));
    case OpKind::kLe:
      return wrap(sym::le(x, y));
    case OpKind::kGt:
      return wrap(sym::gt(x, y));
    case OpKind::kGe:
      return wrap(sym::ge(x, y));
    default:
      break;
  }
  fail(ctx, UserErrorKind::kInvalidProgram, "not a binary scalar op");
}

Value scalar_unary(MetaContext& ctx, OpKind op, const Value& a) {
  switch (op) {
    case OpKind::kLogicalNot:
      return Value(sym_not(truth(a)));
    case OpKind::kNeg:
      if (a.kind() == Value::Kind::kBool)
        fail(ctx, UserErrorKind::kInvalidProgram, "neg of a bool");
      return wrap(sym::neg(a.expr()));
    case OpKind::kAbs:
      if (a.kind() == Value::Kind::kBool) return a;
      return wrap(sym::max(a.expr(), sym::neg(a.expr())));
    default:
      break;
  }
  fail(ctx, UserErrorKind::kInvalidProgram, "not a unary scalar op");
}

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
    DType d = (is_tensor(a) || is_tensor(b))
                  ? arithmetic_dtype(is_tensor(a) ? a : b, is_tensor(a) ? b : a)
                  : promote(scalar_dtype(a), scalar_dtype(b));
    return Value::tensor(ctx.mode.make_contiguous(d, shape));
  }
  if (op == OpKind::kTo) {
    const FakeTensor& a = tensor_arg(ctx, args[0], "a");
    return Value::tensor(ctx.mode.make_contiguous(args[1].dtype, a.sizes()));
  }
  bool unary =
      op == OpKind::kLogicalNot || op == OpKind::kNeg || op == OpKind::kAbs || op == OpKind::kRelu;
  if (unary) {
    const Value& a = args[0].value;
    if (is_scalar(a)) {
      if (op == OpKind::kRelu) fail(ctx, UserErrorKind::kInvalidProgram, "relu takes a tensor");
      return scalar_unary(ctx, op, a);
    }
    const FakeTensor& t = fake_of(a);
    // Arithmetic computes bool as i64 (docs/ops.md), so neg/abs/relu of bool give i64.
    DType d = op == OpKind::kLogicalNot ? DType::kBool
              : t.dtype() == DType::kBool ? DType::kInt64
                                          : t.dtype();
    return Value::tensor(ctx.mode.make_contiguous(d, t.sizes()));
  }
  const Value& a = args[0].value;
  const Value& b = args[1].value;
  if (is_scalar(a) && is_scalar(b)) return scalar_binary(ctx, op, a, b);
  std::vector<SymInt> shape;
  if (is_tensor(a) && is_tensor(b)) {
    shape = broadcast(ctx, fake_of(a).sizes(), fake_of(b).sizes());
  } else {
    shape = fake_of(is_tensor(a) ? a : b).sizes();
  }
  DType d;
  if (is_comparison(op) || is_logical(op)) {
    d = DType::kBool;
  } else if (op == OpKind::kDiv) {
    d = DType::kFloat32;
  } else {
    d = arithmetic_dtype(a, b);
    if (d == DType::kBool && op != OpKind::kMaximum && op != OpKind::kMinimum) d = DType::kInt64;
  }
  return Value::tensor(ctx.mode.make_contiguous(d, shape));
}

}  // namespace sf::fake::detail
