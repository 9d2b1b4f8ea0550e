// The expression limits of expr.h (tree size, depth, Pow exponent): a factory that would build a
// node beyond one raises UserError(kTooComplex) naming the op, before anything walks the tree.
#include <gtest/gtest.h>

#include <string>

#include "engine/base/errors.h"
#include "engine/sym/eval.h"
#include "engine/sym/make.h"
#include "engine/sym/simplify.h"
#include "engine/sym/walk.h"

namespace sf::sym {
namespace {

ExprRef u(int i) { return symbol(SymKind::kUnbackedInt, i); }

// Calls f, which must raise too_complex with a message containing each of `parts`.
template <typename F>
void expect_too_complex(F f, std::initializer_list<const char*> parts) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kTooComplex) << e.what();
    for (const char* p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

// m = max(m, n); n = min(m, n): the DAG gains two nodes a round, the tree doubles. Without the
// limit, 40 rounds build a 2^41-node tree that str(), the evaluator and Z3 walk node by node.
TEST(LimitsTest, DoublingChainStopsAtTheSizeLimit) {
  ExprRef m = u(0), n = u(1);
  int rounds = 0;
  expect_too_complex(
      [&] {
        for (; rounds < 40; ++rounds) {
          ExprRef next_m = max(m, n);
          n = min(m, n);
          m = next_m;
        }
      },
      {"Max", "grew too large", "the limit is 10000"});
  EXPECT_LT(rounds, 14);
  EXPECT_LE(m->size(), kMaxExprSize);
  EXPECT_LE(n->size(), kMaxExprSize);
  // What was built stays usable: printing and evaluating cost the tree size, within the limit.
  EXPECT_FALSE(m->str().empty());
  EXPECT_TRUE(evaluate(m, {{u(0), Concrete::of_int(3)}, {u(1), Concrete::of_int(4)}}).defined);
}

TEST(LimitsTest, SizeIsTheTreeSize) {
  ExprRef a = floordiv(u(0), integer(2));  // FloorDiv(u0, 2): 3 nodes
  EXPECT_EQ(a->size(), 3u);
  EXPECT_EQ(a->depth(), 2u);
  ExprRef b = add(a, mod(a, integer(3)));  // Add(FloorDiv, PythonMod(FloorDiv, 3))
  EXPECT_EQ(b->size(), 1u + 3u + 5u);
  EXPECT_EQ(b->depth(), 4u);
}

// a = -(a // 3): two levels a statement. Without the limit, 2,000 statements overflow the 8 MB
// stack in the recursive walkers (the evaluator's frames are the largest).
TEST(LimitsTest, DeepChainStopsAtTheDepthLimit) {
  ExprRef a = u(0);
  expect_too_complex(
      [&] {
        for (int i = 0; i < 20000; ++i) a = neg(floordiv(a, integer(3)));
      },
      {"nest too deeply", "the limit is 1000"});
  EXPECT_LE(a->depth(), kMaxExprDepth);
  EXPECT_GT(a->depth(), kMaxExprDepth - 3);
  // The deepest expression allowed is still printed, evaluated and simplified.
  EXPECT_FALSE(a->str().empty());
  EXPECT_TRUE(evaluate(a, {{u(0), Concrete::of_int(1000)}}).defined);
  EXPECT_LE(simplify(a)->depth(), kMaxExprDepth);
}

// a = a * a doubles the exponent. Without the limit, u0**(2**61) is two nodes, and evaluating
// it at u0 = 1 (or substituting u0 := 1, or bounding it) loops 2**61 times.
TEST(LimitsTest, RepeatedSquaringStopsAtTheExponentLimit) {
  ExprRef a = u(0);
  expect_too_complex(
      [&] {
        for (int i = 0; i < 61; ++i) a = mul(a, a);
      },
      {"Pow", "exponent 128", "the limit is 64"});
  EXPECT_EQ(a->str(), "u0**64");
  EXPECT_EQ(xreplace(a, {{u(0), integer(1)}}), integer(1));
  EXPECT_EQ(xreplace(a, {{u(0), integer(-1)}}), integer(1));
  expect_too_complex([&] { xreplace(a, {{u(0), integer(2)}}); }, {"overflow"});
}

// Operands are described by their sizes, never printed (they may be as large as the limit).
TEST(LimitsTest, MessageNamesTheOperandsBySize) {
  ExprRef m = u(0), n = u(1);
  try {
    for (int i = 0; i < 40; ++i) {
      ExprRef next = add(floordiv(m, integer(2)), mod(n, integer(3)));
      n = add(floordiv(n, integer(2)), mod(m, integer(3)));
      m = next;
    }
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    std::string what = e.what();
    EXPECT_LT(what.size(), 400u) << what;
    EXPECT_NE(what.find("2 operands (sizes "), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace sf::sym
