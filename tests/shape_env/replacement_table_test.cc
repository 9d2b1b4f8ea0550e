// ReplacementTable: targets stay fully resolved (path compression on install), the first reason
// is kept, and renaming chains resolve to the newest name.
#include "engine/shape_env/replacement_table.h"

#include <gtest/gtest.h>

#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using testing::I;
using testing::U;

TEST(ReplacementTableTest, InstallCompressesPaths) {
  ReplacementTable t;
  EXPECT_EQ(t.find(U(0)), U(0));
  EXPECT_TRUE(t.install(U(0), sym::add(U(1), I(1)), "first").empty());
  // u1 -> 2*u2 rewrites u0's target, which mentions u1.
  std::vector<ExprRef> rewritten = t.install(U(1), sym::mul(I(2), U(2)), "second");
  EXPECT_EQ(rewritten, std::vector<ExprRef>{U(0)});
  EXPECT_EQ(t.find(U(0)), sym::add(sym::mul(I(2), U(2)), I(1)));
  EXPECT_EQ(t.replace(sym::add(U(0), U(1))), sym::add(sym::mul(I(4), U(2)), I(1)));
  EXPECT_EQ(t.target(U(2)), std::nullopt);
  EXPECT_TRUE(t.is_replaced(U(1)));
}

TEST(ReplacementTableTest, KeepsTheFirstReason) {
  ReplacementTable t;
  t.install(U(0), I(3), "trivial_lhs");
  t.install(U(0), I(3), "later");
  EXPECT_EQ(t.reasons().at(U(0)), "trivial_lhs");
}

TEST(ReplacementTableTest, RenamingsResolveToTheNewestName) {
  ReplacementTable t;
  t.record_renaming(U(0), U(3));
  t.record_renaming(U(3), U(7));
  EXPECT_EQ(t.resolve_renaming(U(0)), U(7));
  EXPECT_EQ(t.resolve_renaming(U(5)), U(5));
}

}  // namespace
}  // namespace sf
