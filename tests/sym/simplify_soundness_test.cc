// engine/sym/simplify.h soundness beyond the rule tables: CleanDiv exactness, agreement with the
// double-precision evaluator, preserved expression types, and no abort on non-finite constants.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "engine/sym/bound.h"
#include "engine/sym/eval.h"
#include "engine/sym/make.h"
#include "engine/sym/simplify.h"
#include "engine/sym/walk.h"

namespace sf::sym {
namespace {

const ExtInt kOo = ExtInt::pos_inf();

ExprRef u(int i) { return symbol(SymKind::kUnbackedInt, i); }
ExprRef zf(int i) { return symbol(SymKind::kFloat, i); }
ExprRef I(int64_t v) { return integer(v); }
ValueRange R(ExtInt lo, ExtInt hi) { return ValueRange::ints(lo, hi); }

// CleanDiv(a, b) asserts b | a; a rewrite may only emit CleanDiv where that still holds.
TEST(SimplifySoundnessTest, CleanDivStaysExact) {
  ExprRef e = clean_div(floordiv(u(0), I(2)), I(3));
  ExprRef out = simplify(e);
  std::vector<ExprRef> cleans;
  rewrite_bottom_up(out, [&](const ExprRef& x) {
    if (x->is(ExprKind::kCleanDiv)) cleans.push_back(x);
    return x;
  });
  std::string bad;
  for (int64_t v = -30; v <= 30 && bad.empty(); ++v) {
    Assignment a = {{u(0), Concrete::of_int(v)}};
    if (evaluate(mod(floordiv(u(0), I(2)), I(3)), a).value.i != 0) continue;  // input inexact
    for (const ExprRef& c : cleans) {
      if (evaluate(mod(c->arg(0), c->arg(1)), a).value.i == 0 || !bad.empty()) continue;
      bad = "\nInput:    " + e->str() + " at u0=" + std::to_string(v) +
            "\nOutput:   " + out->str() + " (" + c->str() +
            " is inexact)\nExpected: only exact CleanDiv nodes";
    }
  }
  EXPECT_TRUE(bad.empty()) << bad;
}

// evaluate() computes TrueDiv in doubles; the rewrite must agree past 2**53 too.
TEST(SimplifySoundnessTest, TruncOfTrueDivRewriteMatchesFloatEvaluation) {
  MapRangeEnv env;
  env.ranges = {{u(0), R(0, kOo)}, {u(1), R(1, kOo)}};
  struct {
    ExprRef expr;
    int64_t u0, u1;
  } cases[] = {
      {trunc_to_int(true_div(u(0), u(1))), 99999999999999999, 100000000000000000},
      {trunc_to_int(true_div(mul(u(0), u(1)), u(1))), 9007199254740993, 1},
  };
  for (const auto& c : cases) {
    ExprRef out = simplify(c.expr, env);
    Assignment a = {{u(0), Concrete::of_int(c.u0)}, {u(1), Concrete::of_int(c.u1)}};
    EvalResult before = evaluate(c.expr, a), after = evaluate(out, a);
    EXPECT_TRUE(after.defined && before.value == after.value)
        << "\nInput:    " << c.expr->str() << " at u0=" << c.u0 << ", u1=" << c.u1
        << "\nOutput:   " << out->str() << " = " << after.value.str()
        << "\nExpected: " << before.value.str();
  }
}

const char* TypeName(ExprType t) {
  return t == ExprType::kInt ? "int" : t == ExprType::kFloat ? "float" : "bool";
}

// A rewrite that picks one argument of a mixed int/float node must keep the node's type.
TEST(SimplifySoundnessTest, PreservesExpressionType) {
  MapRangeEnv env;
  env.ranges = {{zf(0), ValueRange::floats(0.5, 1.5)}, {u(0), R(2, 5)}, {u(2), R(0, kOo)}};
  ExprRef cases[] = {max(zf(0), u(0)), where(ge(u(2), I(0)), u(1), zf(0))};
  for (const ExprRef& e : cases) {
    ExprRef out = simplify(e, env);
    EXPECT_TRUE(out->type() == e->type())
        << "\nInput:    " << e->str() << " (" << TypeName(e->type())
        << ") with zf0: [0.5, 1.5], u0: [2, 5], u2: [0, int_oo]\nOutput:   " << out->str() << " ("
        << TypeName(out->type()) << ")\nExpected: a " << TypeName(e->type()) << " expression";
  }
}

// bound_expr of a Float constant oo or nan builds ValueRange::floats(c, c), which aborts.
TEST(SimplifySoundnessDeathTest, NonFiniteFloatConstantDoesNotAbort) {
  for (double c : {std::numeric_limits<double>::infinity(), std::nan("")}) {
    ExprRef e = lt(zf(0), real(c));
    EXPECT_EXIT(
        {
          simplify(e);
          std::exit(0);
        },
        ::testing::ExitedWithCode(0), "")
        << "\nInput:    simplify(" << e->str() << ")\nExpected: no abort";
  }
}

}  // namespace
}  // namespace sf::sym
