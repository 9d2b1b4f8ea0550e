// Factories: canonical forms, local folding and printing (PyTorch spellings).
#include "engine/sym/make.h"

#include <gtest/gtest.h>

#include <vector>

#include "engine/base/errors.h"

namespace sf::sym {
namespace {

ExprRef u(int i) { return symbol(SymKind::kUnbackedInt, i); }
ExprRef s(int i) { return symbol(SymKind::kSize, i); }
ExprRef zuf(int i) { return symbol(SymKind::kUnbackedFloat, i); }
ExprRef I(int64_t v) { return integer(v); }

struct PrintCase {
  ExprRef expr;
  const char* expected;
};

TEST(MakeTest, PrintsInPyTorchSpelling) {
  PrintCase cases[] = {
      {u(0), "u0"},
      {s(1), "s1"},
      {zuf(0), "zuf0"},
      {floordiv(u(0), I(4)), "FloorDiv(u0, 4)"},
      {eq(u(0), I(1)), "Eq(u0, 1)"},
      {mod(u(0), I(3)), "PythonMod(u0, 3)"},
      {ge(u(0), I(0)), "u0 >= 0"},
      {gt(u(0), I(4)), "u0 >= 5"},
      {le(u(1), u(0)), "u1 <= u0"},
      {le(u(0), I(5)), "u0 <= 5"},
      {eq(u(0), mul(I(4), u(1))), "Eq(u0, 4*u1)"},
      {eq(mul(I(4), u(1)), u(0)), "Eq(u0, 4*u1)"},
      {add(u(0), I(1)), "u0 + 1"},
      {sub(I(3), u(0)), "-u0 + 3"},
      {mul(u(0), u(0)), "u0**2"},
      {mul(add(u(0), I(1)), add(u(0), I(-1))), "u0**2 - 1"},
      {bool_to_int(eq(u(0), I(1))), "Piecewise((1, Eq(u0, 1)), (0, True))"},
      {max(I(1), u(0)), "Max(1, u0)"},
      {and_(ge(u(0), I(0)), le(u(0), I(8))), "(u0 >= 0) & (u0 <= 8)"},
      {eq(add(u(0), u(1)), I(10)), "Eq(u0 + u1, 10)"},
      {le(mul(I(2), u(0)), I(7)), "u0 <= 3"},
      {le(sub(u(0), u(1)), I(5)), "u0 <= u1 + 5"},
      {lt(zuf(0), real(0.5)), "zuf0 < 0.5"},
      {not_(le(u(0), I(3))), "u0 >= 4"},
  };
  for (const PrintCase& c : cases) EXPECT_EQ(c.expr->str(), c.expected);
}

TEST(MakeTest, HashConsingGivesPointerEquality) {
  EXPECT_EQ(add(u(0), u(1)), add(u(1), u(0)));
  EXPECT_EQ(mul(I(2), add(u(0), u(1))), add(mul(I(2), u(1)), mul(I(2), u(0))));
  EXPECT_EQ(eq(u(0), I(3)), eq(I(3), u(0)));
  EXPECT_NE(u(0), u(1));
}

TEST(MakeTest, FoldsConstantsWithPythonSemantics) {
  EXPECT_EQ(floordiv(I(-7), I(2)), I(-4));
  EXPECT_EQ(mod(I(-7), I(2)), I(1));
  EXPECT_EQ(mod(I(7), I(-3)), I(-2));
  EXPECT_EQ(sub(u(0), u(0)), I(0));
  EXPECT_EQ(eq(u(0), u(0)), true_expr());
  EXPECT_EQ(eq(mul(I(2), u(0)), I(3)), false_expr());  // gcd does not divide
  EXPECT_EQ(and_(eq(u(0), I(1)), ne(u(0), I(1))), false_expr());
}

TEST(MakeTest, DivisionByConstantZeroIsAUserError) {
  try {
    floordiv(u(0), I(0));
    FAIL() << "expected a ZeroDivision user error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kZeroDivision);
    EXPECT_NE(std::string(e.what()).find("u0"), std::string::npos);
  }
}

TEST(MakeTest, OverflowWhileFoldingIsAUserError) {
  EXPECT_THROW(mul(I(INT64_MAX), I(2)), UserError);
}

TEST(MakeTest, NodesAreFreedWhenUnreferenced) {
  release_factory_memo();
  size_t before = live_expr_count();
  {
    ExprRef big = add(mul(u(100), u(101)), floordiv(u(102), I(7)));
    EXPECT_GT(live_expr_count(), before);
  }
  EXPECT_GT(live_expr_count(), before);  // the factory memo holds the product
  release_factory_memo();
  EXPECT_EQ(live_expr_count(), before);
}

// The intern table is open-addressed: freeing a node shifts later nodes of its probe run back.
// Thousands of nodes made, about half freed, scattered over the table (its probe runs
// broken up everywhere, the table grown several times on the way), and the rest asked for again:
// every survivor is found as the same node, every freed one is made anew, and the live count moves
// by exactly what changed.
TEST(MakeTest, InternTableFindsSurvivorsAfterScatteredFrees) {
  release_factory_memo();
  size_t before = live_expr_count();
  constexpr int kNodes = 20000;
  std::vector<ExprRef> nodes;
  for (int i = 0; i < kNodes; ++i) nodes.push_back(I(1000003 + int64_t{i} * 7919));
  EXPECT_EQ(live_expr_count(), before + kNodes);
  std::vector<const Expr*> addresses;
  for (const ExprRef& n : nodes) addresses.push_back(n.get());
  for (int i = 0; i < kNodes; ++i) {
    if (((uint64_t(i) * 2654435761u) >> 7) & 1) nodes[i] = ExprRef();  // a scattered half
  }
  size_t kept = 0;
  for (const ExprRef& n : nodes) kept += n ? 1 : 0;
  EXPECT_EQ(live_expr_count(), before + kept);
  for (int i = 0; i < kNodes; ++i) {
    ExprRef again = I(1000003 + int64_t{i} * 7919);
    if (nodes[i]) {
      EXPECT_EQ(again.get(), addresses[i]) << "survivor " << i << " not found";
    } else {
      EXPECT_EQ(again->int_value(), 1000003 + int64_t{i} * 7919);
      nodes[i] = again;  // made anew
    }
  }
  EXPECT_EQ(live_expr_count(), before + kNodes);
  nodes.clear();
  EXPECT_EQ(live_expr_count(), before);
}

// Float constants differ mostly in their high bits; the table must still spread them (its first
// cut indexed by the hash's low bits, which every round float shared: one cluster, O(n) lookups).
TEST(MakeTest, InternTableSpreadsFloatConstants) {
  std::vector<ExprRef> nodes;
  for (int k = 1; k <= 3000; ++k) nodes.push_back(real(k / 4.0));
  for (int k = 1; k <= 3000; ++k) nodes.push_back(I(int64_t{k} << 40));
  EXPECT_LT(intern_table_longest_probe(), 64u);
}

}  // namespace
}  // namespace sf::sym
