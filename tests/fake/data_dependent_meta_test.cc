// engine/fake/meta/data_dependent.cc: nonzero, index, masked_select, unique, item, tolist and
// repeat_interleave allocate unbacked symbols with the ranges of spec §4.2, bound where the
// result carries them (compute_unbacked_bindings), and honour the memos (same version and epoch).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "engine/base/faults.h"
#include "tests/fake/meta_test_util.h"

namespace sf::fake::testing {
namespace {

// sys.maxsize - 1: the upper bound when the numel has no finite bound.
#define MAXSIZE_1 "9223372036854775806"

const std::vector<MetaCase>& NonzeroCases() {
  static const std::vector<MetaCase> cases = {
      {.in = {"x: f32[2, 3]"},
       .call = "nonzero(x)",
       .out = "i64[u0, 2] stride=[2, 1]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, 6] size-like"}},
      // A range below 2 leaves the symbol not size-like (the ShapeEnv's INV-9b: size-oblivious
      // reasoning would assume it >= 2).
      {.in = {"x: f32[]"},
       .call = "nonzero(x)",
       .out = "i64[u0, 0]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, 1]"}},
      // A statically empty input gives a literal 0, never a symbol that would be refined to 0.
      {.in = {"x: f32[0, 3]"}, .call = "nonzero(x)", .out = "i64[0, 2]"},
      {.in = {"x: f32[s0, 3]"},
       .call = "nonzero(x)",
       .out = "i64[u0, 2]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, " MAXSIZE_1 "] size-like"}},
      // The bound is the product of the sizes' upper bounds when finite.
      {.in = {"x: f32[u0, 2]"},
       .call = "constrain(u0, 0, 5); nonzero(x)",
       .out = "i64[u1, 2]",
       .bindings = "{u1: size(0)}",
       .ranges = {"u1: [0, 10] size-like"}},
      {.in = {"x: f32[2]"},
       .call = "nonzero(x)",
       .error = "unsupported: nonzero has a data-dependent output shape "
                "(DynamicOutputShapeException)",
       .settings = {.allow_dynamic_output_shape_ops = false}},
  };
  return cases;
}

// nonzero_memo: a second nonzero of the same tensor (same version, same epoch) reuses the
// symbol and binds nothing; a mutation, a new epoch or inference mode makes it fresh again.
const std::vector<MetaCase>& NonzeroMemoCases() {
  static const std::vector<MetaCase> cases = {
      {.in = {"x: i64[4]"}, .call = "a = nonzero(x); nonzero(x)", .out = "i64[u0, 1]"},
      {.in = {"x: i64[4]"},
       .call = "a = nonzero(x); b = add_(x, 1); nonzero(x)",
       .out = "i64[u1, 1]",
       .bindings = "{u1: size(0)}",
       .ranges = {"u1: [0, 4] size-like"}},
      {.in = {"x: i64[4]"},
       .call = "a = nonzero(x); bump_epoch(); nonzero(x)",
       .out = "i64[u1, 1]",
       .bindings = "{u1: size(0)}",
       .ranges = {"u1: [0, 4] size-like"}},
      {.in = {"x: i64[4]"},
       .call = "inference_mode(); a = nonzero(x); nonzero(x)",
       .out = "i64[u1, 1]",
       .bindings = "{u1: size(0)}",
       .ranges = {"u1: [0, 4] size-like"}},
      // A view has its own memo (a fresh FakeTensor), as in PyTorch.
      {.in = {"x: i64[4]"},
       .call = "a = nonzero(x); v = view(x, [4]); nonzero(v)",
       .out = "i64[u1, 1]",
       .bindings = "{u1: size(0)}",
       .ranges = {"u1: [0, 4] size-like"}},
  };
  return cases;
}

TEST(DataDependentMeta, Nonzero) { CheckAll(NonzeroCases()); }

