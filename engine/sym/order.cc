// The deterministic structural order on expressions (never by address or creation order), so
// canonical forms and printed text are identical across processes and histories.
#include <cmath>
#include <cstring>

#include "engine/base/check.h"
#include "engine/sym/expr.h"

namespace sf::sym {

namespace {

// Numbers first, then booleans, then symbols, then compound nodes by kind.
inline int kind_rank(const Expr* e) {
  switch (e->kind()) {
    case ExprKind::kInteger:
    case ExprKind::kFloat:
      return 0;
    case ExprKind::kBoolConst:
      return 1;
    case ExprKind::kSymbol:
      return 2;
    case ExprKind::kAdd:
    case ExprKind::kMul:
    case ExprKind::kPow:
    case ExprKind::kFloorDiv:
    case ExprKind::kMod:
    case ExprKind::kCleanDiv:
    case ExprKind::kMax:
    case ExprKind::kMin:
    case ExprKind::kWhere:
    case ExprKind::kToFloat:
    case ExprKind::kTruncToInt:
    case ExprKind::kTrueDiv:
    case ExprKind::kEq:
    case ExprKind::kNe:
    case ExprKind::kLt:
    case ExprKind::kLe:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
      return 3 + static_cast<int>(e->kind());
  }
  SF_UNREACHABLE();
}

int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

int cmp_double(double a, double b) {
  // NaN sorts after every number (a total order needs an explicit rank for it).
  if (std::isnan(a) || std::isnan(b)) {
    if (!std::isnan(b)) return 1;
    if (!std::isnan(a)) return -1;
  }
  if (a < b) return -1;
  if (a > b) return 1;
  uint64_t x, y;  // NaNs and signed zeros: fall back to bit patterns for a total order
  std::memcpy(&x, &a, sizeof(x));
  std::memcpy(&y, &b, sizeof(y));
  return x < y ? -1 : (x > y ? 1 : 0);
}

double as_double(const Expr* e) {
  return e->is(ExprKind::kInteger) ? static_cast<double>(e->int_value()) : e->float_value();
}

}  // namespace

int compare(const ExprRef& ra, const ExprRef& rb) {
  const Expr* a = ra.get();
  const Expr* b = rb.get();
  if (a == b) return 0;
  // Two symbols (the keys of every ShapeEnv table) first: by kind, then index.
  int r;
  if (a->is(ExprKind::kSymbol) && b->is(ExprKind::kSymbol)) {
    r = cmp_i64(static_cast<int>(a->sym_kind()), static_cast<int>(b->sym_kind()));
    return r != 0 ? r : cmp_i64(a->sym_index(), b->sym_index());
  }
  r = cmp_i64(kind_rank(a), kind_rank(b));
  if (r != 0) return r;
  switch (a->kind()) {
    case ExprKind::kInteger:
    case ExprKind::kFloat:
      if (a->kind() == b->kind() && a->is(ExprKind::kInteger)) {
        return cmp_i64(a->int_value(), b->int_value());
      }
      r = cmp_double(as_double(a), as_double(b));
      if (r != 0) return r;
      return a->is(ExprKind::kInteger) ? -1 : (b->is(ExprKind::kInteger) ? 1 : 0);
    case ExprKind::kBoolConst:
      return cmp_i64(a->int_value(), b->int_value());
    case ExprKind::kSymbol:
      r = cmp_i64(static_cast<int>(a->sym_kind()), static_cast<int>(b->sym_kind()));
      return r != 0 ? r : cmp_i64(a->sym_index(), b->sym_index());
    case ExprKind::kAdd:
    case ExprKind::kMul:
    case ExprKind::kPow:
    case ExprKind::kFloorDiv:
    case ExprKind::kMod:
    case ExprKind::kCleanDiv:
    case ExprKind::kMax:
    case ExprKind::kMin:
    case ExprKind::kWhere:
    case ExprKind::kToFloat:
    case ExprKind::kTruncToInt:
    case ExprKind::kTrueDiv:
    case ExprKind::kEq:
    case ExprKind::kNe:
    case ExprKind::kLt:
    case ExprKind::kLe:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
      break;
  }
  r = cmp_i64(static_cast<int64_t>(a->type()), static_cast<int64_t>(b->type()));
  if (r != 0) return r;
  size_t n = std::min(a->num_args(), b->num_args());
  for (size_t i = 0; i < n; ++i) {
    r = compare(a->arg(i), b->arg(i));
    if (r != 0) return r;
  }
  r = cmp_i64(static_cast<int64_t>(a->num_args()), static_cast<int64_t>(b->num_args()));
  if (r != 0) return r;
  return cmp_i64(a->int_value(), b->int_value());
}

}  // namespace sf::sym
