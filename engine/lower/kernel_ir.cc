// Kernel IR constructors and names.
#include "engine/lower/kernel_ir.h"

#include "engine/base/check.h"

namespace sf::lower {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kAny:
      return "any";
    case ReduceOp::kAll:
      return "all";
  }
  return "?";
}

namespace {
std::shared_ptr<KExpr> make(KExpr::Kind k, DType d) {
  auto e = std::make_shared<KExpr>();
  e->kind = k;
  e->dtype = d;
  return e;
}
}  // namespace

KExprPtr KExpr::constant_f(double v) {
  auto e = make(Kind::kConst, DType::kFloat32);
  e->fvalue = v;
  return e;
}

KExprPtr KExpr::constant_i(int64_t v, DType dtype) {
  auto e = make(Kind::kConst, dtype);
  e->ivalue = dtype == DType::kBool ? (v != 0) : v;
  return e;
}

KExprPtr KExpr::scalar_of(ExprRef s, DType dtype) {
  auto e = make(Kind::kScalar, dtype);
  e->scalar = std::move(s);
  return e;
}

KExprPtr KExpr::load(int input, DType dtype) {
  auto e = make(Kind::kLoad, dtype);
  e->input = input;
  return e;
}

KExprPtr KExpr::index(int dim) {
  auto e = make(Kind::kIndex, DType::kInt64);
  e->dim = dim;
  return e;
}

KExprPtr KExpr::unary_of(UnaryOp op, KExprPtr a) {
  DType d = op == UnaryOp::kLogicalNot ? DType::kBool : a->dtype;
  auto e = make(Kind::kUnary, d);
  e->unary = op;
  e->args = {std::move(a)};
  return e;
}

KExprPtr KExpr::binary_of(BinaryOp op, KExprPtr a, KExprPtr b, DType result) {
  SF_CHECK(a->dtype == b->dtype) << "binary " << program::binary_op_name(op) << " on mixed dtypes";
  auto e = make(Kind::kBinary, result);
  e->binary = op;
  e->args = {std::move(a), std::move(b)};
  return e;
}

KExprPtr KExpr::where_of(KExprPtr c, KExprPtr a, KExprPtr b) {
  SF_CHECK(c->dtype == DType::kBool && a->dtype == b->dtype) << "malformed where";
  auto e = make(Kind::kWhere, a->dtype);
  e->args = {std::move(c), std::move(a), std::move(b)};
  return e;
}

KExprPtr KExpr::cast(KExprPtr a, DType to) {
  if (a->dtype == to) return a;
  auto e = make(Kind::kCast, to);
  e->args = {std::move(a)};
  return e;
}

bool Extern::flag_arg(size_t i) const {
  const ExternArg& a = args.at(i);
  SF_CHECK(a.kind == ExternArg::Kind::kScalar && a.scalar->is(sym::ExprKind::kBoolConst))
      << name << ": argument " << i << " is not a literal flag";
  return a.scalar->bool_value();
}

std::optional<int64_t> Extern::int_arg(size_t i) const {
  const ExternArg& a = args.at(i);
  if (a.kind == ExternArg::Kind::kNone) return std::nullopt;
  SF_CHECK(a.kind == ExternArg::Kind::kScalar && a.scalar->is(sym::ExprKind::kInteger))
      << name << ": argument " << i << " is not a literal int";
  return a.scalar->int_value();
}

}  // namespace sf::lower
