// add_ and index_put_: in-place update seen through every alias (shared storage), broadcasting of
// the operand, the dtype cast rules, and that inputs given to run_eager are never changed.
#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

Stmt add_(const std::string& target, ExprPtr a, ExprPtr b) {
  return assign(target, C(OpKind::kAddInplace, {std::move(a), std::move(b)}));
}

TEST(Mutation, AliasesSeeTheUpdate) {
  Inputs in{{"a", I64({2}, {1, 2})}};
  expect_outputs(run(in, {assign("b", V("a")), assign("s", C(OpKind::kSum, {V("a")})),
                          add_("c", V("a"), I(10)), ret({V("a"), V("b"), V("c"), V("s")})}),
                 {I64({2}, {11, 12}), I64({2}, {11, 12}), I64({2}, {11, 12}), I64({}, {3})});
}

TEST(Mutation, ResultAliasesToo) {
  Inputs in{{"a", I64({2}, {1, 2})}};
  expect_outputs(run(in, {add_("c", V("a"), I(1)), add_("d", V("c"), I(1)), ret({V("a")})}),
                 {I64({2}, {3, 4})});
}

TEST(Mutation, TupleElementsAlias) {
  Inputs in{{"u", I64({3}, {2, 1, 2})}};
  expect_outputs(run(in, {assign("p", C(OpKind::kUnique, {V("u"), B(true)})),
                          unpack({"v", "c"}, V("p")), add_("w", V("v"), I(5)), ret({V("p")})}),
                 {Tup({I64({2}, {6, 7}), I64({2}, {1, 2})})});
}

TEST(Mutation, ViewsAreCopies) {
  // docs/ops.md: in eager a view's value does not alias its base.
  Inputs in{{"a", I64({2}, {1, 2})}};
  expect_outputs(run(in, {assign("v", C(OpKind::kView, {V("a"), Ints({2})})),
                          add_("c", V("a"), I(1)), ret({V("v")})}),
                 {I64({2}, {1, 2})});
}

TEST(Mutation, BroadcastsAndCasts) {
  Inputs in{{"a", F32({2, 2}, {1, 2, 3, 4})}, {"r", I64({2}, {10, 20})}, {"m", Bool({2}, {1, 0})}};
  expect_outputs(run(in, {add_("x", V("a"), V("r")), add_("y", V("a"), V("m")), ret({V("a")})}),
                 {F32({2, 2}, {12, 22, 14, 24})});
}

TEST(Mutation, IntegerPlusBoolStaysInteger) {
  Inputs in{{"a", I64({2}, {1, 2})}, {"m", Bool({2}, {1, 0})}};
  expect_outputs(run(in, {add_("x", V("a"), V("m")), add_("y", V("a"), B(true)), ret({V("a")})}),
                 {I64({2}, {3, 3})});
}

TEST(Mutation, InputsAreNotChanged) {
  Inputs in{{"a", I64({2}, {1, 2})}};
  run(in, {add_("c", V("a"), I(1))});
  EXPECT_TRUE(same(in.at("a"), I64({2}, {1, 2})));
}

Stmt index_put_(const std::string& target, ExprPtr a, ExprPtr mask, ExprPtr values) {
  return assign(target,
                C(OpKind::kIndexPutInplace, {std::move(a), std::move(mask), std::move(values)}));
}

