// Binding-site discovery (spec §2.6–§2.8, §3.1): traversal order and keypaths, DivideByKey and
// ConvertIntKey, pending handling (errors, peek, None), the old-value rename path, key_get.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using namespace sf::testing;

Value tup(std::vector<Value> v) { return Value::tuple(std::move(v)); }

// Where fresh u0 (and u1) appear in a value, and the expected bindings (§2.6 order, INV-5).
struct PathCase {
  const char* name;
  Value (*make)(const SymInt& u0, const SymInt& u1);
  const char* expected;
};

TEST(Bindings, TraversalOrderAndEarliestPath) {
  const PathCase cases[] = {
      {"plain symbol",
       [](const SymInt& a, const SymInt& b) {
         return tup({a, b});
       },
       "{u0: [0], u1: [1]}"},
      {"tuple order, first occurrence wins",
       [](const SymInt& a, const SymInt& b) {
         return tup({Value(), b, a, tup({a, b})});
       },
       "{u0: [2], u1: [1]}"},
      {"nested tuples depth first",
       [](const SymInt& a, const SymInt& b) {
         return tup({tup({SymInt(3), tup({b})}), a});
       },
       "{u0: [1], u1: [0][1][0]}"},
      {"size before stride",
       [](const SymInt& a, const SymInt& b) {
         return tup({tensor({3, a}, {a, 1}, b)});
       },
       "{u0: [0].size(1), u1: [0].storage_offset()}"},
      {"stride before storage offset",
       [](const SymInt& a, const SymInt& b) {
         return tup({tensor({3, 3}, {b, a}, a)});
       },
       "{u0: [0].stride(1), u1: [0].stride(0)}"},
      {"tensor before later tuple element",
       [](const SymInt& a, const SymInt& b) {
         return tup({tensor({2}, {1}, a), b, a});
       },
       "{u0: [0].storage_offset(), u1: [1]}"},
      {"scaled sizes",
       [](const SymInt& a, const SymInt& b) {
         return tup({a * 10, b * 3});
       },
       "{u0: [0] // 10, u1: [1] // 3}"},
  };
  for (const PathCase& c : cases) {
    SCOPED_TRACE(c.name);
    ShapeEnv env;
    SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
    std::optional<Bindings> b = env.compute_unbacked_bindings(c.make(u0, u1));
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(bindings_str(*b), c.expected);
    for (const auto& [s, path] : *b) EXPECT_TRUE(keypath_well_formed(path)) << keypath_str(path);
    EXPECT_TRUE(env.pending_fresh_unbacked_symbols().empty());
  }
}

TEST(Bindings, DivideByKeyWithIntegerAndBackedCoefficient) {
  ShapeEnv env;
  SymInt s = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  ASSERT_TRUE(env.is_backed(s.expr()));
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  Bindings b = *env.compute_unbacked_bindings(tensor({u0 * 10, s * u1}, {1, 1}));
  ASSERT_EQ(b.size(), 2u);
  const KeyPath& p0 = b.at(U(0));
  ASSERT_EQ(p0.size(), 3u);
  EXPECT_EQ(p0.back().kind, KeyEntry::Kind::kDivideBy);
  EXPECT_EQ(p0.back().divisor, I(10));
  const KeyPath& p1 = b.at(U(1));
  ASSERT_EQ(p1.size(), 3u);
  EXPECT_EQ(p1.back().kind, KeyEntry::Kind::kDivideBy);
  EXPECT_EQ(p1.back().divisor, s.expr());
  EXPECT_EQ(keypath_str(p1), "size(1) // " + s.str());
  // key_get through the DivideByKey recovers the symbol itself (INV-4).
  EXPECT_EQ(key_get(tensor({u0 * 10, s * u1}, {1, 1}), p0).expr(), U(0));
}

TEST(Bindings, ConvertIntKeyForSymBool) {
  ShapeEnv env;
  SymBool b = env.create_unbacked_symbool();
  Bindings bs = *env.compute_unbacked_bindings(tup({SymInt(1), b}));
  EXPECT_EQ(bindings_str(bs), "{u0: [1] int()}");
  Value got = key_get(tup({SymInt(1), b}), bs.at(U(0)));
  EXPECT_EQ(got.expr()->str(), "Piecewise((1, Eq(u0, 1)), (0, True))");
}

