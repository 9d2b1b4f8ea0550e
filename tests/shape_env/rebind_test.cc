// Re-propagation (spec §2.11–§2.12, INV-7, INV-17, INV-23): rebind_unbacked renames fresh retrace
// symbols back to the recorded ones; rename_unbacked_to and eliminate_unbacked.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using namespace sf::testing;

// Each case: the first trace's value, and the retrace value built from a fresh symbol.
struct RetraceCase {
  const char* name;
  Value (*first)(ShapeEnv&);
  Value (*retrace)(ShapeEnv&);
};

TEST(Rebind, FreshSymbolRenamedBackToRecordedOne) {
  const RetraceCase cases[] = {
      {"item", [](ShapeEnv& e) { return Value(e.create_unbacked_symint()); },
       [](ShapeEnv& e) { return Value(e.create_unbacked_symint()); }},
      {"nonzero size",
       [](ShapeEnv& e) {
         return tensor({e.create_unbacked_symint(), 2});
       },
       [](ShapeEnv& e) {
         return tensor({e.create_unbacked_symint(), 2});
       }},
      {"tuple element",
       [](ShapeEnv& e) {
         return Value::tuple({SymInt(1), e.create_unbacked_symint()});
       },
       [](ShapeEnv& e) {
         return Value::tuple({SymInt(1), e.create_unbacked_symint()});
       }},
      {"scaled size (DivideByKey)",
       [](ShapeEnv& e) { return tensor({e.create_unbacked_symint() * 10}); },
       [](ShapeEnv& e) { return tensor({e.create_unbacked_symint() * 10}); }},
      {"bool item (ConvertIntKey, Piecewise undone)",
       [](ShapeEnv& e) { return Value(e.create_unbacked_symbool()); },
       [](ShapeEnv& e) { return Value(e.create_unbacked_symbool()); }},
  };
  for (const RetraceCase& c : cases) {
    SCOPED_TRACE(c.name);
    ShapeEnv env;
    Value first = c.first(env);
    Bindings recorded = *env.compute_unbacked_bindings(first);
    ASSERT_EQ(recorded.count(U(0)), 1u);
    Value again = c.retrace(env);
    env.rebind_unbacked(recorded, again, /*is_placeholder=*/false);
    EXPECT_EQ(env.replace(U(1)), U(0)) << "INV-17: replace(fresh) == old";
    ASSERT_EQ(env.unbacked_renamings().count(U(1)), 1u);
    EXPECT_EQ(env.unbacked_renamings().at(U(1)), U(0));
    EXPECT_EQ(env.replace(U(0)), U(0)) << "the old name stays the representative";
    EXPECT_EQ(env.var_range(U(1)), env.var_range(U(0)));
  }
}

TEST(Rebind, ConstantResultsAreSkipped) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  Bindings recorded = *env.compute_unbacked_bindings(tensor({u0, 3}));
  std::string before = env.state_str();
  // On retrace the op was constant-ified (item() of a constant tensor): nothing to rebind.
  env.rebind_unbacked(recorded, tensor({7, 3}), false);
  EXPECT_TRUE(env.replacements().empty());
  EXPECT_TRUE(env.unbacked_renamings().empty());
  EXPECT_TRUE(env.deferred_runtime_asserts().empty()) << "no runtime assert for such a symbol";
  EXPECT_EQ(env.state_str(), before);
}

TEST(Rebind, BackedResultsAreSkipped) {
  ShapeEnv env;
  SymInt s = env.create_symbol(4, "x.size()[0]", DimDynamic::kDynamic);
  SymInt u0 = env.create_unbacked_symint();
  Bindings recorded = *env.compute_unbacked_bindings(Value(u0));
  env.rebind_unbacked(recorded, Value(s), false);
  EXPECT_TRUE(env.replacements().empty());
  EXPECT_TRUE(env.unbacked_renamings().empty());
}

TEST(Rebind, SameSymbolComingBackIsAMemoDisaster) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  Value v = tensor({u0});
  Bindings recorded = *env.compute_unbacked_bindings(v);
  try {
    env.rebind_unbacked(recorded, v, false);
    FAIL() << "expected EngineBug";
  } catch (const EngineBug& e) {
    EXPECT_NE(std::string(e.what()).find("possible memo disaster"), std::string::npos) << e.what();
  }
}

TEST(Rebind, PlaceholdersAndEmptyBindingsAreSkipped) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  Value v(u0);
  Bindings recorded = *env.compute_unbacked_bindings(v);
  // The same value would be a memo disaster for a non-placeholder; placeholders return first.
  EXPECT_NO_THROW(env.rebind_unbacked(recorded, v, /*is_placeholder=*/true));
  EXPECT_NO_THROW(env.rebind_unbacked({}, v, false));
  EXPECT_TRUE(env.unbacked_renamings().empty());
}

