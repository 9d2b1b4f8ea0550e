// cat (dtype promotion, 1-D empty tensors skipped), stack and index_select (a negative index is
// an index error, as in PyTorch), with one test per user error.
#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

const Inputs& inputs() {
  static const Inputs* in = new Inputs{
      {"a", I64({2, 2}, {1, 2, 3, 4})}, {"b", I64({1, 2}, {5, 6})},
      {"f", F32({2, 1}, {0.5, 1.5})},   {"e1", F32({0}, {})},
      {"e", I64({0, 2}, {})},           {"m", Bool({2}, {1, 0})},
      {"v", I64({2}, {7, 8})},          {"s", I64({}, {3})},
      {"i3", I64({3}, {1, 0, 1})},      {"neg", I64({1}, {-1})},
      {"none", I64({0}, {})},           {"zero", I64({1}, {0})},
      {"one0", I64({}, {1})},
  };
  return *in;
}

ExprPtr list(std::vector<std::string> names) {
  std::vector<ExprPtr> elems;
  for (const auto& n : names) elems.push_back(V(n));
  return L(elems);
}

TEST(Join, Cat) {
  run_cases(
      {
          {"dim 0", C(OpKind::kCat, {list({"a", "b"})}), I64({3, 2}, {1, 2, 3, 4, 5, 6})},
          {"dim 1 promotes", C(OpKind::kCat, {list({"a", "f"}), I(1)}),
           F32({2, 3}, {1, 2, 0.5, 3, 4, 1.5})},
          {"skips 1-D empty, still promotes", C(OpKind::kCat, {list({"a", "e1", "b"})}),
           F32({3, 2}, {1, 2, 3, 4, 5, 6})},
          {"only 1-D empties", C(OpKind::kCat, {list({"e1", "e1"})}), F32({0}, {})},
          {"2-D empty joins", C(OpKind::kCat, {list({"a", "e"})}), I64({2, 2}, {1, 2, 3, 4})},
          {"negative dim", C(OpKind::kCat, {list({"a", "a"}), I(-1)}),
           I64({2, 4}, {1, 2, 1, 2, 3, 4, 3, 4})},
          {"bools", C(OpKind::kCat, {list({"m", "m"})}), Bool({4}, {1, 0, 1, 0})},
          {"single", C(OpKind::kCat, {list({"v"})}), I64({2}, {7, 8})},
      },
      inputs());
}

TEST(Join, Stack) {
  run_cases(
      {
          {"bools", C(OpKind::kStack, {list({"m", "m"})}), Bool({2, 2}, {1, 0, 1, 0})},
          {"dim 1", C(OpKind::kStack, {list({"a", "a"}), I(1)}),
           I64({2, 2, 2}, {1, 2, 1, 2, 3, 4, 3, 4})},
          {"dim -1", C(OpKind::kStack, {list({"a", "a"}), I(-1)}),
           I64({2, 2, 2}, {1, 1, 2, 2, 3, 3, 4, 4})},
          {"0-dim", C(OpKind::kStack, {list({"s", "s"})}), I64({2}, {3, 3})},
          {"promotes", C(OpKind::kStack, {list({"m", "v"})}), I64({2, 2}, {1, 0, 7, 8})},
      },
      inputs());
}

TEST(Join, IndexSelect) {
  run_cases(
      {
          {"rows", C(OpKind::kIndexSelect, {V("a"), I(0), V("i3")}),
           I64({3, 2}, {3, 4, 1, 2, 3, 4})},
          {"empty index", C(OpKind::kIndexSelect, {V("a"), I(0), V("none")}), I64({0, 2}, {})},
          {"0-dim index", C(OpKind::kIndexSelect, {V("a"), I(-2), V("one0")}), I64({1, 2}, {3, 4})},
          {"0-dim input", C(OpKind::kIndexSelect, {V("s"), I(0), V("zero")}), I64({}, {3})},
      },
      inputs());
}

TEST(JoinErrors, CatEmptyList) {
  expect_error(C(OpKind::kCat, {L({})}), inputs(), UserErrorKind::kValue,
               "cat: expected a non-empty list of tensors");
}