TEST(Mutation, IndexPutWritesTheSelectedRows) {
  // a[mask] = values: a number everywhere selected (cast to a's dtype), or values broadcast to
  // the indexing result [count, *rest] (rows, or one column per selected row).
  Inputs in{{"a", F32({3, 2}, {1, 2, 3, 4, 5, 6})},
            {"i", I64({3}, {1, 2, 3})},
            {"m", Bool({3}, {1, 0, 1})},
            {"row", F32({2}, {7, 8})},
            {"col", F32({2, 1}, {7, 8})},
            {"z", I64({}, {9})}};
  expect_outputs(run(in, {assign("b", V("a")), index_put_("c", V("a"), V("m"), V("row")),
                          index_put_("d", V("i"), V("m"), F(2.7)), ret({V("b"), V("i")})}),
                 {F32({3, 2}, {7, 8, 3, 4, 7, 8}), I64({3}, {2, 2, 2})});
  expect_outputs(run(in, {index_put_("c", V("a"), V("m"), V("col")),
                          index_put_("d", V("a"), V("m"), V("z")), ret({V("c")})}),
                 {F32({3, 2}, {9, 9, 3, 4, 9, 9})});
}

TEST(Mutation, IndexPutValuesAsPyTorchSetitem) {
  // Leading size-1 dims of the values are dropped; one element under a mask of rank >= 1 converts
  // like a number whatever its dtype (PyTorch CPU's masked_fill path).
  Inputs in{{"a", F32({3}, {0, 0, 0})},
            {"m", Bool({3}, {1, 0, 1})},
            {"lead", F32({1, 2}, {7, 8})},
            {"one", I64({1, 1}, {5})}};
  expect_outputs(run(in, {index_put_("c", V("a"), V("m"), V("lead")), ret({V("a")})}),
                 {F32({3}, {7, 0, 8})});
  expect_outputs(run(in, {index_put_("c", V("a"), V("m"), V("one")), ret({V("a")})}),
                 {F32({3}, {5, 0, 5})});
}

TEST(MutationErrors, IndexPutChecksMaskValuesAndCount) {
  Inputs in{{"a", F32({3}, {1, 2, 3})}, {"m", Bool({3}, {1, 0, 1})},    {"m2", Bool({2}, {1, 1})},
            {"k", I64({3}, {1, 0, 1})}, {"three", F32({3}, {1, 2, 3})}, {"ints", I64({2}, {1, 2})}};
  auto error = [&](ExprPtr mask, ExprPtr values, UserErrorKind kind, const std::string& what) {
    expect_error(program_of(in, {index_put_("c", V("a"), std::move(mask), std::move(values))}), in,
                 kind, what);
  };
  error(V("k"), F(1), UserErrorKind::kInvalidProgram, "mask must be a bool tensor");
  error(V("m2"), F(1), UserErrorKind::kIndex, "does not match the shape of the indexed tensor");
  error(V("m"), V("three"), UserErrorKind::kShape, "cannot be broadcast to indexing result");
  error(V("m"), V("ints"), UserErrorKind::kInvalidProgram, "destination's dtype f32");
}

TEST(MutationErrors, FloatIntoInteger) {
  Inputs in{{"a", I64({2}, {1, 2})}};
  expect_error(program_of(in, {add_("c", V("a"), F(0.5))}), in, UserErrorKind::kInvalidProgram,
               "add_: result type f32 can't be cast to the desired output type i64");
}

TEST(MutationErrors, IntoBool) {
  Inputs in{{"m", Bool({2}, {1, 0})}};
  expect_error(program_of(in, {add_("c", V("m"), V("m"))}), in, UserErrorKind::kInvalidProgram,
               "result type i64 can't be cast to the desired output type bool");
}

TEST(MutationErrors, OutputCannotGrow) {
  Inputs in{{"a", I64({2}, {1, 2})}, {"b", I64({3, 2}, {1, 2, 3, 4, 5, 6})}};
  expect_error(program_of(in, {add_("c", V("a"), V("b"))}), in, UserErrorKind::kShape,
               "add_: output with shape [2] doesn't match the broadcast shape [3, 2]");
}

TEST(MutationErrors, ScalarTarget) {
  expect_error(program_of({}, {add_("c", I(1), I(2))}), {}, UserErrorKind::kInvalidProgram,
               "add_: argument 'a' must be a tensor, got int 1");
}

}  // namespace
}  // namespace sf::eager::testing