TEST(DataDependentMeta, NonzeroMemo) { CheckAll(NonzeroMemoCases()); }

// The tables can fail: with a bug-zoo fault on (engine/base/faults.def, historical PyTorch bugs
// in the memo rules and the nonzero bound) some case of theirs must report a mismatch.
TEST(DataDependentMeta, TablesCatchTheZooFaults) {
  for (const char* fault :
       {"memo_ignores_version", "memo_ignores_epoch", "nonzero_bound_too_tight"}) {
    ::testing::TestPartResultArray failures;
    {
      ::testing::ScopedFakeTestPartResultReporter reporter(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
      ScopedFaultList on({fault});
      CheckAll(NonzeroCases());
      CheckAll(NonzeroMemoCases());
    }
    EXPECT_GT(failures.size(), 0) << "no case fails with the fault " << fault << " on";
  }
}

// index(a, mask) is a[mask]: [nonzero(mask) count, trailing dims of a...], sharing nonzero's memo.
TEST(DataDependentMeta, BooleanIndex) {
  CheckAll({
      {.in = {"x: f32[2, 3]", "m: bool[2, 3]"},
       .call = "index(x, m)",
       .out = "f32[u0] stride=[1]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, 6] size-like"}},
      {.in = {"x: f32[2, 3]", "m: bool[2]"},
       .call = "index(x, m)",
       .out = "f32[u0, 3] stride=[3, 1]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, 2] size-like"}},
      {.in = {"x: f32[2, 3]", "m: bool[]"},
       .call = "index(x, m)",
       .out = "f32[u0, 2, 3]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, 1]"}},
      {.in = {"x: f32[s0, 3]", "m: bool[s0]"},
       .call = "index(x, m)",
       .out = "f32[u0, 3]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, " MAXSIZE_1 "] size-like"}},
      // An unbacked mask size must equal the indexed size (a deferred assert).
      {.in = {"x: f32[u0, 3]", "m: bool[u1]"},
       .call = "index(x, m)",
       .out = "f32[u2, 3]",
       .bindings = "{u2: size(0)}",
       .facts = {"assert Eq(u0, u1)", "u0 -> u1"},
       .ranges = {"u2: [0, " MAXSIZE_1 "] size-like"}},
      {.in = {"x: f32[2, 3]", "m: bool[2, 3]"},
       .call = "n = nonzero(m); index(x, m)",
       .out = "f32[u0]"},
      {.in = {"x: f32[2, 3]", "m: bool[3]"},
       .call = "index(x, m)",
       .error = "shape: line 1: index: the shape of the mask bool[3] at index 0 does not match "
                "the shape of the indexed tensor f32[2, 3]"},
      {.in = {"x: f32[2]", "m: bool[2, 1]"},
       .call = "index(x, m)",
       .error = "shape: index: mask bool[2, 1] does not match the leading dims of f32[2]"},
      {.in = {"x: f32[2]", "m: i64[2]"},
       .call = "index(x, m)",
       .error = "invalid_program: index: the mask must be bool, got i64[2]"},
  });
}

TEST(DataDependentMeta, MaskedSelect) {
  CheckAll({
      {.in = {"x: f32[2, 3]", "m: bool[2, 3]"},
       .call = "masked_select(x, m)",
       .out = "f32[u0] stride=[1]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, 6] size-like"}},
      // The bound is the broadcast numel.
      {.in = {"x: i64[2, 1]", "m: bool[3]"},
       .call = "masked_select(x, m)",
       .out = "i64[u0]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, 6] size-like"}},
      // No memo: each call allocates.
      {.in = {"x: f32[3]", "m: bool[3]"},
       .call = "a = masked_select(x, m); masked_select(x, m)",
       .out = "f32[u1]",
       .bindings = "{u1: size(0)}",
       .ranges = {"u1: [0, 3] size-like"}},
      // Unbacked sizes broadcast with an assert; the bound reads their (replaced) ranges.
      {.in = {"x: f32[u0]", "m: bool[u1]"},
       .call = "constrain(u1, 0, 7); masked_select(x, m)",
       .out = "f32[u2]",
       .bindings = "{u2: size(0)}",
       .facts = {"assert Eq(u0, u1)", "u0 -> u1"},
       .ranges = {"u0: [0, 7] size-like", "u2: [0, 7] size-like"}},
      {.in = {"x: f32[2]", "m: bool[3]"},
       .call = "masked_select(x, m)",
       .error = "shape: cannot broadcast dim 0: 2 vs 3"},
      {.in = {"x: f32[2]", "m: f32[2]"},
       .call = "masked_select(x, m)",
       .error = "invalid_program: masked_select: the mask must be bool"},
  });
}