// Values in which the fresh symbol never appears as a symbol, c*u, s*u or Eq(u, 1).
TEST(Bindings, UnexposedPendingSymbolThrows) {
  using Maker = Value (*)(const SymInt& u);
  const Maker makers[] = {
      [](const SymInt& u) { return Value(u + 1); },
      [](const SymInt& u) { return Value(SymInt(7)); },
      [](const SymInt& u) { return tensor({u + 1}); },
      [](const SymInt& u) { return Value(sym_eq(u, 2)); },
      [](const SymInt& u) { return Value(); },
  };
  for (Maker make : makers) {
    ShapeEnv env;
    SymInt u = env.create_unbacked_symint();
    Value v = make(u);
    SCOPED_TRACE(v.str());
    EXPECT_THROW(env.compute_unbacked_bindings(v), PendingUnbackedSymbolNotFound);
    EXPECT_TRUE(env.pending_fresh_unbacked_symbols().empty())
        << "pending is cleared before the traversal (§2.7 step 3)";
  }
}

TEST(Bindings, ErrorMessageNamesThePendingSymbol) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  try {
    env.compute_unbacked_bindings(Value(u + 1));
    FAIL() << "expected PendingUnbackedSymbolNotFound";
  } catch (const PendingUnbackedSymbolNotFound& e) {
    EXPECT_NE(std::string(e.what()).find("u0"), std::string::npos) << e.what();
  }
}

// u0*u1 with both pending is not c*u: the other factor is neither an Integer nor backed.
TEST(Bindings, ProductOfTwoPendingSymbolsIsNotABinding) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  EXPECT_THROW(env.compute_unbacked_bindings(Value(u0 * u1)), PendingUnbackedSymbolNotFound);
  // With u1 already bound (unbacked, not backed), u1*u2 does not bind u2 either.
  SymInt u2 = env.create_unbacked_symint();
  EXPECT_THROW(env.compute_unbacked_bindings(Value(u1 * u2)), PendingUnbackedSymbolNotFound);
}

TEST(Bindings, PeekLeavesPendingIntact) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  std::optional<Bindings> b = env.compute_unbacked_bindings(Value(u0), nullptr, /*peek=*/true);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(bindings_str(*b), "{u0: ()}") << "u1 missing is not an error when peeking";
  EXPECT_EQ(env.pending_fresh_unbacked_symbols(), (std::vector<ExprRef>{U(0), U(1)}));
  // A real (non-peek) call afterwards still finds both.
  EXPECT_EQ(bindings_str(*env.compute_unbacked_bindings(tup({u1, u0}))), "{u0: [1], u1: [0]}");
}

TEST(Bindings, NothingPendingReturnsNullopt) {
  ShapeEnv env;
  EXPECT_FALSE(env.compute_unbacked_bindings(Value(SymInt(3))).has_value());
  SymInt u = env.create_unbacked_symint();
  env.compute_unbacked_bindings(Value(u));
  // u is no longer pending: a second node exposing it binds nothing (None, not {}).
  EXPECT_FALSE(env.compute_unbacked_bindings(Value(u)).has_value());
  {
    auto scope = env.ignore_fresh_unbacked_symbols();
    { auto nested = env.ignore_fresh_unbacked_symbols(); }
    EXPECT_TRUE(env.ignoring_fresh_unbacked_symbols()) << "nesting-safe (§2.4)";
    SymInt t = env.create_unbacked_symint();
    EXPECT_TRUE(env.pending_fresh_unbacked_symbols().empty());
    EXPECT_FALSE(env.compute_unbacked_bindings(Value(t)).has_value());
  }
  EXPECT_FALSE(env.ignoring_fresh_unbacked_symbols());
  env.create_unbacked_symint();
  EXPECT_EQ(env.pending_fresh_unbacked_symbols(), std::vector<ExprRef>{U(2)})
      << "the ignore scope ended";
}

// §2.7 step 6: re-propagating an existing node with the old value at hand.
TEST(Bindings, OldValueRenamesFreshToOldUnbacked) {
  ShapeEnv env;
  SymInt old_u = env.create_unbacked_symint();
  Value old_v = tensor({old_u, 4});
  env.compute_unbacked_bindings(old_v);
  SymInt fresh = env.create_unbacked_symint();
  Bindings b = *env.compute_unbacked_bindings(tensor({fresh, 4}), &old_v);
  EXPECT_EQ(bindings_str(b), "{u1: size(0)}") << "the result keeps the fresh name";
  EXPECT_EQ(env.replace(U(1)), U(0));
  ASSERT_EQ(env.unbacked_renamings().count(U(1)), 1u);
  EXPECT_EQ(env.unbacked_renamings().at(U(1)), U(0));
  EXPECT_EQ(bindings_str(env.resolve_unbacked_bindings(b)), "{u0: size(0)}");
  EXPECT_TRUE(env.pending_fresh_unbacked_symbols().empty());
}