TEST(Rebind, RecordedNamesAreResolvedThroughEarlierRenamings) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  Bindings first = *env.compute_unbacked_bindings(Value(u0));
  SymInt u1 = env.create_unbacked_symint();
  Bindings second = *env.compute_unbacked_bindings(Value(u1));  // meta written with u1
  env.rebind_unbacked(first, Value(u1), false);                 // u1 -> u0
  SymInt u2 = env.create_unbacked_symint();
  env.rebind_unbacked(second, Value(u2), false);  // {u1: ()} resolves to {u0: ()}
  EXPECT_EQ(env.unbacked_renamings().at(U(2)), U(0));
  EXPECT_EQ(env.replace(U(2)), U(0));
}

// INV-7 (vi), the historical bug: a replacement the fresh symbol already had moves to the old name.
struct CarryCase {
  const char* name;
  ExprRef (*learn)(ShapeEnv&, const SymInt& fresh);  // installs fresh -> dest; returns dest
};

TEST(Rebind, RenameCarriesExistingReplacementToOldName) {
  const CarryCase cases[] = {
      {"constant",
       [](ShapeEnv& e, const SymInt& f) {
         e.check(sym_eq(f, 5), "fresh == 5");
         return I(5);
       }},
      {"backed symbol",
       [](ShapeEnv& e, const SymInt& f) {
         SymInt s = e.create_symbol(6, "y.size()[0]", DimDynamic::kDynamic);
         e.check(sym_eq(f, s), "fresh == s");
         return s.expr();
       }},
      {"backed expression",
       [](ShapeEnv& e, const SymInt& f) {
         SymInt s = e.create_symbol(6, "y.size()[0]", DimDynamic::kDynamic);
         e.check(sym_eq(f, s + 1), "fresh == s + 1");
         return sym::add(s.expr(), I(1));
       }},
  };
  for (const CarryCase& c : cases) {
    SCOPED_TRACE(c.name);
    ShapeEnv env;
    SymInt old_u = env.create_unbacked_symint();
    env.compute_unbacked_bindings(Value(old_u));
    SymInt fresh = env.create_unbacked_symint();
    env.compute_unbacked_bindings(Value(fresh));
    ExprRef dest = c.learn(env, fresh);
    ASSERT_EQ(env.replace(U(1)), dest) << "precondition: the fresh symbol has a replacement";
    env.rename_unbacked_to(U(1), U(0));
    EXPECT_EQ(env.unbacked_renamings().at(U(1)), U(0));
    EXPECT_EQ(env.replace(U(0)), dest) << "INV-7 (vi): replace(old) == dest";
    EXPECT_EQ(env.replace(U(1)), dest) << "INV-7 (iii): replace(fresh) == replace(old)";
    for (const auto& [k, v] : env.replacements()) {
      EXPECT_FALSE(sym::has_symbol(v, k)) << "INV-8: " << k->str() << " -> " << v->str();
    }
  }
}

TEST(Rebind, RenameNarrowsRangesAndSharesSizeLikeness) {
  ShapeEnv env;
  SymInt old_u = env.create_unbacked_symint();
  env.constrain_range_for_size(old_u.expr(), 0, 16);
  SymInt fresh = env.create_unbacked_symint();
  env.rename_unbacked_to(fresh.expr(), old_u.expr());
  EXPECT_EQ(env.replace(U(1)), U(0));
  EXPECT_EQ(env.var_range(U(1)).str(), "[0, 16]") << "INV-7 (iv)";
  EXPECT_TRUE(env.var_range(U(0)).issubset(env.var_range(U(1))));
  EXPECT_EQ(env.is_size_like(U(1)), env.is_size_like(U(0))) << "INV-7 (v)";
}

TEST(Rebind, EliminateUnbacked) {
  ShapeEnv env;
  SymInt s = env.create_symbol(9, "z.size()[0]", DimDynamic::kDynamic);
  SymInt a = env.create_unbacked_symint(), b = env.create_unbacked_symint();
  env.eliminate_unbacked(a.expr(), I(9));
  env.eliminate_unbacked(b.expr(), s.expr());
  EXPECT_EQ(env.replace(U(0)), I(9));
  EXPECT_EQ(env.var_range(U(0)).str(), "[9, 9]");
  EXPECT_EQ(env.replace(U(1)), s.expr());
  EXPECT_EQ(env.var_range(U(1)).str(), env.var_range(s.expr()).str());
  EXPECT_TRUE(env.unbacked_renamings().empty());
}

}  // namespace
}  // namespace sf