TEST(JoinErrors, CatZeroDim) {
  expect_error(C(OpKind::kCat, {list({"a", "s"})}), inputs(), UserErrorKind::kShape,
               "zero-dimensional tensor (at position 1) cannot be concatenated");
}

TEST(JoinErrors, CatRankMismatch) {
  expect_error(C(OpKind::kCat, {list({"a", "v"})}), inputs(), UserErrorKind::kShape,
               "cat: tensors must have the same rank: got shapes [2, 2] and [2] (tensor 1)");
}

TEST(JoinErrors, CatSizeMismatch) {
  expect_error(C(OpKind::kCat, {list({"a", "b"}), I(1)}), inputs(), UserErrorKind::kShape,
               "sizes must match except in dim 1: expected 2 but got 1 in dim 0 for tensor 1");
}

TEST(JoinErrors, CatDimOutOfRange) {
  expect_error(C(OpKind::kCat, {list({"a"}), I(2)}), inputs(), UserErrorKind::kShape,
               "cat: dim 2 out of range for a tensor of rank 2");
}

TEST(JoinErrors, CatNonTensorElement) {
  expect_error(C(OpKind::kCat, {L({V("a"), I(1)})}), inputs(), UserErrorKind::kInvalidProgram,
               "cat: argument 'tensors' must be a list of tensors");
}

TEST(JoinErrors, StackShapeMismatch) {
  expect_error(
      C(OpKind::kStack, {list({"a", "b"})}), inputs(), UserErrorKind::kShape,
      "stack: expects tensors of equal shape, got [2, 2] at entry 0 and [1, 2] at entry 1");
}

TEST(JoinErrors, StackDimOutOfRange) {
  expect_error(C(OpKind::kStack, {list({"a"}), I(3)}), inputs(), UserErrorKind::kShape,
               "stack: dim 3 out of range for a new dim of a tensor of rank 2");
}

TEST(JoinErrors, StackEmptyList) {
  expect_error(C(OpKind::kStack, {L({})}), inputs(), UserErrorKind::kValue,
               "stack: expected a non-empty list of tensors");
}

TEST(JoinErrors, IndexSelectOutOfRange) {
  expect_error(C(OpKind::kIndexSelect, {V("a"), I(0), V("i3")}),
               {{"a", I64({1, 2}, {1, 2})}, {"i3", I64({3}, {1, 0, 1})}}, UserErrorKind::kIndex,
               "index_select: index 1 is out of range for dim 0 with size 1");
}

TEST(JoinErrors, IndexSelectNegativeOutOfRange) {
  expect_error(C(OpKind::kIndexSelect, {V("b"), I(0), V("neg")}),
               {{"b", I64({0, 2}, {})}, {"neg", I64({1}, {-1})}}, UserErrorKind::kIndex,
               "index -1 is out of range for dim 0 with size 0");
}

// PyTorch's index_select does not wrap a negative index (torch-diff found ours did).
TEST(JoinErrors, IndexSelectNegativeIndexDoesNotWrap) {
  expect_error(C(OpKind::kIndexSelect, {V("a"), I(1), V("neg")}), inputs(), UserErrorKind::kIndex,
               "index -1 is out of range for dim 1 with size 2");
}

TEST(JoinErrors, IndexSelectFloatIndex) {
  expect_error(C(OpKind::kIndexSelect, {V("a"), I(0), V("f")}), inputs(),
               UserErrorKind::kInvalidProgram, "index_select: index must be an i64 tensor");
}

TEST(JoinErrors, IndexSelect2DIndex) {
  expect_error(C(OpKind::kIndexSelect, {V("a"), I(0), V("b")}), inputs(), UserErrorKind::kShape,
               "index must be 0-D or 1-D, got shape [1, 2]");
}

TEST(JoinErrors, IndexSelectZeroDimTwoValues) {
  expect_error(C(OpKind::kIndexSelect, {V("s"), I(0), V("v")}), inputs(), UserErrorKind::kIndex,
               "index into a 0-dim tensor must have one value, got 2");
}

}  // namespace
}  // namespace sf::eager::testing