TEST(Bindings, OldValueConstantOrBackedEliminatesFresh) {
  ShapeEnv env;
  SymInt s = env.create_symbol(6, "x.size()[0]", DimDynamic::kDynamic);
  const std::pair<Value, ExprRef> olds[] = {{Value(SymInt(5)), I(5)}, {Value(s), s.expr()}};
  int64_t next = 0;
  for (const auto& [old_v, expected] : olds) {
    SCOPED_TRACE(old_v.str());
    SymInt fresh = env.create_unbacked_symint();
    ExprRef f = U(next++);
    Bindings b = *env.compute_unbacked_bindings(Value(fresh), &old_v);
    EXPECT_EQ(b.count(f), 1u);
    EXPECT_EQ(env.replace(f), expected);
    EXPECT_EQ(env.unbacked_renamings().count(f), 0u) << "elimination is not a renaming";
  }
}

TEST(Bindings, OldValueWithSameSymbolChangesNothing) {
  ShapeEnv env;
  SymInt u = env.create_unbacked_symint();
  Value v(u);
  EXPECT_EQ(bindings_str(*env.compute_unbacked_bindings(v, &v)), "{u0: ()}");
  EXPECT_TRUE(env.replacements().empty());
  EXPECT_TRUE(env.unbacked_renamings().empty());
}

TEST(Bindings, ResolveUnbackedBindings) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  env.compute_unbacked_bindings(tup({u0, u1}));
  Bindings raw{{U(1), {KeyEntry::sequence(1)}}, {U(5), {}}};
  EXPECT_EQ(bindings_str(env.resolve_unbacked_bindings(raw)), "{u1: [1], u5: ()}");
  env.rename_unbacked_to(U(1), U(0));
  EXPECT_EQ(bindings_str(env.resolve_unbacked_bindings(raw)), "{u0: [1], u5: ()}");
  EXPECT_TRUE(env.resolve_unbacked_bindings({}).empty());
}

TEST(Bindings, KeypathWellFormed) {
  using K = KeyEntry;
  const K size = K::call_method(TensorMethod::kSize),
          stride = K::call_method(TensorMethod::kStride),
          off = K::call_method(TensorMethod::kStorageOffset), s0 = K::sequence(0),
          div = K::divide_by(I(4)), conv = K::convert_int(), inner = K::inner_tensor("a");
  const std::pair<KeyPath, bool> cases[] = {
      {{}, true},
      {{s0, s0, inner, size, s0}, true},
      {{stride, K::sequence(2), div}, true},
      {{off}, true},
      {{inner, off, conv}, true},
      {{div}, true},
      {{size}, false},                // size needs an index
      {{off, s0}, false},             // nothing indexes an offset
      {{div, s0}, false},             // DivideByKey only last
      {{conv, div}, false},           // at most one conversion
      {{size, s0, size, s0}, false},  // one method call
      {{size, s0, inner}, false},     // containers come first
  };
  for (const auto& [path, ok] : cases) {
    EXPECT_EQ(keypath_well_formed(path), ok) << keypath_str(path);
  }
}

TEST(Bindings, KeyGetEvaluatesLeftToRight) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  Value v = tup({SymInt(2), tensor({u0, 3}, {3, u1}, u0 + 1)});
  using K = KeyEntry;
  EXPECT_EQ(key_get(v, {K::sequence(0)}).expr(), I(2));
  EXPECT_EQ(
      key_get(v, {K::sequence(1), K::call_method(TensorMethod::kSize), K::sequence(0)}).expr(),
      U(0));
  EXPECT_EQ(
      key_get(v, {K::sequence(1), K::call_method(TensorMethod::kStride), K::sequence(1)}).expr(),
      U(1));
  EXPECT_EQ(key_get(v, {K::sequence(1), K::call_method(TensorMethod::kStorageOffset)}).expr(),
            sym::add(U(0), I(1)));
  Value sizes = key_get(v, {K::sequence(1), K::call_method(TensorMethod::kSize)});
  EXPECT_EQ(sizes.kind(), Value::Kind::kTuple);
  EXPECT_EQ(sizes.elems().size(), 2u);
  EXPECT_EQ(key_get(Value(u0 * 6), {K::divide_by(I(3))}).expr(), sym::mul(I(2), U(0)));
  EXPECT_EQ(key_get(v, {}).kind(), Value::Kind::kTuple);
}

}  // namespace
}  // namespace sf
