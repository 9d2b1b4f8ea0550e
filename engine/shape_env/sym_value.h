// SymInt, SymFloat and SymBool: small value types holding a constant or a raw expression
// (PyTorch's SymNode._expr). Arithmetic builds expressions and never guards; guards are explicit
// ShapeEnv calls (STYLE §8: no silent bool conversions).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/sym/expr.h"
#include "engine/sym/make.h"

namespace sf {

using sym::ExprRef;

class SymBool;

class SymInt {
 public:
  SymInt(int64_t v = 0);  // NOLINT: implicit, like c10::SymInt
  explicit SymInt(ExprRef expr);
  // The raw, never-replaced expression (an Integer node for constants).
  const ExprRef& expr() const { return expr_; }
  bool is_constant() const { return expr_->is(sym::ExprKind::kInteger); }
  std::optional<int64_t> maybe_as_int() const;
  int64_t as_int() const;  // SF_CHECKs is_constant()
  std::string str() const { return expr_->str(); }
  bool same_as(const SymInt& o) const { return expr_ == o.expr_; }

 private:
  ExprRef expr_;
};

class SymFloat {
 public:
  SymFloat(double v = 0.0);  // NOLINT
  explicit SymFloat(ExprRef expr);
  const ExprRef& expr() const { return expr_; }
  bool is_constant() const { return expr_->is_number(); }
  std::string str() const { return expr_->str(); }

 private:
  ExprRef expr_;
};

class SymBool {
 public:
  SymBool(bool v = false);  // NOLINT
  explicit SymBool(ExprRef expr);
  const ExprRef& expr() const { return expr_; }
  bool is_constant() const { return expr_->is(sym::ExprKind::kBoolConst); }
  std::optional<bool> maybe_as_bool() const;
  std::string str() const { return expr_->str(); }

 private:
  ExprRef expr_;
};

SymInt operator+(const SymInt& a, const SymInt& b);
SymInt operator-(const SymInt& a, const SymInt& b);
SymInt operator*(const SymInt& a, const SymInt& b);
SymInt operator-(const SymInt& a);
SymInt floordiv(const SymInt& a, const SymInt& b);  // Python //; b == 0 constant throws
SymInt mod(const SymInt& a, const SymInt& b);       // Python %
SymInt sym_max(const SymInt& a, const SymInt& b);
SymInt sym_min(const SymInt& a, const SymInt& b);
SymBool sym_eq(const SymInt& a, const SymInt& b);
SymBool sym_ne(const SymInt& a, const SymInt& b);
SymBool sym_lt(const SymInt& a, const SymInt& b);
SymBool sym_le(const SymInt& a, const SymInt& b);
SymBool sym_gt(const SymInt& a, const SymInt& b);
SymBool sym_ge(const SymInt& a, const SymInt& b);
SymBool sym_and(const SymBool& a, const SymBool& b);
SymBool sym_or(const SymBool& a, const SymBool& b);
SymBool sym_not(const SymBool& a);
// int(bool) without guarding: Piecewise((1, b), (0, True)).
SymInt sym_bool_to_int(const SymBool& b);

}  // namespace sf
