// engine/sym/eval.h: concrete evaluation with Python floor division/modulo, definedness (overflow,
// division by zero, missing symbols), lazy Where, relations and the float operations.
#include "engine/sym/eval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "engine/sym/make.h"

namespace sf::sym {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

ExprRef u(int i) { return symbol(SymKind::kUnbackedInt, i); }
ExprRef zf(int i) { return symbol(SymKind::kFloat, i); }
ExprRef I(int64_t v) { return integer(v); }
Concrete Int(int64_t v) { return Concrete::of_int(v); }
Concrete Flt(double v) { return Concrete::of_float(v); }
Concrete Bool(bool v) { return Concrete::of_bool(v); }

struct EvalCase {
  ExprRef expr;
  std::vector<std::pair<ExprRef, Concrete>> values;
  bool defined;
  Concrete expected;  // ignored when !defined
};

std::string Describe(const EvalResult& r) {
  static const char* kTypes[] = {"int", "float", "bool"};
  return r.defined ? r.value.str() + " (" + kTypes[int(r.value.type)] + ")"
                   : "undefined (" + r.why + ")";
}

void CheckAll(const std::vector<EvalCase>& cases) {
  for (const EvalCase& c : cases) {
    Assignment values;
    std::string input = c.expr->str() + " at {";
    for (const auto& [sym, v] : c.values) {
      values[sym] = v;
      input += " " + sym->str() + "=" + v.str();
    }
    input += " }";
    EvalResult r = evaluate(c.expr, values);
    bool ok = r.defined == c.defined && (!c.defined || r.value == c.expected);
    EXPECT_TRUE(ok) << "\nInput:    " << input << "\nOutput:   " << Describe(r) << "\nExpected: "
                    << (c.defined ? Describe(EvalResult{true, c.expected, ""}) : "undefined");
  }
}

TEST(EvalTest, PythonFloorDivisionAndModulo) {
  ExprRef fd = floordiv(u(0), u(1)), md = mod(u(0), u(1));
  CheckAll({
      {fd, {{u(0), Int(7)}, {u(1), Int(2)}}, true, Int(3)},
      {fd, {{u(0), Int(-7)}, {u(1), Int(2)}}, true, Int(-4)},
      {fd, {{u(0), Int(7)}, {u(1), Int(-2)}}, true, Int(-4)},
      {fd, {{u(0), Int(-7)}, {u(1), Int(-2)}}, true, Int(3)},
      {fd, {{u(0), Int(0)}, {u(1), Int(-5)}}, true, Int(0)},
      {fd, {{u(0), Int(kMin)}, {u(1), Int(2)}}, true, Int(kMin / 2)},
      {md, {{u(0), Int(7)}, {u(1), Int(2)}}, true, Int(1)},
      {md, {{u(0), Int(-7)}, {u(1), Int(2)}}, true, Int(1)},
      {md, {{u(0), Int(7)}, {u(1), Int(-2)}}, true, Int(-1)},
      {md, {{u(0), Int(-7)}, {u(1), Int(-2)}}, true, Int(-1)},
      {md, {{u(0), Int(-1)}, {u(1), Int(kMax)}}, true, Int(kMax - 1)},
      {md, {{u(0), Int(kMin)}, {u(1), Int(-1)}}, true, Int(0)},
      {clean_div(u(0), u(1)), {{u(0), Int(-6)}, {u(1), Int(3)}}, true, Int(-2)},
      {floordiv(add(u(0), I(1)), I(4)), {{u(0), Int(-2)}}, true, Int(-1)},
      {mod(add(u(0), I(1)), I(-4)), {{u(0), Int(2)}}, true, Int(-1)},
  });
}

TEST(EvalTest, OverflowDivisionByZeroAndMissingSymbolsAreUndefined) {
  CheckAll({
      {floordiv(u(0), u(1)), {{u(0), Int(kMin)}, {u(1), Int(-1)}}, false, {}},
      {floordiv(u(0), u(1)), {{u(0), Int(5)}, {u(1), Int(0)}}, false, {}},
      {mod(u(0), u(1)), {{u(0), Int(5)}, {u(1), Int(0)}}, false, {}},
      {clean_div(u(0), u(1)), {{u(0), Int(0)}, {u(1), Int(0)}}, false, {}},
      {add(u(0), u(1)), {{u(0), Int(kMax)}, {u(1), Int(1)}}, false, {}},
      {add(u(0), u(1)), {{u(0), Int(kMax)}, {u(1), Int(-1)}}, true, Int(kMax - 1)},
      {mul(u(0), u(1)), {{u(0), Int(1LL << 32)}, {u(1), Int(1LL << 31)}}, false, {}},
      {mul(u(0), u(1)), {{u(0), Int(-(1LL << 32))}, {u(1), Int(1LL << 31)}}, true, Int(kMin)},
      {mul(u(0), u(0)), {{u(0), Int(3037000500)}}, false, {}},
      {mul(u(0), u(0)), {{u(0), Int(-3037000499)}}, true, Int(9223372030926249001)},
      {neg(u(0)), {{u(0), Int(kMin)}}, false, {}},
      {add(u(0), u(1)), {{u(0), Int(1)}}, false, {}},
      {eq(u(0), I(3)), {}, false, {}},
      {to_float(u(2)), {{u(0), Int(1)}}, false, {}},
  });
  EvalResult r = evaluate(add(u(0), u(7)), {{u(0), Int(1)}});
  EXPECT_NE(r.why.find("u7"), std::string::npos) << "why: " << r.why;
  r = evaluate(floordiv(u(0), u(1)), {{u(0), Int(1)}, {u(1), Int(0)}});
  EXPECT_NE(r.why.find("division by zero"), std::string::npos) << "why: " << r.why;
}

TEST(EvalTest, WhereEvaluatesOnlyTheChosenBranch) {
  ExprRef safe = where(eq(u(1), I(0)), I(0), floordiv(u(0), u(1)));
  CheckAll({
      {safe, {{u(0), Int(5)}, {u(1), Int(0)}}, true, Int(0)},
      {safe, {{u(0), Int(5)}, {u(1), Int(2)}}, true, Int(2)},
      {where(eq(u(1), I(0)), floordiv(u(0), u(1)), I(7)),
       {{u(0), Int(5)}, {u(1), Int(0)}},
       false,
       {}},
      {where(lt(u(0), I(0)), u(9), I(3)), {{u(0), Int(1)}}, true, Int(3)},
      {where(lt(u(0), I(0)), u(9), I(3)), {{u(0), Int(-1)}}, false, {}},
      {where(eq(u(2), I(0)), I(1), I(2)), {}, false, {}},
      {where(lt(u(0), I(0)), u(1), zf(0)), {{u(0), Int(-1)}, {u(1), Int(3)}}, true, Flt(3.0)},
      {bool_to_int(eq(u(0), I(1))), {{u(0), Int(1)}}, true, Int(1)},
      {bool_to_int(eq(u(0), I(1))), {{u(0), Int(2)}}, true, Int(0)},
  });
}

TEST(EvalTest, RelationsAndConnectives) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  CheckAll({
      {lt(u(0), u(1)), {{u(0), Int(2)}, {u(1), Int(3)}}, true, Bool(true)},
      {lt(u(0), u(1)), {{u(0), Int(3)}, {u(1), Int(3)}}, true, Bool(false)},
      {le(u(0), u(1)), {{u(0), Int(3)}, {u(1), Int(3)}}, true, Bool(true)},
      {ge(u(0), I(0)), {{u(0), Int(kMin)}}, true, Bool(false)},
      {eq(u(0), u(1)), {{u(0), Int(kMax)}, {u(1), Int(kMax)}}, true, Bool(true)},
      {ne(u(0), u(1)), {{u(0), Int(1)}, {u(1), Int(2)}}, true, Bool(true)},
      {eq(u(0), mul(I(4), u(1))), {{u(0), Int(8)}, {u(1), Int(2)}}, true, Bool(true)},
      {lt(zf(0), real(0.5)), {{zf(0), Flt(0.25)}}, true, Bool(true)},
      {lt(zf(0), real(0.5)), {{zf(0), Flt(nan)}}, true, Bool(false)},
      {le(zf(0), zf(1)), {{zf(0), Flt(nan)}, {zf(1), Flt(1.0)}}, true, Bool(false)},
      {ne(zf(0), zf(1)), {{zf(0), Flt(nan)}, {zf(1), Flt(nan)}}, true, Bool(true)},
      {eq(zf(0), zf(1)), {{zf(0), Flt(nan)}, {zf(1), Flt(nan)}}, true, Bool(false)},
      {lt(u(0), zf(0)), {{u(0), Int(1)}, {zf(0), Flt(1.5)}}, true, Bool(true)},
      {and_(lt(u(0), I(3)), lt(u(1), I(3))), {{u(0), Int(1)}, {u(1), Int(4)}}, true, Bool(false)},
      {or_(lt(u(0), I(3)), lt(u(1), I(3))), {{u(0), Int(1)}, {u(1), Int(4)}}, true, Bool(true)},
      {not_(or_(eq(u(0), I(1)), eq(u(1), I(1)))),
       {{u(0), Int(0)}, {u(1), Int(0)}},
       true,
       Bool(true)},
  });
}

