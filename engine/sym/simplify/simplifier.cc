// The simplifier driver: bottom-up passes to a fixpoint, dispatching to per-family rules.
#include "engine/base/check.h"
#include "engine/sym/simplify/simplify_internal.h"
#include "engine/sym/walk.h"

namespace sf::sym {

namespace detail {

SimplifyStats& mutable_stats() {
  static SimplifyStats stats;
  return stats;
}

ExprRef Simplifier::pass(const ExprRef& root) {
  return rewrite_bottom_up(root, [this](const ExprRef& e) -> ExprRef {
    switch (e->kind()) {
      case ExprKind::kFloorDiv:
      case ExprKind::kCleanDiv:
        return floordiv(e);
      case ExprKind::kMod:
        return mod(e);
      case ExprKind::kMax:
      case ExprKind::kMin:
        return minmax(e);
      case ExprKind::kEq:
      case ExprKind::kNe:
      case ExprKind::kLt:
      case ExprKind::kLe:
        return relation(e);
      case ExprKind::kWhere:
        return where(e);
      case ExprKind::kTruncToInt:
        return trunc_to_int(e);
      case ExprKind::kAnd:
      case ExprKind::kOr:
      case ExprKind::kNot:
        return connective(e);
      case ExprKind::kInteger:
      case ExprKind::kFloat:
      case ExprKind::kBoolConst:
      case ExprKind::kSymbol:
      case ExprKind::kAdd:
      case ExprKind::kMul:
      case ExprKind::kPow:
      case ExprKind::kToFloat:
      case ExprKind::kTrueDiv:
        return e;  // canonical by construction
    }
    SF_UNREACHABLE();
  });
}

}  // namespace detail

ExprRef simplify(const ExprRef& e, const RangeEnv& env) {
  ++detail::mutable_stats().calls;
  if (e->is_ground() && e->num_args() == 0) return e;
  detail::Simplifier s(env);
  ExprRef cur = e;
  for (int i = 0; i < kMaxSimplifyPasses; ++i) {
    ++detail::mutable_stats().passes;
    ExprRef next = s.pass(cur);
    if (next == cur) return cur;
    cur = next;
  }
  SF_CHECK(false) << "simplifier did not reach a fixpoint after " << kMaxSimplifyPasses
                  << " passes on " << e->str() << " (last: " << cur->str() << ")";
  return cur;
}

ExprRef simplify(const ExprRef& e) { return simplify(e, RangeEnv()); }

const SimplifyStats& simplify_stats() { return detail::mutable_stats(); }

}  // namespace sf::sym
