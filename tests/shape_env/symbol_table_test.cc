// SymbolTable: backed naming by source digest, unbacked counters, pending vs ignore-fresh, hints.
#include "engine/shape_env/symbol_table.h"

#include <gtest/gtest.h>

#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using testing::U;

TEST(SymbolTableTest, BackedNamesDependOnTheSourceAndProbe) {
  SymbolTable a, b;
  ExprRef x = a.new_backed("L['x'].size()[0]", 5);
  ExprRef y = a.new_backed("L['y'].size()[0]", 7);
  // The same source gets the same name in another table, whatever came first there.
  b.new_backed("L['y'].size()[0]", 7);
  EXPECT_EQ(b.new_backed("L['x'].size()[0]", 5), x);
  EXPECT_NE(x, y);
  EXPECT_EQ(a.hint(x), 5);
  EXPECT_EQ(a.hint(y), 7);
  EXPECT_TRUE(a.is_backed(x));
  // A second symbol for the same source probes to the next free id.
  EXPECT_NE(a.new_backed("L['x'].size()[0]", 5), x);
}

TEST(SymbolTableTest, UnbackedSymbolsArePendingUnlessIgnored) {
  SymbolTable t;
  ExprRef u0 = t.new_unbacked(sym::SymKind::kUnbackedInt);
  EXPECT_EQ(u0, U(0));
  EXPECT_EQ(t.pending(), std::vector<ExprRef>{u0});
  EXPECT_FALSE(t.set_ignore_fresh(true));
  ExprRef u1 = t.new_unbacked(sym::SymKind::kUnbackedInt);
  EXPECT_TRUE(t.set_ignore_fresh(false));
  EXPECT_EQ(t.pending(), std::vector<ExprRef>{u0});  // u1 was allocated under ignore-fresh
  EXPECT_TRUE(t.unbound_by_design().count(u1));
  ExprRef f0 = t.new_unbacked(sym::SymKind::kUnbackedFloat);
  EXPECT_EQ(t.int_counter(), 2);
  EXPECT_EQ(t.float_counter(), 1);
  EXPECT_EQ(t.take_pending(), (std::vector<ExprRef>{u0, f0}));
  EXPECT_TRUE(t.pending().empty());
  t.new_unbacked(sym::SymKind::kUnbackedInt);
  t.discard_pending();
  EXPECT_TRUE(t.pending().empty());
  EXPECT_TRUE(t.unbound_by_design().count(U(2)));
}

TEST(SymbolTableTest, KnownValuePrefersTheHintThenTheRealValue) {
  SymbolTable t;
  ExprRef s = t.new_backed("x", 4);
  ExprRef u = t.new_unbacked(sym::SymKind::kUnbackedInt);
  EXPECT_EQ(t.known_value(s), 4);
  EXPECT_EQ(t.known_value(u), std::nullopt);
  t.set_real_value(u, 9);
  EXPECT_EQ(t.known_value(u), 9);
  EXPECT_EQ(t.hint(u), std::nullopt);  // a real value is not a hint
  t.mark_unbacked_input(u, 3);
  EXPECT_EQ(t.oblivious_hint(u), 3);
  EXPECT_TRUE(t.unbacked_inputs().count(u));
}

TEST(SymbolTableTest, DuckSizingMapsAHintToItsFirstSymbol) {
  SymbolTable t;
  EXPECT_EQ(t.duck(6), std::nullopt);
  ExprRef s = t.new_backed("x", 6);
  t.set_duck(6, s);
  EXPECT_EQ(t.duck(6), s);
}

}  // namespace
}  // namespace sf
