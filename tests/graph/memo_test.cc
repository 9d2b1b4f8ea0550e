// Unbacked memos (spec §4.1, §4.3, INV-16, INV-25) observed through traced programs: hits within
// an epoch, misses after an epoch bump or an in-place mutation, and no sharing across fresh
// tensors.
#include <gtest/gtest.h>

#include "engine/base/errors.h"
#include "engine/fake/fake_tensor.h"
#include "engine/graph/passes/repropagate.h"
#include "tests/graph/test_util.h"

namespace sf::graph {
namespace {

using namespace sf::graph::testing;

const fake::FakeTensor& fake_input(const Trace& t, const std::string& name) {
  Node* n = find_node(t.graph, name);
  EXPECT_NE(n, nullptr) << name;
  return fake::fake_of(n->value);
}

constexpr const char* kTwoIndexes =
    "input x: f32[6, 2] = randn(seed=1)\n"
    "input m: bool[6] = [True, False, True, True, False, True]\n"
    "a = index(x, m)\n"
    "b = index(x, m)\n"
    "return a + b\n";

TEST(Memo, HitWithinEpochSharesSymbolAndSecondNodeBindsNothing) {
  Trace t = trace(kTwoIndexes);
  EXPECT_EQ(bindings_of(t.graph, "index"), "{u0: size(0)}");
  EXPECT_EQ(bindings_of(t.graph, "index_1"), "{}");
  EXPECT_EQ(value_type_str(find_node(t.graph, "index_1")->value), "f32[u0, 2]");
  EXPECT_EQ(value_type_str(find_node(t.graph, "add")->value), "f32[u0, 2]");
  EXPECT_EQ(t.env->unbacked_symint_counter(), 1);
  EXPECT_TRUE(t.env->deferred_runtime_asserts().empty()) << "u0 vs u0 needs no broadcast assert";
  const fake::Memo& memo = fake_input(t, "m").nonzero_memo;
  ASSERT_TRUE(memo.value.has_value());
  EXPECT_EQ(memo.value->expr(), U(0));
  EXPECT_EQ(memo.version, 0);
  EXPECT_EQ(memo.epoch, 0);
}

TEST(Memo, MissAfterEpochBump) {
  Trace t = trace(kTwoIndexes);
  const fake::FakeTensor& m = fake_input(t, "m");
  ASSERT_TRUE(t.mode->memo_get(m, &fake::FakeTensor::nonzero_memo).has_value());
  t.mode->bump_epoch();
  EXPECT_FALSE(t.mode->memo_get(m, &fake::FakeTensor::nonzero_memo).has_value());
  EXPECT_FALSE(m.nonzero_memo.value.has_value()) << "a stale memo is cleared on read";
}

// Re-propagation bumps the epoch: the first index allocates fresh u1, the second hits the new memo.
TEST(Memo, RepropagationRefillsMemoInNewEpoch) {
  Trace t = trace(kTwoIndexes);
  Graph g = repropagate(t);
  EXPECT_EQ(bindings_of(g, "index"), "{u1: size(0)}");
  EXPECT_EQ(bindings_of(g, "index_1"), "{}");
  EXPECT_EQ(value_type_str(find_node(g, "index_1")->value), "f32[u1, 2]");
  const fake::Memo& memo = fake_input(t, "m").nonzero_memo;
  ASSERT_TRUE(memo.value.has_value());
  EXPECT_EQ(memo.value->expr(), U(1));
  EXPECT_EQ(memo.epoch, 1);
  EXPECT_EQ(t.env->unbacked_renamings().at(U(1)), U(0));
}

TEST(Memo, MissAfterInPlaceMutation) {
  Trace t = trace(
      "input t: i64[5] = [1, 0, 3, 2, 0]\n"
      "a = nonzero(t)\nb = nonzero(t)\n"
      "t = add_(t, 1)\n"
      "c = nonzero(t)\nd = item(sum(t))\n"
      "return a, b, c, d\n");
  EXPECT_EQ(binding_sites(t.graph),
            (std::vector<std::string>{"nonzero {u0: size(0)}", "nonzero_2 {u1: size(0)}",
                                      "item {u2: ()}"}));
  EXPECT_EQ(bindings_of(t.graph, "nonzero_1"), "{}");
  const fake::FakeTensor& in = fake_input(t, "t");
  EXPECT_EQ(in.version(), 1) << "add_ bumps the shared version counter";
  EXPECT_EQ(in.nonzero_memo.value->expr(), U(1));
  EXPECT_EQ(in.nonzero_memo.version, 1);
}

TEST(Memo, FreshIntermediatesNeverShareButOneIntermediateDoes) {
  Trace t = trace(
      "input x: i64[6] = [1, -2, 3, 0, 5, -1]\n"
      "a = nonzero(x > 0)\nb = nonzero(x > 0)\n"
      "g = x > 0\nc = nonzero(g)\nd = nonzero(g)\n"
      "return a, b, c, d\n");
  EXPECT_EQ(binding_sites(t.graph),
            (std::vector<std::string>{"nonzero {u0: size(0)}", "nonzero_1 {u1: size(0)}",
                                      "nonzero_2 {u2: size(0)}"}));
  // The same intermediate tensor object reused by name hits its own memo, as in PyTorch.
  EXPECT_EQ(value_type_str(find_node(t.graph, "nonzero_3")->value), "i64[u2, 1]");
  EXPECT_EQ(bindings_of(t.graph, "nonzero_3"), "{}");
}

TEST(Memo, ItemMemoHitAndMissAfterMutation) {
  Trace t = trace(
      "input t: i64[1] = [4]\n"
      "i1 = item(t)\ni2 = item(t)\n"
      "t = add_(t, 1)\ni3 = item(t)\n"
      "return i1 + i2, i3\n");
  EXPECT_EQ(binding_sites(t.graph), (std::vector<std::string>{"item {u0: ()}", "item_2 {u1: ()}"}));
  EXPECT_EQ(find_node(t.graph, "item_1")->value.expr(), U(0));
  EXPECT_EQ(find_node(t.graph, "add")->value.expr()->str(), "2*u0");
}

TEST(Memo, UniqueMemoSharedAcrossReturnCountsVariants) {
  Trace t = trace(
      "input x: i64[6] = [3, 1, 3, 2, 1, 3]\n"
      "a = unique(x)\nb = unique(x)\n"
      "v, c = unique(x, return_counts=True)\n"
      "return a, b, v, c\n");
  EXPECT_EQ(binding_sites(t.graph), std::vector<std::string>{"unique {u0: size(0)}"});
  EXPECT_EQ(bindings_of(t.graph, "unique_2"), "{}");
  EXPECT_EQ(value_type_str(find_node(t.graph, "unique_2")->value), "(i64[u0], i64[u0])");
  EXPECT_EQ(range_of(*t.env, U(0)), "[0, 6]");
  EXPECT_TRUE(t.env->is_size_like(U(0)));
  EXPECT_EQ(fake_input(t, "x").unique_memo.value->expr(), U(0));
}

TEST(Memo, InferenceModeNeverWritesMemo) {
  Trace t = trace(std::string("# mode: inference\n") + kTwoIndexes);
  EXPECT_EQ(binding_sites(t.graph),
            (std::vector<std::string>{"index {u0: size(0)}", "index_1 {u1: size(0)}"}));
  EXPECT_FALSE(fake_input(t, "m").nonzero_memo.value.has_value());
  // Different sizes now need a broadcast assert between the two results.
  EXPECT_EQ(bucket(*t.env, U(1)), std::vector<std::string>{"Eq(u0, u1)"});
}

TEST(Memo, StaticallyEmptyInputsGiveLiteralZeroAndNoSymbol) {
  Trace t = trace(
      "input e: f32[0] = arange()\ninput f: f32[2, 0] = arange()\n"
      "a = nonzero(e)\nb = nonzero(f)\nc = unique(e)\n"
      "return a, b, c\n");
  EXPECT_EQ(t.env->unbacked_symint_counter(), 0) << "INV-25";
  EXPECT_EQ(value_type_str(find_node(t.graph, "nonzero")->value), "i64[0, 1]");
  EXPECT_EQ(value_type_str(find_node(t.graph, "nonzero_1")->value), "i64[0, 2]");
  EXPECT_EQ(value_type_str(find_node(t.graph, "unique")->value), "f32[0]");
  EXPECT_TRUE(binding_sites(t.graph).empty());
}

TEST(Memo, ViewOfMaskIsAFreshTensorAndMutatingUnderAViewIsUnsupported) {
  Trace t = trace(
      "input x: f32[6] = arange()\n"
      "input m: bool[6] = [True, False, True, True, False, True]\n"
      "v = slice(m, 0, 0, 6)\na = index(x, m)\nb = index(x, v)\n"
      "return a, b\n");
  EXPECT_EQ(binding_sites(t.graph),
            (std::vector<std::string>{"index {u0: size(0)}", "index_1 {u1: size(0)}"}));
  try {
    trace("input t: i64[4] = [1, 0, 2, 0]\nv = slice(t, 0, 0, 2)\nt = add_(t, 1)\nreturn v\n");
    FAIL() << "add_ under a live view must be rejected";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("view 'v'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sf::graph
