// engine/sym/simplify.h: division, min/max, relation and Piecewise rules on {expression, ranges,
// expected text} tables; every row is also checked for idempotence and for value preservation.
#include "engine/sym/simplify.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "engine/sym/bound.h"
#include "engine/sym/eval.h"
#include "engine/sym/make.h"
#include "engine/sym/walk.h"

namespace sf::sym {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
const ExtInt kOo = ExtInt::pos_inf();

ExprRef u(int i) { return symbol(SymKind::kUnbackedInt, i); }
ExprRef zf(int i) { return symbol(SymKind::kFloat, i); }
ExprRef I(int64_t v) { return integer(v); }
ValueRange R(ExtInt lo, ExtInt hi) { return ValueRange::ints(lo, hi); }

using Ranges = std::vector<std::pair<ExprRef, ValueRange>>;
struct SimplifyCase {
  ExprRef expr;
  Ranges ranges;
  const char* expected;
};

MapRangeEnv EnvOf(const Ranges& ranges) {
  MapRangeEnv env;
  for (const auto& [sym, r] : ranges) env.ranges[sym] = r;
  return env;
}

std::string Input(const SimplifyCase& c) {
  std::string s = c.expr->str() + " with {";
  for (const auto& [sym, r] : c.ranges) s += " " + sym->str() + ": " + r.str();
  return s + " }";
}

// Members of r to assign: r ∩ [-9, 9] and a few far values, or only int64 extremes.
std::vector<Concrete> SamplesOf(const ExprRef& sym, const ValueRange& r, bool extremes) {
  std::vector<Concrete> out;
  if (sym->is_float()) {
    for (double v :
         {-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.25, 2.0, 2.5, 3.0, 7.75, r.flo(), r.fhi()}) {
      if (std::isfinite(v) && r.contains_float(v)) out.push_back(Concrete::of_float(v));
    }
    return out;
  }
  std::vector<int64_t> small = {100, -100, 1001, -1001};
  for (int64_t v = -9; v <= 9; ++v) small.push_back(v);
  std::vector<int64_t> far = {kMin, kMin + 1, -1, 0, 1, kMax - 1, kMax};
  for (int64_t v : extremes ? far : small) {
    if (r.contains(v)) out.push_back(Concrete::of_int(v));
  }
  return out;
}

// Calls fn on every assignment of sampled values to the free symbols of e.
void ForEachAssignment(const ExprRef& e, const RangeEnv& env, bool extremes,
                       const std::function<void(const Assignment&)>& fn) {
  std::vector<ExprRef> syms = free_symbols(e);
  std::vector<std::vector<Concrete>> samples;
  for (const ExprRef& s : syms) samples.push_back(SamplesOf(s, env.symbol_range(s), extremes));
  Assignment a;
  std::function<void(size_t)> go = [&](size_t i) {
    if (i == syms.size()) return fn(a);
    for (const Concrete& v : samples[i]) {
      a[syms[i]] = v;
      go(i + 1);
    }
  };
  go(0);
}

std::string Show(const Assignment& a) {
  std::string s;
  for (const auto& [sym, v] : a) s += " " + sym->str() + "=" + v.str();
  return s;
}

bool SameValue(const Concrete& a, const Concrete& b) {
  return a.type == b.type ? a == b : a.as_double() == b.as_double();
}

// Output text, idempotence, and value preservation wherever the input is defined.
void CheckTable(const std::vector<SimplifyCase>& cases) {
  for (const SimplifyCase& c : cases) {
    MapRangeEnv env = EnvOf(c.ranges);
    ExprRef out = simplify(c.expr, env);
    EXPECT_EQ(out->str(), c.expected) << "\nInput:    " << Input(c) << "\nOutput:   " << out->str()
                                      << "\nExpected: " << c.expected;
    ExprRef again = simplify(out, env);
    EXPECT_EQ(again, out) << "\nInput:    simplify(" << out->str()
                          << ")\nOutput:   " << again->str() << "\nExpected: " << out->str()
                          << " (idempotence)";
    std::string bad;
    int defined = 0;
    ForEachAssignment(c.expr, env, false, [&](const Assignment& a) {
      EvalResult before = evaluate(c.expr, a), after = evaluate(out, a);
      defined += before.defined;
      if (bad.empty() && before.defined &&
          (!after.defined || !SameValue(before.value, after.value))) {
        bad = "\nInput:    " + Input(c) + " at" + Show(a) + "\nOutput:   " + out->str() + " = " +
              (after.defined ? after.value.str() : "undefined") +
              "\nExpected: " + before.value.str();
      }
    });
    EXPECT_TRUE(bad.empty()) << bad;
    EXPECT_GT(defined, 0) << "\nInput:    " << Input(c) << "\nOutput:   no defined sample";
  }
}

std::vector<SimplifyCase> DivisionCases() {
  Ranges small = {{u(0), R(0, 4)}, {u(1), R(5, 10)}};
  return {
      {floordiv(add(mul(I(4), u(0)), u(1)), I(4)), {}, "u0 + FloorDiv(u1, 4)"},
      {floordiv(add(mul(I(4), u(0)), I(7)), I(4)), {}, "u0 + 1"},
      {floordiv(add(mul(I(6), u(0)), I(4)), I(8)), {}, "FloorDiv(3*u0 + 2, 4)"},
      {floordiv(floordiv(u(0), I(3)), I(4)), {}, "FloorDiv(u0, 12)"},
      {floordiv(add(floordiv(u(0), I(3)), I(8)), I(4)), {}, "FloorDiv(u0, 12) + 2"},
      {floordiv(add(u(0), I(1)), I(2)), {}, "FloorDiv(u0 + 1, 2)"},
      {floordiv(u(0), I(4)), {{u(0), R(0, 3)}}, "0"},
      {floordiv(u(0), I(4)), {{u(0), R(8, 11)}}, "2"},
      {floordiv(u(0), I(4)), {{u(0), R(-4, -1)}}, "-1"},
      {floordiv(add(u(0), u(1)), I(8)), {{u(0), R(0, 3)}, {u(1), R(0, 4)}}, "0"},
      {floordiv(u(0), I(-4)), {}, "FloorDiv(-u0, 4)"},
      {floordiv(add(u(0), I(1)), I(-2)), {}, "FloorDiv(-u0 + 1, 2) - 1"},
      {floordiv(mul(u(0), u(1)), u(1)), {}, "u0"},
      {floordiv(mul(I(6), mul(u(0), u(1))), mul(I(3), u(1))), {}, "2*u0"},
      {floordiv(mul(I(6), u(0)), mul(I(4), u(1))), {}, "FloorDiv(6*u0, 4*u1)"},
      {floordiv(u(0), u(1)), small, "0"},
      {floordiv(u(0), add(u(0), u(1))), {{u(0), R(0, kOo)}, {u(1), R(1, kOo)}}, "0"},
      {clean_div(add(mul(I(8), u(1)), u(0)), I(4)), {}, "2*u1 + CleanDiv(u0, 4)"},
      {mod(add(mul(I(4), u(0)), u(1)), I(4)), {}, "PythonMod(u1, 4)"},
      {mod(add(mul(I(4), u(0)), I(5)), I(4)), {}, "1"},
      {mod(add(mul(I(6), u(0)), I(4)), I(8)), {}, "2*PythonMod(3*u0 + 2, 4)"},
      {mod(mod(u(0), I(8)), I(4)), {}, "PythonMod(u0, 4)"},
      {mod(u(0), I(4)), {{u(0), R(0, 3)}}, "u0"},
      {mod(u(0), I(4)), {{u(0), R(4, 7)}}, "u0 - 4"},
      {mod(u(0), I(4)), {{u(0), R(-4, -1)}}, "u0 + 4"},
      {mod(mul(I(2), u(0)), I(4)), {{u(0), R(0, 1)}}, "2*u0"},
      {mod(u(0), I(-4)), {}, "-PythonMod(-u0, 4)"},
      {mod(mul(u(0), u(1)), u(1)), {}, "0"},
      {mod(u(0), u(1)), small, "u0"},
      {mod(add(u(0), u(1)), I(8)), {{u(0), R(0, 3)}, {u(1), R(0, 4)}}, "u0 + u1"},
      {mod(u(0), u(1)), {}, "PythonMod(u0, u1)"},
      // The input divides in doubles, so the integer rewrites need operands within 2^53.
      {trunc_to_int(true_div(u(0), u(1))),
       {{u(0), R(0, 1000)}, {u(1), R(1, 1000)}},
       "FloorDiv(u0, u1)"},
      {trunc_to_int(true_div(u(0), u(1))),
       {{u(0), R(0, kOo)}, {u(1), R(1, kOo)}},
       "TruncToInt(FloatTrueDiv(ToFloat(u0), ToFloat(u1)))"},
      {trunc_to_int(true_div(u(0), u(1))),
       {{u(0), R(-5, 1000)}, {u(1), R(1, 1000)}},
       "TruncToInt(FloatTrueDiv(ToFloat(u0), ToFloat(u1)))"},
      {trunc_to_int(true_div(mul(u(0), u(1)), u(1))),
       {{u(0), R(-1000, 1000)}, {u(1), R(-1000, 1000)}},
       "u0"},
  };
}

std::vector<SimplifyCase> MinMaxRelationPiecewiseCases() {
  Ranges apart = {{u(0), R(0, 3)}, {u(1), R(5, 9)}};
  Ranges nonneg_u1 = {{u(1), R(0, kOo)}};
  return {
      {max(u(0), u(1)), apart, "u1"},
      {min(u(0), u(1)), apart, "u0"},
      {max(u(0), add(u(0), u(1))), nonneg_u1, "u0 + u1"},
      {min(u(0), add(u(0), u(1))), nonneg_u1, "u0"},
      {max(std::vector<ExprRef>{u(0), u(1), I(2)}), {{u(0), R(3, 4)}}, "Max(u0, u1)"},
      {max(u(0), I(0)), {{u(0), R(-5, 5)}}, "Max(0, u0)"},
      {max(u(0), u(1)), {}, "Max(u0, u1)"},
      {min(zf(0), real(1.0)), {{zf(0), ValueRange::floats(2, 3)}}, "1.0"},
      {le(u(0), add(u(0), u(1))), nonneg_u1, "True"},
      {le(max(u(0), u(2)), add(max(u(0), u(2)), u(1))), nonneg_u1, "True"},
      {lt(u(0), u(1)), apart, "True"},
      {lt(u(0), u(1)), {{u(0), R(0, 4)}, {u(1), R(4, 9)}}, "u0 + 1 <= u1"},
      {eq(u(0), u(1)), apart, "False"},
      {ne(u(0), u(1)), apart, "True"},
      {eq(u(0), I(5)), {{u(0), R(5, 5)}}, "True"},
      {ge(u(0), I(0)), {{u(0), R(0, kOo)}}, "True"},
      {ge(u(0), I(0)), {}, "u0 >= 0"},
      {eq(mod(u(0), I(4)), I(4)), {}, "False"},
      {lt(mod(u(0), I(4)), I(4)), {}, "True"},
      {ge(mod(u(0), I(-4)), I(1)), {}, "False"},
      {lt(zf(0), real(0.5)), {{zf(0), ValueRange::floats(1, 2)}}, "False"},
      {le(zf(0), zf(1)),
       {{zf(0), ValueRange::floats(0, 1)}, {zf(1), ValueRange::floats(1, 2)}},
       "True"},
      {and_(ge(u(0), I(0)), le(u(0), I(8))), {{u(0), R(0, 5)}}, "True"},
      {and_(ge(u(0), I(0)), le(u(0), I(8))), {{u(0), R(-3, 5)}}, "u0 >= 0"},
      {or_(lt(u(0), I(0)), gt(u(0), I(10))), {{u(0), R(0, 10)}}, "False"},
      {where(ge(u(0), I(0)), u(1), u(2)), {{u(0), R(0, kOo)}}, "u1"},
      {where(lt(mod(u(0), I(4)), I(4)), u(1), u(2)), {}, "u1"},
      {bool_to_int(eq(u(0), I(1))), {{u(0), R(2, 5)}}, "0"},
      {where(lt(u(0), I(4)), floordiv(u(0), I(4)), u(1)), {{u(0), R(0, 3)}}, "0"},
      {where(eq(u(1), I(0)), I(0), floordiv(u(0), u(1))),
       {},
       "Piecewise((0, Eq(u1, 0)), (FloorDiv(u0, u1), True))"},
  };
}

TEST(SimplifyTest, DivisionModAndTruncRules) { CheckTable(DivisionCases()); }
TEST(SimplifyTest, MinMaxRelationAndPiecewiseRules) { CheckTable(MinMaxRelationPiecewiseCases()); }

// known_divisible lets FloorDiv become CleanDiv.
class DivisibleEnv : public MapRangeEnv {
 public:
  bool known_divisible(const ExprRef& a, const ExprRef& b) const override {
    return (a == u(0) && (b == I(4) || b == u(1)));
  }
};

TEST(SimplifyTest, KnownDivisibleHookMakesCleanDiv) {
  DivisibleEnv env;
  env.ranges[u(0)] = R(0, int64_t{1} << 40);
  env.ranges[u(1)] = R(1, int64_t{1} << 40);
  SimplifyCase cases[] = {
      {floordiv(u(0), I(4)), {}, "CleanDiv(u0, 4)"},
      {floordiv(add(mul(I(8), u(2)), u(0)), I(4)), {}, "2*u2 + CleanDiv(u0, 4)"},
      {floordiv(u(0), I(8)), {}, "FloorDiv(u0, 8)"},
      {floordiv(u(0), u(1)), {}, "CleanDiv(u0, u1)"},
      {trunc_to_int(true_div(u(0), u(1))), {}, "CleanDiv(u0, u1)"},
  };
  for (const SimplifyCase& c : cases) {
    ExprRef out = simplify(c.expr, env);
    EXPECT_EQ(out->str(), c.expected)
        << "\nInput:    " << c.expr->str() << "\nOutput:   " << out->str()
        << "\nExpected: " << c.expected;
    EXPECT_EQ(simplify(out, env), out) << "idempotence: " << out->str();
  }
}

// defined(input) ⇒ defined(output), sampling int64 extremes inside each symbol's range.
TEST(SimplifyTest, NoRewriteIsLessDefinedAtInt64Extremes) {
  for (const auto& table : {DivisionCases(), MinMaxRelationPiecewiseCases()}) {
    for (const SimplifyCase& c : table) {
      MapRangeEnv env = EnvOf(c.ranges);
      ExprRef out = simplify(c.expr, env);
      bool reported = false;
      ForEachAssignment(c.expr, env, true, [&](const Assignment& a) {
        if (reported || !evaluate(c.expr, a).defined || evaluate(out, a).defined) return;
        reported = true;
        ADD_FAILURE() << "\nInput:    " << Input(c) << " at" << Show(a) << " (defined)"
                      << "\nOutput:   " << out->str() << " is undefined there"
                      << "\nExpected: a rewrite at least as defined as its input";
      });
    }
  }
}

}  // namespace
}  // namespace sf::sym