TEST(DataDependentMeta, Unique) {
  CheckAll({
      {.in = {"x: f32[2, 3]"},
       .call = "unique(x)",
       .out = "f32[u0] stride=[1]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, 6] size-like"}},
      {.in = {"x: i64[5]"},
       .call = "unique(x, True)",
       .out = "(i64[u0], i64[u0])",
       .bindings = "{u0: [0].size(0)}",
       .ranges = {"u0: [0, 5] size-like"}},
      {.in = {"x: f32[0]"}, .call = "unique(x, return_counts=True)", .out = "(f32[0], i64[0])"},
      // Only a static numel bounds it (unlike nonzero, ranges are not consulted).
      {.in = {"x: f32[u0]"},
       .call = "constrain(u0, 0, 4); unique(x)",
       .out = "f32[u1]",
       .bindings = "{u1: size(0)}",
       .ranges = {"u1: [0, " MAXSIZE_1 "] size-like"}},
      // unique_memo: the counts call reuses the values call's symbol.
      {.in = {"x: i64[5]"}, .call = "a = unique(x); unique(x, True)", .out = "(i64[u0], i64[u0])"},
      {.in = {"x: i64[5]"},
       .call = "a = unique(x); b = add_(x, 1); unique(x)",
       .out = "i64[u1]",
       .bindings = "{u1: size(0)}",
       .ranges = {"u1: [0, 5] size-like"}},
  });
}

// item: no range constraint (spec §4.2); a bool is an int symbol u compared to 1, bound by int().
TEST(DataDependentMeta, Item) {
  CheckAll({
      {.in = {"x: f32[]"},
       .call = "item(x)",
       .out = "float zuf0",
       .bindings = "{zuf0: ()}",
       .ranges = {"zuf0: [-oo, oo]"}},
      {.in = {"x: i64[1, 1]"},
       .call = "item(x)",
       .out = "int u0",
       .bindings = "{u0: ()}",
       .ranges = {"u0: [-int_oo, int_oo]"}},
      {.in = {"x: bool[1]"},
       .call = "item(x)",
       .out = "bool Eq(u0, 1)",
       .bindings = "{u0: int()}",
       .ranges = {"u0: [0, 1]"}},
      {.in = {"x: i64[]"}, .call = "a = item(x); item(x)", .out = "int u0"},
      {.in = {"x: i64[]"},
       .call = "a = item(x); b = add_(x, 1); item(x)",
       .out = "int u1",
       .bindings = "{u1: ()}",
       .ranges = {"u1: [-int_oo, int_oo]"}},
      // One element is required: an unbacked numel is asserted to be 1. A size-like symbol is
      // neither narrowed below an upper bound of 2 nor replaced by 1 (spec §2.5, §2.9).
      {.in = {"x: f32[u0]"},
       .call = "item(x)",
       .out = "float zuf0",
       .bindings = "{zuf0: ()}",
       .facts = {"assert Eq(u0, 1)"},
       .ranges = {"u0: [1, 2] size-like", "zuf0: [-oo, oo]"}},
      {.in = {"x: f32[2]"},
       .call = "item(x)",
       .error = "shape: line 1: item: a Tensor with 2 elements cannot be converted to a scalar"},
      {.in = {"x: f32[]"},
       .call = "item(x)",
       .error = "unsupported: item: scalar outputs are not allowed (DataDependentOutputException)",
       .settings = {.allow_scalar_outputs = false}},
      // tolist has no meta function of its own: the tracer expands it into select + item.
      {.in = {"x: i64[3]"},
       .call = "tolist(x)",
       .error = "invalid_program: tolist is expanded by the tracer"},
  });
}

