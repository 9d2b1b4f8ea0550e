// Symbolic value types: thin wrappers over the sym factories.
#include "engine/shape_env/sym_value.h"

#include "engine/base/check.h"

namespace sf {

SymInt::SymInt(int64_t v) : expr_(sym::integer(v)) {}
SymInt::SymInt(ExprRef expr) : expr_(std::move(expr)) {
  SF_CHECK(expr_ && expr_->is_int()) << "SymInt from non-integer " << (expr_ ? expr_->str() : "");
}
std::optional<int64_t> SymInt::maybe_as_int() const {
  if (is_constant()) return expr_->int_value();
  return std::nullopt;
}
int64_t SymInt::as_int() const {
  SF_CHECK(is_constant()) << "SymInt " << str() << " is not a constant";
  return expr_->int_value();
}

SymFloat::SymFloat(double v) : expr_(sym::real(v)) {}
SymFloat::SymFloat(ExprRef expr) : expr_(std::move(expr)) {
  SF_CHECK(expr_ && expr_->is_float()) << "SymFloat from non-float " << (expr_ ? expr_->str() : "");
}

SymBool::SymBool(bool v) : expr_(sym::boolean(v)) {}
SymBool::SymBool(ExprRef expr) : expr_(std::move(expr)) {
  SF_CHECK(expr_ && expr_->is_bool()) << "SymBool from non-bool " << (expr_ ? expr_->str() : "");
}
std::optional<bool> SymBool::maybe_as_bool() const {
  if (is_constant()) return expr_->bool_value();
  return std::nullopt;
}

SymInt operator+(const SymInt& a, const SymInt& b) { return SymInt(sym::add(a.expr(), b.expr())); }
SymInt operator-(const SymInt& a, const SymInt& b) { return SymInt(sym::sub(a.expr(), b.expr())); }
SymInt operator*(const SymInt& a, const SymInt& b) { return SymInt(sym::mul(a.expr(), b.expr())); }
SymInt operator-(const SymInt& a) { return SymInt(sym::neg(a.expr())); }
SymInt floordiv(const SymInt& a, const SymInt& b) {
  return SymInt(sym::floordiv(a.expr(), b.expr()));
}
SymInt mod(const SymInt& a, const SymInt& b) { return SymInt(sym::mod(a.expr(), b.expr())); }
SymInt sym_max(const SymInt& a, const SymInt& b) { return SymInt(sym::max(a.expr(), b.expr())); }
SymInt sym_min(const SymInt& a, const SymInt& b) { return SymInt(sym::min(a.expr(), b.expr())); }
SymBool sym_eq(const SymInt& a, const SymInt& b) { return SymBool(sym::eq(a.expr(), b.expr())); }
SymBool sym_ne(const SymInt& a, const SymInt& b) { return SymBool(sym::ne(a.expr(), b.expr())); }
SymBool sym_lt(const SymInt& a, const SymInt& b) { return SymBool(sym::lt(a.expr(), b.expr())); }
SymBool sym_le(const SymInt& a, const SymInt& b) { return SymBool(sym::le(a.expr(), b.expr())); }
SymBool sym_gt(const SymInt& a, const SymInt& b) { return SymBool(sym::gt(a.expr(), b.expr())); }
SymBool sym_ge(const SymInt& a, const SymInt& b) { return SymBool(sym::ge(a.expr(), b.expr())); }
SymBool sym_and(const SymBool& a, const SymBool& b) {
  return SymBool(sym::and_(a.expr(), b.expr()));
}
SymBool sym_or(const SymBool& a, const SymBool& b) { return SymBool(sym::or_(a.expr(), b.expr())); }
SymBool sym_not(const SymBool& a) { return SymBool(sym::not_(a.expr())); }
SymInt sym_bool_to_int(const SymBool& b) { return SymInt(sym::bool_to_int(b.expr())); }

}  // namespace sf
