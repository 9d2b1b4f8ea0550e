// Interval evaluation over expressions, memoized (shared subtrees bounded once).
#include "engine/sym/bound.h"

#include <cmath>
#include <unordered_map>

#include "engine/base/check.h"

namespace sf::sym {

ValueRange unknown_range_of(const ExprRef& e) {
  switch (e->type()) {
    case ExprType::kInt:
      return ValueRange::unknown_int();
    case ExprType::kFloat:
      return ValueRange::unknown_float();
    case ExprType::kBool:
      return ValueRange::unknown_bool();
  }
  SF_UNREACHABLE();
}

ValueRange RangeEnv::symbol_range(const ExprRef& sym) const { return unknown_range_of(sym); }
bool RangeEnv::known_divisible(const ExprRef&, const ExprRef&) const { return false; }
bool RangeEnv::fact_nonnegative(const ExprRef&) const { return false; }
FactBounds RangeEnv::fact_bounds_of_difference(const ExprRef&) const { return {}; }
bool RangeEnv::has_facts() const { return false; }
bool RangeEnv::has_facts_about(const ExprRef&) const { return has_facts(); }

ValueRange MapRangeEnv::symbol_range(const ExprRef& sym) const {
  auto it = ranges.find(sym);
  return it == ranges.end() ? unknown_range_of(sym) : it->second;
}

namespace {

class Bounder {
 public:
  Bounder(const RangeEnv& env, BoundMemo& memo) : env_(env), memo_(memo) {}

  ValueRange run(const ExprRef& e) {
    if (const auto* hit = memo_.find(e.get())) return hit->second;
    ValueRange r = compute(e);
    memo_.emplace(e.get(), std::make_pair(e, r));
    return r;
  }

 private:
  ValueRange fold(const ExprRef& e, ValueRange (*op)(const ValueRange&, const ValueRange&)) {
    ValueRange acc = run(e->arg(0));
    for (size_t i = 1; i < e->num_args(); ++i) acc = op(acc, run(e->arg(i)));
    return acc;
  }

  ValueRange compute(const ExprRef& e) {
    switch (e->kind()) {
      case ExprKind::kInteger:
        return ValueRange::exact(e->int_value());
      case ExprKind::kFloat:
        if (std::isnan(e->float_value())) return ValueRange::unknown_float();
        return ValueRange::floats(e->float_value(), e->float_value());
      case ExprKind::kBoolConst:
        return ValueRange::exact_bool(e->bool_value());
      case ExprKind::kSymbol: {
        ValueRange r = env_.symbol_range(e);
        return e->is_float() ? r.as_float() : r;
      }
      case ExprKind::kAdd:
        return fold(e, vr_add);
      case ExprKind::kMul:
        return fold(e, vr_mul);
      case ExprKind::kPow:
        return vr_pow(run(e->arg(0)), e->pow_exponent());
      case ExprKind::kFloorDiv:
      case ExprKind::kCleanDiv:
        return vr_floordiv(run(e->arg(0)), run(e->arg(1)));
      case ExprKind::kMod:
        return vr_mod(run(e->arg(0)), run(e->arg(1)));
      case ExprKind::kMax:
        return fold(e, vr_max);
      case ExprKind::kMin:
        return fold(e, vr_min);
      case ExprKind::kWhere:
        return vr_where(run(e->arg(0)), run(e->arg(1)), run(e->arg(2)));
      case ExprKind::kToFloat:
        return vr_to_float(run(e->arg(0)));
      case ExprKind::kTruncToInt:
        return vr_trunc_to_int(run(e->arg(0)));
      case ExprKind::kTrueDiv:
        return vr_true_div(run(e->arg(0)), run(e->arg(1)));
      case ExprKind::kEq:
        return vr_eq(run(e->arg(0)), run(e->arg(1)));
      case ExprKind::kNe:
        return vr_ne(run(e->arg(0)), run(e->arg(1)));
      case ExprKind::kLt:
        return vr_lt(run(e->arg(0)), run(e->arg(1)));
      case ExprKind::kLe:
        return vr_le(run(e->arg(0)), run(e->arg(1)));
      case ExprKind::kAnd:
        return fold(e, vr_and);
      case ExprKind::kOr:
        return fold(e, vr_or);
      case ExprKind::kNot:
        return vr_not(run(e->arg(0)));
    }
    SF_UNREACHABLE();
  }

  const RangeEnv& env_;
  BoundMemo& memo_;
};

}  // namespace

ValueRange bound_expr(const ExprRef& e, const RangeEnv& env) {
  BoundMemo memo;
  return bound_expr(e, env, memo);
}

ValueRange bound_expr(const ExprRef& e, const RangeEnv& env, BoundMemo& memo) {
  return Bounder(env, memo).run(e);
}

}  // namespace sf::sym