TEST(DataDependentMeta, RepeatInterleave) {
  CheckAll({
      {.in = {"r: i64[3]"},
       .call = "repeat_interleave(r)",
       .out = "i64[u0] stride=[1]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, int_oo] size-like"}},
      {.in = {"x: f32[3, 2]", "r: i64[3]"},
       .call = "repeat_interleave(x, r, 0)",
       .out = "f32[u0, 2] stride=[2, 1]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, int_oo] size-like"}},
      {.in = {"x: f32[2, 3]", "r: i64[3]"},
       .call = "repeat_interleave(x, r, dim=-1)",
       .out = "f32[2, u0] stride=[Max(1, u0), 1]",
       .bindings = "{u0: size(1)}",
       .ranges = {"u0: [0, int_oo] size-like"}},
      // Without dim the input is flattened.
      {.in = {"x: f32[2, 3]", "r: i64[6]"},
       .call = "repeat_interleave(x, r)",
       .out = "f32[u0]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, int_oo] size-like"}},
      {.in = {"x: f32[u0, 2]", "r: i64[u1]"},
       .call = "repeat_interleave(x, r, 0)",
       .out = "f32[u2, 2]",
       .bindings = "{u2: size(0)}",
       .facts = {"assert Eq(u0, u1)", "u0 -> u1"},
       .ranges = {"u2: [0, int_oo] size-like"}},
      {.in = {"x: f32[2, 3]", "r: i64[3]"},
       .call = "repeat_interleave(x, r)",
       .error = "shape: line 1: repeat_interleave: repeats must have the same size as the "
                "flattened input (3 vs 6)"},
      {.in = {"x: f32[3, 2]", "r: i64[2]"},
       .call = "repeat_interleave(x, r, 0)",
       .error = "shape: repeats must have the same size as input along dim 0 (2 vs 3)"},
      {.in = {"r: f32[3]"},
       .call = "repeat_interleave(r)",
       .error = "invalid_program: repeat_interleave: repeats must be an i64 tensor, got f32[3]"},
      {.in = {"r: i64[2, 2]"},
       .call = "repeat_interleave(r)",
       .error = "shape: repeat_interleave: repeats must be 1-D, got i64[2, 2]"},
      {.in = {"r: i64[3]"},
       .call = "repeat_interleave(r, None, 0)",
       .error = "invalid_program: repeat_interleave: dim given without repeats"},
  });
}

// PyTorch's masked_select fake impl starts from max = sys.maxsize - 1 and uses the numel bound
// only when it is > 2 (spec §4.2: an infinite bound counts as sys.maxsize - 1), as nonzero
// does; the meta function used to leave the range unbounded above ([0, int_oo]) in both cases.
TEST(DataDependentMeta, MaskedSelectUpperBoundIsSysMaxsize) {
  CheckAll({
      {.in = {"x: f32[s0]", "m: bool[s0]"},
       .call = "masked_select(x, m)",
       .out = "f32[u0]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, " MAXSIZE_1 "] size-like"}},
      {.in = {"x: f32[2]", "m: bool[2]"},
       .call = "masked_select(x, m)",
       .out = "f32[u0]",
       .bindings = "{u0: size(0)}",
       .ranges = {"u0: [0, " MAXSIZE_1 "] size-like"}},
  });
}

}  // namespace
}  // namespace sf::fake::testing
