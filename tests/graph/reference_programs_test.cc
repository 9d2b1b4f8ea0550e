// Spec §11 reference pseudo-programs 1–13 written as .sfz programs and run through the tracer and
// the pipeline: node bindings and keypaths, ranges, replacements, deferred-assert buckets, and the
// runtime asserts of the final graph relative to the binding nodes.
#include <gtest/gtest.h>

#include "engine/base/errors.h"
#include "oracles/pipeline.h"
#include "tests/graph/test_util.h"

namespace sf::graph {
namespace {

using namespace sf::graph::testing;

oracles::PipelineResult run(std::string_view text) { return oracles::run_pipeline(sfz(text)); }

TEST(ReferencePrograms, Item1_IntItemBindsWholeValueWithoutRangeAsserts) {
  auto r = run("input t: i64[1] = [5]\nu = item(t)\nreturn u + 1\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  const Trace& t = *r.trace;
  EXPECT_EQ(binding_sites(t.graph), std::vector<std::string>{"item {u0: ()}"});
  EXPECT_EQ(range_of(*t.env, U(0)), "[-int_oo, int_oo]");
  EXPECT_FALSE(t.env->is_size_like(U(0)));
  EXPECT_EQ(r.asserts.range_asserts, 0);
  EXPECT_EQ(count_kind(*r.final_graph, NodeKind::kAssertScalar), 0);
}

TEST(ReferencePrograms, Item2_NonzeroRangeAssertsRightAfterTheNode) {
  auto r =
      run("input x: i64[6] = [1, 0, 2, 0, 3, 4]\n"
          "nz = nonzero(x)\n"
          "return nz * 2\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  const ShapeEnv& env = *r.trace->env;
  EXPECT_EQ(bindings_of(r.trace->graph, "nonzero"), "{u0: size(0)}");
  EXPECT_EQ(range_of(env, U(0)), "[0, 6]");
  EXPECT_TRUE(env.is_size_like(U(0)));
  std::vector<std::string> l = listing(*r.final_graph);
  int nz = position(l, "nonzero");
  ASSERT_GE(nz, 0);
  EXPECT_EQ(position(l, "assert(u0 >= 0)"), nz + 1);
  EXPECT_EQ(position(l, "assert(u0 <= 6)"), nz + 2);
  EXPECT_EQ(position(l, "mul"), nz + 3);
  EXPECT_EQ(r.asserts.range_asserts, 2);
}

TEST(ReferencePrograms, Item3_BoolItemBindsThroughConvertInt) {
  Trace t = trace("input b: bool[1] = [True]\nc = item(b)\nreturn c\n");
  Node* n = find_node(t.graph, "item");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(bindings_str(n->unbacked_bindings), "{u0: int()}");
  EXPECT_EQ(n->value.expr()->str(), "Eq(u0, 1)");
  EXPECT_EQ(range_of(*t.env, U(0)), "[0, 1]");
  // A ConvertIntKey binding gets no range asserts even though its range is [0, 1].
  auto r = run("input b: bool[1] = [True]\nc = item(b)\nreturn c\n");
  EXPECT_EQ(r.asserts.range_asserts, 0);
  EXPECT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
}

TEST(ReferencePrograms, Item4_FloatItemBindsZuf0) {
  Trace t = trace("input f: f32[1] = [2.5]\ng = item(f)\nreturn g\n");
  EXPECT_EQ(bindings_of(t.graph, "item"), "{zuf0: ()}");
  EXPECT_EQ(range_of(*t.env, ZUF(0)), "[-oo, oo]");
  EXPECT_EQ(t.env->unbacked_symint_counter(), 0);
  EXPECT_EQ(t.env->unbacked_symfloat_counter(), 1);
}

// Items 5 and 12: the divisibility path. check(k % 4 == 0) on a size-like k rewrites u0 -> 4*u1
// with a fresh u1 (range = range(u0) // 4), bound by a derived floordiv node right after the check.
TEST(ReferencePrograms, Items5And12_DivisibilityAllocatesFactorBoundByFloordiv) {
  auto r =
      run("input p: i64[1] = [12]\n"
          "k = item(p)\n"
          "check_is_size(k)\n"
          "check(k <= 41, \"small\")\n"
          "check(k % 4 == 0, \"div4\")\n"
          "return zeros([k])\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  const ShapeEnv& env = *r.trace->env;
  EXPECT_EQ(replacement_of(env, U(0)), "4*u1");
  EXPECT_EQ(env.replacement_reasons().at(U(0)), "divisibility");
  EXPECT_EQ(env.divisible().size(), 1u);
  EXPECT_EQ(range_of(env, U(0)), "[0, 40]");
  EXPECT_EQ(range_of(env, U(1)), "[0, 10]");
  EXPECT_TRUE(env.is_size_like(U(1))) << "size-likeness propagates to the factor";
  ASSERT_EQ(env.divisibility_factors().count(U(1)), 1u);
  EXPECT_EQ(env.divisibility_factors().at(U(1)).second, 4);
  Node* fd = find_node(r.trace->graph, "floordiv");
  ASSERT_NE(fd, nullptr);
  EXPECT_TRUE(fd->derived_binding);
  EXPECT_EQ(bindings_str(fd->unbacked_bindings), "{u1: ()}");
  EXPECT_EQ(bucket(env, U(0)),
            (std::vector<std::string>{"u0 >= 0", "u0 <= 41", "Eq(PythonMod(u0, 4), 0)"}));
  // The floordiv comes right after u0's binding site (not at the check that created u1: the
  // replacement u0 -> 4*u1 makes every node in between mention u1 once re-propagated), and keeps
  // u1 after re-propagation.
  std::vector<std::string> traced = listing(r.trace->graph);
  EXPECT_EQ(position(traced, "floordiv"), position(traced, "item") + 1);
  EXPECT_LT(position(traced, "floordiv"), position(traced, "check(Eq(PythonMod(u0, 4), 0))"));
  EXPECT_EQ(bindings_of(*r.final_graph, "floordiv"), "{u1: ()}");
  std::vector<std::string> l = listing(*r.final_graph);
  EXPECT_EQ(position(l, "assert(u1 <= 10)"), position(l, "floordiv") + 2);
}

TEST(ReferencePrograms, Item6_TolistIsSelectPlusItemPerElement) {
  Trace t = trace("input x: i64[2] = [3, 4]\na, b = tolist(x)\nreturn a + b\n");
  EXPECT_EQ(binding_sites(t.graph), (std::vector<std::string>{"item {u0: ()}", "item_1 {u1: ()}"}));
  EXPECT_EQ(listing(t.graph),
            (std::vector<std::string>{"select", "item", "select_1", "item_1", "add", "output"}));
  EXPECT_EQ(bindings_of(t.graph, "select"), "{}");
  EXPECT_EQ(find_node(t.graph, "item_1")->args[0].node->name, "select_1");
}

TEST(ReferencePrograms, Item7_CheckEqualsConstantReplacesAndAssertsAfterBinding) {
  auto r = run("input t: i64[1] = [3]\nu = item(t)\ncheck(u == 3, \"three\")\nreturn u\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  const ShapeEnv& env = *r.trace->env;
  EXPECT_EQ(replacement_of(env, U(0)), "3");
  EXPECT_EQ(range_of(env, U(0)), "[3, 3]");
  EXPECT_EQ(bucket(env, U(0)), std::vector<std::string>{"Eq(u0, 3)"});
  // Range asserts right after the item node; whether Eq(u0, 3) itself follows them is checked in
  // known_failures_test (spec §11 item 7 says it is emitted).
  std::vector<std::string> l = listing(*r.final_graph);
  ASSERT_GE(l.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(l.begin(), l.begin() + 3),
            (std::vector<std::string>{"item", "assert(u0 >= 3)", "assert(u0 <= 3)"}));
  EXPECT_EQ(l.back(), "output");
  EXPECT_EQ(r.asserts.dropped_checks, 1);
}

TEST(ReferencePrograms, Item8_TwoSymbolAssertBucketedUnderLaterAndEmittedAfterIt) {
  auto r =
      run("input t: i64[1] = [3]\ninput q: i64[1] = [7]\n"
          "a = item(t)\nb = item(q)\n"
          "check(a + b == 10, \"sum\")\n"
          "return a, b\n");
  ASSERT_EQ(r.verdict.kind, oracles::Verdict::Kind::kPass) << r.verdict.str();
  const ShapeEnv& env = *r.trace->env;
  EXPECT_TRUE(bucket(env, U(0)).empty());
  EXPECT_EQ(bucket(env, U(1)), std::vector<std::string>{"Eq(u0 + u1, 10)"});
  EXPECT_TRUE(env.replacements().count(U(1)) == 0) << "no time travel: u1 is not solved";
  std::vector<std::string> l = listing(*r.final_graph);
  EXPECT_EQ(l, (std::vector<std::string>{"item", "item_1", "assert(Eq(u0 + u1, 10))", "output"}));
}

TEST(ReferencePrograms, Item9_BranchOnUnbackedIsDataDependentGuard) {
  try {
    trace("input t: i64[1] = [3]\nu = item(t)\nif u > 2:\n  y = u\nelse:\n  y = 0\nreturn y\n");
    FAIL() << "expected a data-dependent guard";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kDataDependentGuard);
    EXPECT_NE(std::string(e.what()).find("Could not guard on data-dependent expression"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("u0"), std::string::npos) << e.what();
  }
}

// guard_or_false(u0 == 1) answers False and records nothing; squeeze of an unbacked dim uses it
// and keeps the dim (whatever it defers about that assumption, it never assumes u0 == 1).
TEST(ReferencePrograms, Item10_GuardOrFalseKeepsDimAndRecordsNothing) {
  Trace t = trace("input t: i64[1] = [1]\nk = item(t)\nz = squeeze(zeros([k]), 0)\nreturn z\n");
  EXPECT_EQ(value_type_str(find_node(t.graph, "squeeze")->value), "f32[u0]");
  EXPECT_TRUE(t.env->guards().empty());
  EXPECT_TRUE(t.env->replacements().empty());
  EXPECT_EQ(range_of(*t.env, U(0)), "[0, int_oo]");
  for (const std::string& a : bucket(*t.env, U(0))) EXPECT_NE(a, "Eq(u0, 1)");
  std::string before = t.env->state_str();
  EXPECT_FALSE(t.env->guard_or_false(SymBool(sym::eq(U(0), sym::integer(1)))));
  EXPECT_TRUE(t.env->guard_or_true(SymBool(sym::eq(U(0), sym::integer(2)))));
  EXPECT_EQ(t.env->state_str(), before) << "INV-14: the fallback adds no guard and no assert";
}

TEST(ReferencePrograms, Item11_LowerBoundMakesNeStaticallyTrue) {
  Trace t = trace(
      "input t: i64[1] = [9]\nk = item(t)\ncheck(k > 4, \"big\")\n"
      "if k != 4:\n  y = k\nelse:\n  y = 0\nreturn y\n");
  EXPECT_EQ(range_of(*t.env, U(0)), "[5, int_oo]");
  EXPECT_TRUE(t.env->statically_known_true(SymBool(sym::ne(U(0), sym::integer(4)))));
  EXPECT_FALSE(t.env->statically_known_true(SymBool(sym::ne(U(0), sym::integer(6)))));
  EXPECT_EQ(bucket(*t.env, U(0)), std::vector<std::string>{"u0 >= 5"});
  EXPECT_TRUE(t.env->guards().empty());
}

// Item 13: add_ on a bool mask is rejected (docs/ops.md); the version bump is observed through an
// i64 tensor fed to nonzero, and mutating the indexed tensor (not the mask) keeps the mask memo.
TEST(ReferencePrograms, Item13_MutationBetweenDataDependentCalls) {
  try {
    trace(
        "input x: f32[4] = arange()\ninput m: bool[4] = [True, False, True, True]\n"
        "a = index(x, m)\nm = add_(m, True)\nb = index(x, m)\nreturn a, b\n");
    FAIL() << "add_ on a bool tensor must fail";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kInvalidProgram);
    EXPECT_NE(std::string(e.what()).find("bool"), std::string::npos) << e.what();
  }
  Trace t = trace(
      "input x: f32[6] = arange()\ninput m: bool[6] = [True, False, True, True, False, True]\n"
      "input t: i64[6] = [1, 0, 2, 0, -1, 3]\n"
      "a = nonzero(t)\nt = add_(t, 1)\nb = nonzero(t)\n"
      "c = index(x, m)\nx = add_(x, 1.0)\nd = index(x, m)\n"
      "return a, b, c, d\n");
  EXPECT_EQ(binding_sites(t.graph),
            (std::vector<std::string>{"nonzero {u0: size(0)}", "nonzero_1 {u1: size(0)}",
                                      "index {u2: size(0)}"}));
  EXPECT_EQ(find_node(t.graph, "nonzero_1")->args[0].node->name, "add_");
  EXPECT_EQ(value_type_str(find_node(t.graph, "index_1")->value), "f32[u2]");
  EXPECT_EQ(find_node(t.graph, "index_1")->args[0].node->name, "add__1");
}

}  // namespace
}  // namespace sf::graph