// A comparison of two int64 values involves no arithmetic, so it is always defined.
TEST(EvalTest, RelationsAtInt64ExtremesAreDefined) {
  CheckAll({
      {lt(u(0), u(1)), {{u(0), Int(kMax)}, {u(1), Int(kMax)}}, true, Bool(false)},
      {gt(u(0), u(1)), {{u(0), Int(kMin)}, {u(1), Int(kMin)}}, true, Bool(false)},
  });
}

TEST(EvalTest, FloatConversionsAndTrueDivision) {
  double inf = std::numeric_limits<double>::infinity();
  CheckAll({
      {to_float(u(0)), {{u(0), Int(3)}}, true, Flt(3.0)},
      {to_float(u(0)), {{u(0), Int(kMax)}}, true, Flt(9223372036854775807.0)},
      {trunc_to_int(zf(0)), {{zf(0), Flt(2.75)}}, true, Int(2)},
      {trunc_to_int(zf(0)), {{zf(0), Flt(-2.75)}}, true, Int(-2)},
      {trunc_to_int(zf(0)), {{zf(0), Flt(-9.2233720368547758e18)}}, true, Int(kMin)},
      {trunc_to_int(zf(0)), {{zf(0), Flt(9.2233720368547758e18)}}, false, {}},
      {trunc_to_int(zf(0)), {{zf(0), Flt(inf)}}, false, {}},
      {trunc_to_int(zf(0)), {{zf(0), Flt(std::nan(""))}}, false, {}},
      {true_div(u(0), u(1)), {{u(0), Int(7)}, {u(1), Int(2)}}, true, Flt(3.5)},
      {true_div(u(0), u(1)), {{u(0), Int(-7)}, {u(1), Int(2)}}, true, Flt(-3.5)},
      {true_div(u(0), u(1)), {{u(0), Int(1)}, {u(1), Int(0)}}, false, {}},
      {true_div(zf(0), zf(1)), {{zf(0), Flt(0.0)}, {zf(1), Flt(0.0)}}, false, {}},
      {trunc_to_int(true_div(u(0), u(1))), {{u(0), Int(-7)}, {u(1), Int(2)}}, true, Int(-3)},
      {add(zf(0), u(0)), {{zf(0), Flt(0.5)}, {u(0), Int(2)}}, true, Flt(2.5)},
      {mul(real(2.0), zf(0)), {{zf(0), Flt(1.25)}}, true, Flt(2.5)},
      {max(u(0), u(1)), {{u(0), Int(-1)}, {u(1), Int(5)}}, true, Int(5)},
      {min(u(0), u(1)), {{u(0), Int(kMin)}, {u(1), Int(0)}}, true, Int(kMin)},
      {max(u(0), zf(0)), {{u(0), Int(2)}, {zf(0), Flt(1.5)}}, true, Flt(2.0)},
  });
}

}  // namespace
}  // namespace sf::sym
