// AssertionStore: asserts are bucketed by their newest unbacked int symbol, and axioms answer in
// their stated and their current simplified forms (reindexed after a replacement).
#include "engine/shape_env/assertion_store.h"

#include <gtest/gtest.h>

#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using testing::I;
using testing::U;

TEST(AssertionStoreTest, BucketsByNewestUnbackedSymbol) {
  AssertionStore a;
  a.defer(sym::le(U(1), U(4)), "u1 <= u4");
  a.defer(sym::le(I(0), U(2)), "u2 >= 0");
  a.defer(sym::eq(sym::symbol(sym::SymKind::kSize, 3), I(4)), "backed only");
  EXPECT_EQ(a.num_deferred(), 3);
  EXPECT_EQ(a.deferred().at(U(4)).size(), 1u);
  EXPECT_EQ(a.deferred().at(U(2))[0].msg, "u2 >= 0");
  EXPECT_EQ(a.deferred().at(ExprRef()).size(), 1u);  // the None bucket
  EXPECT_EQ(AssertionStore::bucket_key(sym::le(U(9), U(10))), U(10));
}

TEST(AssertionStoreTest, AxiomsMatchStatedAndCurrentForms) {
  AssertionStore a;
  ExprRef stated = sym::le(U(0), I(5));
  a.add_axiom(stated, true, stated);
  EXPECT_EQ(a.apply_axioms(stated), sym::boolean(true));
  EXPECT_EQ(a.apply_axioms(sym::le(U(1), I(5))), sym::le(U(1), I(5)));  // unknown: unchanged
  // u0 is replaced by u1 + 1: after reindexing, the axiom also answers in terms of u1.
  auto simplify = [](const ExprRef& e) { return sym::xreplace(e, {{U(0), sym::add(U(1), I(1))}}); };
  a.reindex_mentioning(U(0), simplify);
  EXPECT_EQ(a.apply_axioms(simplify(stated)), sym::boolean(true));
  EXPECT_EQ(a.axioms().at(stated), true);
}

TEST(AssertionStoreTest, FrozenCountsIgnoredAsserts) {
  AssertionStore a;
  EXPECT_FALSE(a.frozen());
  a.freeze();
  a.count_ignored_while_frozen();
  EXPECT_TRUE(a.frozen());
  EXPECT_EQ(a.ignored_while_frozen(), 1);
}

}  // namespace
}  // namespace sf
