// engine/sym/walk.h: free symbols (order, dedup, unbacked), xreplace (top-down, subexpression
// keys, simultaneous), substitute_symbols and the memoization of rewrite_bottom_up.
#include "engine/sym/walk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "engine/sym/make.h"

namespace sf::sym {
namespace {

ExprRef u(int i) { return symbol(SymKind::kUnbackedInt, i); }
ExprRef s(int i) { return symbol(SymKind::kSize, i); }
ExprRef zf(int i) { return symbol(SymKind::kFloat, i); }
ExprRef zuf(int i) { return symbol(SymKind::kUnbackedFloat, i); }
ExprRef I(int64_t v) { return integer(v); }

std::string Join(const std::vector<ExprRef>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i]->str();
  return out + "]";
}

struct ListCase {
  ExprRef expr;
  const char* expected;
};

TEST(WalkTest, FreeSymbolsAreCanonicallyOrderedAndDeduplicated) {
  ListCase cases[] = {
      {I(3), "[]"},
      {u(0), "[u0]"},
      {add(std::vector<ExprRef>{u(1), s(2), u(0), s(2)}), "[s2, u0, u1]"},
      {mul(floordiv(u(3), s(0)), mod(u(3), s(0))), "[s0, u3]"},
      {lt(zuf(0), add(to_float(u(0)), zf(1))), "[zf1, u0, zuf0]"},
      {where(eq(u(5), I(0)), s(1), max(u(5), s(1))), "[s1, u5]"},
      {and_(le(u(10), u(2)), eq(u(2), I(7))), "[u2, u10]"},
  };
  for (const ListCase& c : cases) {
    std::string out = Join(free_symbols(c.expr));
    EXPECT_EQ(out, c.expected) << "\nInput:    free_symbols(" << c.expr->str()
                               << ")\nOutput:   " << out << "\nExpected: " << c.expected;
  }
}

TEST(WalkTest, FreeUnbackedSymbols) {
  ListCase cases[] = {
      {add(s(0), s(1)), "[]"},
      {add(std::vector<ExprRef>{s(0), u(1), u(0)}), "[u0, u1]"},
      {lt(zuf(0), zf(0)), "[zuf0]"},
      {add(mul(s(0), u(4)), trunc_to_int(zuf(2))), "[u4, zuf2]"},
  };
  for (const ListCase& c : cases) {
    std::string out = Join(free_unbacked_symbols(c.expr));
    EXPECT_EQ(out, c.expected) << "\nInput:    free_unbacked_symbols(" << c.expr->str()
                               << ")\nOutput:   " << out << "\nExpected: " << c.expected;
    EXPECT_EQ(has_free_unbacked_symbols(c.expr), std::string(c.expected) != "[]") << c.expr->str();
  }
  EXPECT_FALSE(has_free_symbols(add(I(1), I(2))));
  EXPECT_TRUE(has_free_symbols(floordiv(s(0), I(2))));
  EXPECT_TRUE(has_symbol(max(u(0), floordiv(u(1), I(3))), u(1)));
  EXPECT_FALSE(has_symbol(max(u(0), floordiv(u(1), I(3))), u(2)));
  EXPECT_TRUE(contains_kind(add(u(0), floordiv(u(1), I(3))), ExprKind::kFloorDiv));
  EXPECT_FALSE(contains_kind(add(u(0), floordiv(u(1), I(3))), ExprKind::kMod));
}

struct ReplaceCase {
  ExprRef expr;
  ExprMap map;
  const char* expected;
};

TEST(WalkTest, XreplaceIsTopDownAndRebuildsThroughFactories) {
  ReplaceCase cases[] = {
      // A replaced subexpression is not descended into.
      {add(floordiv(u(0), I(2)), u(1)), {{floordiv(u(0), I(2)), u(2)}, {u(0), u(3)}}, "u1 + u2"},
      {floordiv(add(u(0), I(1)), I(2)), {{add(u(0), I(1)), u(5)}}, "FloorDiv(u5, 2)"},
      // Replacement values are not replaced again: a simultaneous swap.
      {add(u(0), mul(I(2), u(1))), {{u(0), u(1)}, {u(1), u(0)}}, "2*u0 + u1"},
      // Only structural subexpressions match: u0 + u1 is not a node of u0 + u1 + 1.
      {add(std::vector<ExprRef>{u(0), u(1), I(1)}), {{add(u(0), u(1)), u(9)}}, "u0 + u1 + 1"},
      {floordiv(u(0), u(1)), {{u(1), I(1)}}, "u0"},
      {mul(I(2), u(0)), {{I(2), I(3)}}, "3*u0"},
      {eq(u(0), u(1)), {{u(0), I(3)}, {u(1), I(3)}}, "True"},
      {lt(u(0), I(5)), {{u(0), add(u(1), u(2))}}, "u1 + u2 <= 4"},
      {max(u(0), u(1)), {{u(0), I(4)}, {u(1), I(7)}}, "7"},
      {where(eq(u(0), I(0)), u(1), u(2)), {{u(0), I(0)}}, "u1"},
      {u(0), {}, "u0"},
  };
  for (const ReplaceCase& c : cases) {
    ExprRef out = xreplace(c.expr, c.map);
    EXPECT_EQ(out->str(), c.expected)
        << "\nInput:    xreplace(" << c.expr->str() << ")\nOutput:   " << out->str()
        << "\nExpected: " << c.expected;
  }
  ExprRef e = add(floordiv(u(0), I(2)), u(1));
  EXPECT_EQ(xreplace(e, {{u(7), u(8)}}), e) << "unchanged input must return the same node";
}

TEST(WalkTest, SubstituteSymbols) {
  auto five_for_u0 = [](const ExprRef& sym) { return sym == u(0) ? I(5) : ExprRef(); };
  ExprRef e = floordiv(add(u(0), u(1)), I(2));
  EXPECT_EQ(substitute_symbols(e, five_for_u0)->str(), "FloorDiv(u1 + 5, 2)");
  EXPECT_EQ(substitute_symbols(e, [](const ExprRef& sym) { return sym; }), e);
  EXPECT_EQ(substitute_symbols(I(4), five_for_u0), I(4));
  std::vector<ExprRef> seen;
  substitute_symbols(add(std::vector<ExprRef>{u(2), mul(u(2), u(1)), s(0)}),
                     [&](const ExprRef& sym) {
                       seen.push_back(sym);
                       return ExprRef();
                     });
  EXPECT_EQ(Join(seen), "[s0, u1, u2]") << "each free symbol is offered once, in canonical order";
  ExprRef r = substitute_symbols(mod(u(0), I(3)), [](const ExprRef& sym) {
    return sym == u(0) ? add(mul(I(3), u(1)), I(6)) : ExprRef();
  });
  EXPECT_EQ(r, I(0)) << "PythonMod(3*u1 + 6, 3) folds in the factory: " << r->str();
}

TEST(WalkTest, ForEachSymbolWalksSmallTreesInPlaceAndLargeDagsOnce) {
  // Small: every occurrence.
  ExprRef small = add(mul(u(0), u(1)), floordiv(u(0), I(3)));
  std::vector<ExprRef> seen;
  for_each_symbol(small, [&](const ExprRef& x) { seen.push_back(x); });
  EXPECT_EQ(std::count(seen.begin(), seen.end(), u(0)), 2) << Join(seen) << " in " << small->str();
  EXPECT_EQ(std::count(seen.begin(), seen.end(), u(1)), 1) << Join(seen) << " in " << small->str();
  // Large: a chain of shared subtrees whose tree size doubles per level (2^k occurrences of
  // u0 and u1); each symbol must come exactly once.
  ExprRef e = add(u(0), u(1));
  for (int k = 0; k < 8; ++k) e = mul(floordiv(e, I(2)), floordiv(e, I(3)));
  ASSERT_GT(e->size(), kSmallTree);
  seen.clear();
  for_each_symbol(e, [&](const ExprRef& x) { seen.push_back(x); });
  EXPECT_EQ(Join(seen), "[u0, u1]");
  for_each_symbol(I(4), [&](const ExprRef& x) { ADD_FAILURE() << "a constant has no symbol"; });
}

TEST(WalkTest, RewriteBottomUpVisitsEachSharedNodeOnce) {
  ExprRef shared = floordiv(u(0), I(3));
  ExprRef e = add(shared, mul(shared, u(1)));  // Add(Mul(u1, FloorDiv(u0, 3)), FloorDiv(u0, 3))
  std::map<std::string, int> calls;
  ExprRef out = rewrite_bottom_up(e, [&](const ExprRef& x) {
    ++calls[x->str()];
    return x;
  });
  EXPECT_EQ(out, e) << "identity rewrite must return the same node";
  for (const auto& [node, n] : calls) {
    EXPECT_EQ(n, 1) << "\nInput:    " << e->str() << "\nOutput:   fn called " << n << " times on "
                    << node << "\nExpected: once";
  }
  EXPECT_EQ(calls.size(), 6u) << "nodes: Add, Mul, u1, FloorDiv, u0, 3";
  EXPECT_EQ(calls.count(shared->str()), 1u);
}

TEST(WalkTest, RewriteBottomUpSeesRebuiltChildren) {
  ExprRef e = add(floordiv(u(0), I(3)), u(1));
  std::vector<std::string> seen;
  ExprRef out = rewrite_bottom_up(e, [&](const ExprRef& x) {
    seen.push_back(x->str());
    return x == u(0) ? I(7) : x;
  });
  EXPECT_EQ(out->str(), "u1 + 2");
  // FloorDiv(7, 3) folds to 2 when rebuilt; fn sees the folded node, never the stale one.
  for (const std::string& x : seen) EXPECT_EQ(x.find("FloorDiv"), std::string::npos) << x;
  EXPECT_EQ(seen.back(), "u1 + 2");
}

}  // namespace
}  // namespace sf::sym
