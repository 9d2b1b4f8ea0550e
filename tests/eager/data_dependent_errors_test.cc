// One test per user error of the data-dependent ops: kind and message.
#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

const Inputs& inputs() {
  static const Inputs* in = new Inputs{
      {"x", F32({3, 2}, {1, 0, 0, 2, 3, 0})},
      {"m", Bool({3}, {1, 0, 1})},
      {"m2", Bool({3, 2}, {1, 0, 0, 1, 1, 1})},
      {"b2", Bool({2}, {1, 0})},
      {"i3", I64({3}, {1, 0, 1})},
      {"e", F32({0}, {})},
      {"neg", I64({3}, {1, -1, 0})},
      {"r2", I64({2}, {1, 1})},
      {"r22", I64({2, 2}, {1, 1, 1, 1})},
  };
  return *in;
}

TEST(DataDependentErrors, IndexMaskNotBool) {
  expect_error(C(OpKind::kIndex, {V("x"), V("i3")}), inputs(), UserErrorKind::kInvalidProgram,
               "index: mask must be a bool tensor, got i64[3] tensor");
}

TEST(DataDependentErrors, IndexMaskShapeMismatch) {
  expect_error(C(OpKind::kIndex, {V("x"), V("b2")}), inputs(), UserErrorKind::kShape,
               "index: mask shape [2] does not match the leading dims of the indexed shape [3, 2]");
}

TEST(DataDependentErrors, IndexMaskRankTooBig) {
  expect_error(C(OpKind::kIndex, {V("m"), V("m2")}), inputs(), UserErrorKind::kShape,
               "mask shape [3, 2] does not match the leading dims of the indexed shape [3]");
}

TEST(DataDependentErrors, MaskedSelectBroadcast) {
  expect_error(C(OpKind::kMaskedSelect, {V("x"), V("m")}), inputs(), UserErrorKind::kShape,
               "masked_select: cannot broadcast dim 1: 2 vs 3 (shapes [3, 2] and [3])");
}

TEST(DataDependentErrors, MaskedSelectMaskNotBool) {
  expect_error(C(OpKind::kMaskedSelect, {V("x"), V("x")}), inputs(), UserErrorKind::kInvalidProgram,
               "masked_select: mask must be a bool tensor");
}

TEST(DataDependentErrors, ItemOfSeveralElements) {
  expect_error(C(OpKind::kItem, {V("m")}), inputs(), UserErrorKind::kShape,
               "item: a tensor with 3 elements cannot be converted to a scalar (shape [3])");
}

TEST(DataDependentErrors, ItemOfEmpty) {
  expect_error(C(OpKind::kItem, {V("e")}), inputs(), UserErrorKind::kShape,
               "a tensor with 0 elements cannot be converted to a scalar");
}

TEST(DataDependentErrors, TolistOfFloat) {
  expect_error(C(OpKind::kTolist, {V("e")}), inputs(), UserErrorKind::kInvalidProgram,
               "tolist: expects an i64 or bool tensor, got f32[0] tensor");
}

TEST(DataDependentErrors, TolistOf2D) {
  expect_error(C(OpKind::kTolist, {V("m2")}), inputs(), UserErrorKind::kShape,
               "tolist: expects a 1-D tensor, got shape [3, 2]");
}

TEST(DataDependentErrors, UniqueOfScalar) {
  expect_error(C(OpKind::kUnique, {I(3)}), inputs(), UserErrorKind::kInvalidProgram,
               "unique: argument 'a' must be a tensor");
}

TEST(DataDependentErrors, NegativeRepeats) {
  expect_error(C(OpKind::kRepeatInterleave, {V("neg")}), inputs(), UserErrorKind::kValue,
               "repeat_interleave: repeats must be non-negative, got -1 at index 1");
}

TEST(DataDependentErrors, FloatRepeats) {
  expect_error(C(OpKind::kRepeatInterleave, {V("x"), V("x"), I(0)}), inputs(),
               UserErrorKind::kInvalidProgram, "repeats must be an i64 tensor");
}

TEST(DataDependentErrors, RepeatsNot1D) {
  expect_error(C(OpKind::kRepeatInterleave, {V("r22")}), inputs(), UserErrorKind::kShape,
               "repeats must be 1-D, got shape [2, 2]");
}

TEST(DataDependentErrors, RepeatsCountMismatch) {
  expect_error(C(OpKind::kRepeatInterleave, {V("x"), V("r2"), I(0)}), inputs(),
               UserErrorKind::kShape, "repeats has 2 entries but the input has size 3 in dim 0");
}

TEST(DataDependentErrors, DimWithoutRepeats) {
  expect_error(C(OpKind::kRepeatInterleave, {V("r2")}, {{"dim", I(0)}}), inputs(),
               UserErrorKind::kInvalidProgram, "repeat_interleave: dim given without repeats");
}

}  // namespace
}  // namespace sf::eager::testing
