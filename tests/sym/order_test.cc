// engine/sym/expr.h compare(): a total, deterministic order consistent with pointer equality, and
// the canonical argument order of commutative nodes, independent of construction order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/sym/make.h"

namespace sf::sym {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr double kInf = std::numeric_limits<double>::infinity();

ExprRef u(int i) { return symbol(SymKind::kUnbackedInt, i); }
ExprRef s(int i) { return symbol(SymKind::kSize, i); }
ExprRef zf(int i) { return symbol(SymKind::kFloat, i); }
ExprRef zuf(int i) { return symbol(SymKind::kUnbackedFloat, i); }
ExprRef I(int64_t v) { return integer(v); }

int Sign(int c) { return (c > 0) - (c < 0); }

// A pool covering every node kind that factories can produce, plus close neighbours.
std::vector<ExprRef> Pool() {
  return {I(kMin),
          I(-2),
          I(0),
          I(3),
          I(kMax),
          I(9007199254740993),
          real(-kInf),
          real(-1.5),
          real(-0.0),
          real(0.0),
          real(0.5),
          real(3.0),
          real(9007199254740992.0),
          real(kInf),
          false_expr(),
          true_expr(),
          s(0),
          s(1),
          zf(0),
          u(0),
          u(1),
          u(12),
          zuf(0),
          add(u(0), I(1)),
          add(u(0), u(1)),
          add(u(0), real(0.5)),
          mul(I(2), u(0)),
          mul(u(0), u(1)),
          pow(u(0), 2),
          pow(u(0), 3),
          pow(zf(0), 2),
          floordiv(u(0), I(2)),
          floordiv(u(0), I(3)),
          floordiv(u(1), I(2)),
          mod(u(0), I(2)),
          clean_div(u(0), u(1)),
          max(u(0), u(1)),
          max(std::vector<ExprRef>{u(0), u(1), s(0)}),
          min(u(0), u(1)),
          where(eq(u(0), I(0)), u(1), u(0)),
          to_float(u(0)),
          trunc_to_int(zf(0)),
          true_div(u(0), u(1)),
          eq(u(0), I(1)),
          ne(u(0), I(1)),
          lt(u(0), u(1)),
          le(u(0), I(4)),
          lt(zf(0), real(0.5)),
          and_(eq(u(0), I(1)), eq(u(1), I(2))),
          or_(eq(u(0), I(1)), eq(u(1), I(2)))};
}

// Every property of a total order over `pool`, reported with the offending inputs.
void CheckTotalOrder(const std::vector<ExprRef>& pool) {
  int failures = 0;
  auto fail = [&](const std::string& input, const std::string& output) {
    if (failures++ < 5) {
      ADD_FAILURE() << "\nInput:    " << input << "\nOutput:   " << output
                    << "\nExpected: a total order consistent with pointer equality";
    }
  };
  for (const ExprRef& a : pool) {
    for (const ExprRef& b : pool) {
      int ab = compare(a, b), ba = compare(b, a);
      std::string in = a->str() + " vs " + b->str();
      if ((ab == 0) != (a == b)) fail(in, "compare = " + std::to_string(ab));
      if (Sign(ab) != -Sign(ba)) fail(in, "not antisymmetric");
      for (const ExprRef& c : pool) {
        if (ab < 0 && compare(b, c) < 0 && compare(a, c) >= 0) {
          fail(in + " vs " + c->str(), "a < b < c but not a < c");
        }
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(OrderTest, CompareIsATotalOrderConsistentWithPointerEquality) { CheckTotalOrder(Pool()); }

// NaN constants must not break transitivity (std::sort needs a strict weak order).
TEST(OrderTest, CompareStaysTotalWithNaNConstants) {
  CheckTotalOrder({I(-1), I(1), real(-1.0), real(1.0), real(std::nan("")), real(-kInf)});
}

TEST(OrderTest, CompareIsDeterministicAcrossConstructionHistories) {
  std::vector<ExprRef> first = Pool();
  std::vector<std::vector<int>> signs;
  std::vector<uint64_t> hashes;
  for (const ExprRef& a : first) {
    hashes.push_back(a->hash());
    signs.emplace_back();
    for (const ExprRef& b : first) signs.back().push_back(Sign(compare(a, b)));
  }
  std::vector<std::string> text;
  for (const ExprRef& a : first) text.push_back(a->str());
  first.clear();  // free the nodes so the rebuilt ones live at other addresses
  std::vector<ExprRef> noise;
  for (int i = 100; i < 400; ++i) noise.push_back(add(u(i), I(i)));
  std::vector<ExprRef> second = Pool();
  ASSERT_EQ(second.size(), signs.size());
  for (size_t i = 0; i < second.size(); ++i) {
    EXPECT_EQ(second[i]->str(), text[i]);
    EXPECT_EQ(second[i]->hash(), hashes[i]) << "\nInput:    " << text[i] << " (rebuilt)";
    for (size_t j = 0; j < second.size(); ++j) {
      EXPECT_EQ(Sign(compare(second[i], second[j])), signs[i][j])
          << "\nInput:    " << text[i] << " vs " << text[j] << " (rebuilt)";
    }
  }
}

TEST(OrderTest, DocumentedClassOrder) {
  struct {
    ExprRef a, b;
  } ascending[] = {
      {I(5), real(5.5)},
      {real(5.0), I(6)},
      {I(1), real(1.0)},
      {real(kInf), false_expr()},
      {false_expr(), true_expr()},
      {true_expr(), s(0)},
      {s(7), zf(0)},
      {zf(7), u(0)},
      {u(7), zuf(0)},
      {u(2), u(10)},
      {zuf(9), add(u(0), I(1))},
      {I(kMax), s(0)},
      {real(-kInf), I(kMin)},
  };
  for (const auto& c : ascending) {
    EXPECT_LT(compare(c.a, c.b), 0) << "\nInput:    compare(" << c.a->str() << ", " << c.b->str()
                                    << ")\nOutput:   " << compare(c.a, c.b) << "\nExpected: < 0";
  }
}

// Builds op over every permutation of args and expects one node with strictly sorted args.
void CheckCanonical(const char* name, std::vector<ExprRef> args,
                    const std::function<ExprRef(const std::vector<ExprRef>&)>& op,
                    const char* expected) {
  std::sort(args.begin(), args.end(), [](const ExprRef& a, const ExprRef& b) {
    return a->hash() < b->hash();  // start from an order unrelated to compare()
  });
  ExprRef first = op(args);
  EXPECT_EQ(first->str(), expected)
      << "\nInput:    " << name << "\nOutput:   " << first->str() << "\nExpected: " << expected;
  for (size_t i = 1; i < first->num_args(); ++i) {
    EXPECT_LT(compare(first->arg(i - 1), first->arg(i)), 0) << name << ": " << first->str();
  }
  std::vector<size_t> perm(args.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  do {
    std::vector<ExprRef> permuted;
    for (size_t i : perm) permuted.push_back(args[i]);
    ExprRef out = op(permuted);
    ExprRef pairwise = permuted[0];  // left fold through the binary factory
    for (size_t i = 1; i < permuted.size(); ++i) pairwise = op({pairwise, permuted[i]});
    EXPECT_TRUE(out == first && pairwise == first)
        << "\nInput:    " << name << " in another order\nOutput:   " << out->str() << " / "
        << pairwise->str() << "\nExpected: " << first->str();
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(OrderTest, CommutativeArgumentOrderIsIndependentOfConstructionOrder) {
  std::vector<ExprRef> terms = {u(1), s(0), floordiv(u(0), I(2)), mul(u(0), u(1)), u(0)};
  CheckCanonical(
      "Add", terms, [](const auto& v) { return add(v); }, "s0 + u0 + u1 + u0*u1 + FloorDiv(u0, 2)");
  CheckCanonical(
      "Mul", {u(1), s(0), floordiv(u(0), I(2)), max(u(0), u(1)), zf(0)},
      [](const auto& v) { return mul(v); }, "s0*zf0*u1*FloorDiv(u0, 2)*Max(u0, u1)");
  CheckCanonical(
      "And", {ge(u(0), I(0)), le(u(1), I(5)), eq(u(2), I(3)), ne(u(3), I(1)), lt(u(0), u(1))},
      [](const auto& v) { return and_(v); },
      "Eq(u2, 3) & Ne(u3, 1) & (u0 >= 0) & (u1 <= 5) & (u0 + 1 <= u1)");
  CheckCanonical(
      "Max", {u(1), s(0), floordiv(u(0), I(2)), I(3), u(0)}, [](const auto& v) { return max(v); },
      "Max(3, s0, u0, u1, FloorDiv(u0, 2))");
  CheckCanonical(
      "Or", {eq(u(0), I(1)), lt(u(1), I(0)), eq(s(0), I(2))}, [](const auto& v) { return or_(v); },
      "Eq(s0, 2) | Eq(u0, 1) | (u1 <= -1)");
  CheckCanonical(
      "Min", {u(2), zf(0), real(1.5)}, [](const auto& v) { return min(v); }, "Min(1.5, zf0, u2)");
}

}  // namespace
}  // namespace sf::sym
