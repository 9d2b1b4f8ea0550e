// Layout predicates over unbacked sizes (spec §10.1 T10/T11): is_non_overlapping_and_dense and
// is_contiguous answer without data-dependent errors, false when undecidable, and never mutate.
#include "engine/shape_env/contiguity.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "tests/shape_env/test_util.h"

namespace sf {
namespace {

using namespace sf::testing;

struct LayoutCase {
  const char* name;
  std::vector<SymInt> sizes, strides;
  bool dense;       // is_non_overlapping_and_dense
  bool contiguous;  // is_contiguous
};

// T10/T11 use a plain create_unbacked_symint() u0 (no _check_is_size in the current upstream
// test), so the answers below must not depend on u0 being size-like.
std::vector<LayoutCase> cases(const SymInt& u0, const SymInt& u1) {
  SymInt m = sym_max(1, u0);  // torch.sym_max(1, u0)
  return {
      {"(u0, 2)/(2, 1)", {u0, 2}, {2, 1}, true, true},
      {"(2, u0)/(1, 2)", {2, u0}, {1, 2}, true, false},
      {"(u0,)/(1,)", {u0}, {1}, true, true},
      {"(1,)/(u0,)", {1}, {u0}, true, true},
      {"(2, 3, 1, u0) contiguous with Max strides", {2, 3, 1, u0}, {m * 3, m, m, 1}, true, true},
      {"(2, 3, 1, u0) permuted Max strides", {2, 3, 1, u0}, {m, m, 1, m * 3}, false, false},
      {"arbitrary strides (u1, u0, u0 + u1)", {u0 * 2, u0, 1}, {u1, u0, u0 + u1}, false, false},
      {"arbitrary strides (u1, 3, 1)", {2, 3, u0}, {u1, 3, 1}, false, false},
      {"overlapping (2, 3)/(1, 1)", {2, 3}, {1, 1}, false, false},
      {"gap (2, 3)/(4, 1)", {2, 3}, {4, 1}, false, false},
  };
}

void CheckLayouts(ShapeEnv& env, const SymInt& u0, const SymInt& u1) {
  std::string before = env.state_str();
  for (const LayoutCase& c : cases(u0, u1)) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(is_non_overlapping_and_dense(env, c.sizes, c.strides), c.dense);
    EXPECT_EQ(is_contiguous(env, c.sizes, c.strides), c.contiguous);
  }
  EXPECT_EQ(env.state_str(), before) << "layout predicates add no guards and no asserts";
}

TEST(Contiguity, T10_T11_PlainUnbacked) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  CheckLayouts(env, u0, u1);
}

TEST(Contiguity, T10_SizeLikeUnbacked) {
  // The older upstream T10 called torch._check_is_size(u0) first; the answers are the same.
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  env.check_is_size(u0);
  CheckLayouts(env, u0, u1);
}

TEST(Contiguity, BackedTransposedIsDenseNotContiguous) {
  ShapeEnv env;
  SymInt a0 = env.create_symbol(5, "x.size()[0]", DimDynamic::kDynamic);
  EXPECT_TRUE(is_non_overlapping_and_dense(env, {a0, 7}, {1, a0}));
  EXPECT_FALSE(is_contiguous(env, {a0, 7}, {1, a0}));
  EXPECT_TRUE(is_contiguous(env, {7, a0}, {a0, 1}));
  EXPECT_TRUE(env.guards().empty());
}

// A size learned to be 1 after the strides were made: the dim is skipped, and the strides before
// it still carry its Max(1, u0) factor, which the replacement u0 -> 1 must fold (campaign seed
// 5204761: a view of [2, u0, u1] after check(u0 == 1) was refused as not contiguous).
TEST(Contiguity, ASizeLaterKnownToBeOneKeepsContiguousStridesContiguous) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  env.check_is_size(u0);
  env.check_is_size(u1);
  std::vector<SymInt> sizes{2, u0, u1};
  std::vector<SymInt> strides{sym_max(1, u0) * sym_max(1, u1), sym_max(1, u1), 1};
  EXPECT_TRUE(is_contiguous(env, sizes, strides));
  env.check(sym_eq(u0, 1), "u0 is one");
  EXPECT_TRUE(is_contiguous(env, sizes, strides));
  EXPECT_TRUE(is_non_overlapping_and_dense(env, sizes, strides));
}

TEST(Contiguity, TensorMetaContiguousStridesAreContiguous) {
  // The engine's own contiguous strides use Max(size, 1) like PyTorch: they must be recognized.
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
  const std::vector<std::vector<SymInt>> shapes = {{u0},     {2, u0},       {u0, 3},
                                                   {u0, u1}, {3, u0, 1, 2}, {u0, u1, 4}};
  for (const auto& sizes : shapes) {
    auto t = TensorMeta::contiguous(sizes);
    SCOPED_TRACE(Value::tensor(t).str());
    EXPECT_TRUE(is_contiguous(env, t->sizes(), t->strides()));
    EXPECT_TRUE(is_non_overlapping_and_dense(env, t->sizes(), t->strides()));
  }
}

TEST(Contiguity, SizeOneDimsIgnoreTheirStride) {
  ShapeEnv env;
  SymInt u0 = env.create_unbacked_symint();
  EXPECT_TRUE(is_contiguous(env, {1, 4}, {u0, 1}));
  EXPECT_TRUE(is_non_overlapping_and_dense(env, {4, 1}, {1, u0}));
  EXPECT_TRUE(is_contiguous(env, {}, {})) << "a scalar is contiguous";
  EXPECT_TRUE(is_non_overlapping_and_dense(env, {}, {}));
}

}  // namespace
}  // namespace sf
