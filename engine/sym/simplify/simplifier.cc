// The simplifier driver: bottom-up passes to a fixpoint, dispatching to per-family rules.
#include <functional>
#include <unordered_map>

#include "engine/base/check.h"
#include "engine/sym/make.h"
#include "engine/sym/node_memo.h"
#include "engine/sym/simplify/simplify_internal.h"
#include "engine/sym/walk.h"

namespace sf::sym {

namespace detail {

SimplifyStats& mutable_stats() {
  static SimplifyStats stats;
  return stats;
}

namespace {

bool is_division(const ExprRef& e) {
  return e->is(ExprKind::kFloorDiv) || e->is(ExprKind::kCleanDiv) || e->is(ExprKind::kMod) ||
         e->is(ExprKind::kTrueDiv);
}

bool is_zero(const ExprRef& e) {
  return (e->is(ExprKind::kInteger) && e->int_value() == 0) ||
         (e->is(ExprKind::kFloat) && e->float_value() == 0.0);
}

}  // namespace

bool shares_symbol(const ExprRef& a, const ExprRef& b) {
  // Nodes are interned: a symbol of a occurs in b iff the same node does.
  return any_symbol(
      a, [&b](const Expr* s) { return any_symbol(b, [s](const Expr* t) { return t == s; }); });
}

ExprRef Simplifier::pass(const ExprRef& root) {
  NodeMemo<ExprRef> memo;
  auto go = [&](auto& self, const ExprRef& e) -> ExprRef {
    if (!e->has_rule_kinds()) return e;  // canonical by construction: nothing below can fire
    if (const ExprRef* hit = memo.find(e.get())) return *hit;
    ExprRef cur = e;
    if (e->num_args() > 0) {
      // The argument list is built from the first changed argument on: most passes change
      // nothing (the last one of every simplification never does).
      std::vector<ExprRef> args;
      bool changed = false;
      for (size_t i = 0; i < e->num_args(); ++i) {
        ExprRef a = self(self, e->arg(i));
        // A divisor that simplifies to 0 means the input is undefined there; keep the original
        // divisor rather than build a division by a literal zero.
        if (i == 1 && is_division(e) && is_zero(a)) a = e->arg(i);
        if (!changed && a != e->arg(i)) {
          changed = true;
          args.reserve(e->num_args());
          args.insert(args.end(), e->args().begin(), e->args().begin() + i);
        }
        if (changed) args.push_back(std::move(a));
      }
      if (changed) cur = rebuild(e, args);
    }
    ExprRef out = apply_rule(cur);
    memo.emplace(e.get(), out);
    return out;
  };
  return go(go, root);
}

ExprRef Simplifier::apply_rule(const ExprRef& e) {
  // has_simplifier_rule (expr.h) is the one list of the kinds with rules (simplify and pass
  // skip trees without them); every other kind is canonical by construction.
  if (!has_simplifier_rule(e->kind())) return e;
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
      break;
  }
  SF_UNREACHABLE() << "has_simplifier_rule lists a kind without a rule: " << e->str();
}

}  // namespace detail

ExprRef simplify(const ExprRef& e, const RangeEnv& env) {
  ++detail::mutable_stats().calls;
  if (!e->has_rule_kinds()) return e;  // no rule can fire anywhere in the tree
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
