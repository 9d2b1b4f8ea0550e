// engine/fake/meta/view.cc: view/reshape (inference of -1, computeStride on non-contiguous
// layouts, unbacked sizes), permute, transpose, unsqueeze, squeeze, expand, slice (clamping,
// fresh unbacked size/offset where undecidable), narrow, select and flatten.
#include <gtest/gtest.h>

#include "tests/fake/meta_test_util.h"

namespace sf::fake::testing {
namespace {

TEST(ViewMeta, ViewAndReshapeStatic) {
  CheckAll({
      {.in = {"x: f32[2, 3]"}, .call = "view(x, [3, 2])", .out = "f32[3, 2] stride=[2, 1]"},
      {.in = {"x: f32[2, 3]"}, .call = "reshape(x, [-1])", .out = "f32[6] stride=[1]"},
      {.in = {"x: f32[2, 3]"}, .call = "view(x, [1, -1, 1])", .out = "f32[1, 6, 1]"},
      {.in = {"x: f32[2, 3]"},
       .call = "view(x, [4, 2])",
       .error = "shape: line 1: view: shape [4, 2] is invalid for input of size 6 (shape [2, 3])"},
      {.in = {"x: f32[2, 3]"},
       .call = "reshape(x, [-1, -1])",
       .error = "shape: only one dimension can be inferred"},
      {.in = {"x: f32[0, 3]"},
       .call = "view(x, [-1, 0])",
       .error = "shape: cannot infer -1 in [-1, 0]: the other sizes multiply to 0"},
      {.in = {"x: f32[2, 3]"},
       .call = "reshape(x, [2, -2])",
       .error = "shape: invalid shape dimension -2 in [2, -2]"},
      // computeStride on a transposed base: a size-1 dim fits anywhere, merging dims does not.
      {.in = {"x: f32[2, 3]"},
       .call = "t = transpose(x, 0, 1); view(t, [3, 2, 1])",
       .out = "f32[3, 2, 1] stride=[1, 3, 3]"},
      {.in = {"x: f32[2, 3]"},
       .call = "t = transpose(x, 0, 1); view(t, [-1])",
       .error = "shape: view size [6] is not compatible with input tensor's size [3, 2] and "
                "stride [1, 3]"},
      // reshape copies what view cannot express.
      {.in = {"x: f32[2, 3]"},
       .call = "t = transpose(x, 0, 1); reshape(t, [-1])",
       .out = "f32[6] stride=[1]"},
      // A view keeps the base's storage offset.
      {.in = {"x: f32[4, 3]"},
       .call = "t = select(x, 0, 1); view(t, [3, 1])",
       .out = "f32[3, 1] stride=[1, 1] offset=3"},
  });
}

TEST(ViewMeta, ViewAndReshapeSymbolic) {
  CheckAll({
      {.in = {"x: f32[s0, 3]"}, .call = "view(x, [-1])", .out = "f32[3*s0] stride=[1]"},
      {.in = {"x: f32[s0, 4]"}, .call = "reshape(x, [-1, 2])", .out = "f32[2*s0, 2] stride=[2, 1]"},
      {.in = {"x: f32[s0, s1]"}, .call = "view(x, [s1, s0])", .out = "f32[s1, s0] stride=[s0, 1]"},
      // Divisibility of a backed size is a guard on its hint (PyTorch's Eq(Mod(s0, 4), 0),
      // written as numel == 4 * (numel // 4)).
      {.in = {"x: f32[s0=8]"},
       .call = "view(x, [-1, 4])",
       .out = "f32[FloorDiv(s0, 4), 4] stride=[4, 1]",
       .facts = {"guard Eq(s0, 4*FloorDiv(s0, 4))"}},
      {.in = {"x: f32[s0=6]"},
       .call = "view(x, [-1, 4])",
       .error = "shape: shape [-1, 4] is invalid for input of size s0"},
      {.in = {"x: f32[u0, 3]"}, .call = "view(x, [-1])", .out = "f32[3*u0] stride=[1]"},
      {.in = {"x: f32[u0, 4]"},
       .call = "reshape(x, [u0, 2, 2])",
       .out = "f32[u0, 2, 2] stride=[4, 2, 1]"},
      // An unbacked target size: non-negative and equal to numel, as deferred asserts; the
      // equality replaces it by the constant.
      {.in = {"x: f32[4]", "k: int u0"},
       .call = "view(x, [k])",
       .out = "f32[4] stride=[1]",
       .facts = {"assert u0 >= 0", "assert Eq(u0, 4)", "u0 -> 4"},
       .ranges = {"u0: [4, 4]"}},
      // A non-contiguous unbacked layout computeStride cannot prove viewable: a data-dependent
      // error (eager could view it only when u0 <= 1), not a shape error.
      {.in = {"x: f32[u0, 2]"},
       .call = "t = transpose(x, 0, 1); view(t, [-1])",
       .error = "data_dependent_guard: the layout is not (provably) contiguous"},
      {.in = {"x: f32[u0, 2]"},
       .call = "t = transpose(x, 0, 1); reshape(t, [-1])",
       .out = "f32[2*u0] stride=[1]"},
      // Divisibility of an unbacked size is a deferred assert.
      {.in = {"x: f32[u0]"},
       .call = "view(x, [-1, 2])",
       .out = "f32[FloorDiv(u0, 2), 2] stride=[2, 1]",
       .facts = {"assert Eq(u0, 2*FloorDiv(u0, 2))"}},
      {.in = {"x: f32[u0, 2]"},
       .call = "view(x, [2, -1])",
       .out = "f32[2, u0] stride=[Max(1, u0), 1]"},
      // A viewable non-contiguous layout whose numel may be 0: each stride is the element-free
      // (contiguous) one when it is, as eager reports.
      {.in = {"x: f32[u0, 4]"},
       .call = "t = slice(x, 1, 0, None, 2); view(t, [u0, 2, 1])",
       .out = "f32[u0, 2, 1] stride=[Piecewise((2, Eq(u0, 0)), (4, True)), "
              "Piecewise((1, Eq(u0, 0)), (2, True)), Piecewise((1, Eq(u0, 0)), (2, True))]"},
  });
}

TEST(ViewMeta, PermuteTransposeUnsqueezeSqueeze) {
  CheckAll({
      {.in = {"x: f32[2, 3, 4]"},
       .call = "permute(x, [2, 0, 1])",
       .out = "f32[4, 2, 3] stride=[1, 12, 4]"},
      {.in = {"x: f32[s0, s1]"},
       .call = "permute(x, [-1, 0])",
       .out = "f32[s1, s0] stride=[1, s1]"},
      {.in = {"x: f32[2, 3]"},
       .call = "permute(x, [0])",
       .error = "shape: permute: number of dims 1 does not match rank 2"},
      {.in = {"x: f32[2, 3]"},
       .call = "permute(x, [1, -1])",
       .error = "shape: permute: repeated dim -1"},
      {.in = {"x: f32[u0, 3]"}, .call = "transpose(x, 0, 1)", .out = "f32[3, u0] stride=[1, 3]"},
      {.in = {"x: f32[]"}, .call = "transpose(x, 0, -1)", .out = "f32[] stride=[]"},
      {.in = {"x: f32[2, 3]"},
       .call = "transpose(x, 0, 2)",
       .error = "shape: dim 2 out of range for a tensor of rank 2"},
      // unsqueeze inserts size * stride of the dim it precedes, 1 at the end.
      {.in = {"x: f32[2, 3]"}, .call = "unsqueeze(x, 0)", .out = "f32[1, 2, 3] stride=[6, 3, 1]"},
      {.in = {"x: f32[2, 3]"}, .call = "unsqueeze(x, 1)", .out = "f32[2, 1, 3] stride=[3, 3, 1]"},
      {.in = {"x: f32[2, 3]"}, .call = "unsqueeze(x, -1)", .out = "f32[2, 3, 1] stride=[3, 1, 1]"},
      {.in = {"x: f32[u0, 3]"},
       .call = "unsqueeze(x, 0)",
       .out = "f32[1, u0, 3] stride=[3*u0, 3, 1]"},
      {.in = {"x: f32[]"}, .call = "unsqueeze(x, 0)", .out = "f32[1] stride=[1]"},
      {.in = {"x: f32[2, 3]"}, .call = "unsqueeze(x, 3)", .error = "shape: dim 3 out of range"},
      {.in = {"x: f32[1, 3]"}, .call = "squeeze(x, 0)", .out = "f32[3] stride=[1]"},
      {.in = {"x: f32[1, 3]"}, .call = "squeeze(x, -2)", .out = "f32[3] stride=[1]"},
      {.in = {"x: f32[2, 3]"}, .call = "squeeze(x, 0)", .out = "f32[2, 3] stride=[3, 1]"},
      {.in = {"x: f32[s0, 3]"}, .call = "squeeze(x, 0)", .out = "f32[s0, 3]"},
      {.in = {"x: f32[]"}, .call = "squeeze(x, -1)", .out = "f32[]"},
      // An unbacked size is kept (assumed not 1), and that assumption becomes a runtime assert.
      {.in = {"x: f32[u0, 3]"},
       .call = "squeeze(x, 0)",
       .out = "f32[u0, 3] stride=[3, 1]",
       .facts = {"assert Ne(u0, 1)"}},
  });
}

TEST(ViewMeta, Expand) {
  CheckAll({
      {.in = {"x: f32[1, 3]"}, .call = "expand(x, [4, 3])", .out = "f32[4, 3] stride=[0, 1]"},
      {.in = {"x: f32[3]"}, .call = "expand(x, [2, -1])", .out = "f32[2, 3] stride=[0, 1]"},
      {.in = {"x: f32[1, 3]", "y: f32[s0]"},
       .call = "expand(x, [s0, 3])",
       .out = "f32[s0, 3] stride=[0, 1]"},
      {.in = {"x: f32[u0, 1]"},
       .call = "expand(x, [2, u0, 5])",
       .out = "f32[2, u0, 5] stride=[0, 1, 0]"},
      {.in = {"x: f32[1]", "k: int u0"},
       .call = "expand(x, [k])",
       .out = "f32[u0] stride=[0]",
       .facts = {"assert u0 >= 0"},
       .ranges = {"u0: [0, int_oo]"}},
      // An unbacked size is assumed not 1, so it must equal the target.
      {.in = {"x: f32[u0]"},
       .call = "expand(x, [3])",
       .out = "f32[3] stride=[1]",
       .facts = {"assert Eq(u0, 3)", "u0 -> 3"},
       .ranges = {"u0: [3, 3] size-like"}},
      {.in = {"x: f32[2, 3]"},
       .call = "expand(x, [3])",
       .error = "shape: expand: target [3] has fewer dims than [2, 3]"},
      {.in = {"x: f32[2]"},
       .call = "expand(x, [-1, 2])",
       .error = "shape: expand: -1 is not allowed in a new leading dim"},
      {.in = {"x: f32[2]"},
       .call = "expand(x, [4])",
       .error = "shape: expand: the expanded size 4 must match the existing size 2 at "
                "non-singleton dim 0"},
      {.in = {"x: f32[1]"}, .call = "expand(x, [-3])", .error = "shape: expand: negative size -3"},
  });
}

TEST(ViewMeta, SliceStaticAndBacked) {
  CheckAll({
      {.in = {"x: f32[10]"}, .call = "slice(x, 0, 2, 8)", .out = "f32[6] stride=[1] offset=2"},
      {.in = {"x: f32[10]"}, .call = "slice(x, 0, 2, 8, 3)", .out = "f32[2] stride=[3] offset=2"},
      {.in = {"x: f32[10]"}, .call = "slice(x, 0, -3)", .out = "f32[3] stride=[1] offset=7"},
      {.in = {"x: f32[10]"}, .call = "slice(x, 0, None, 20)", .out = "f32[10] stride=[1]"},
      {.in = {"x: f32[10]"}, .call = "slice(x, 0, -20)", .out = "f32[10] stride=[1]"},
      {.in = {"x: f32[10]"}, .call = "slice(x, 0, 8, 2)", .out = "f32[0] stride=[1] offset=8"},
      {.in = {"x: f32[4, 6]"},
       .call = "slice(x, 1, 1, 5, 2)",
       .out = "f32[4, 2] stride=[6, 2] offset=1"},
      {.in = {"x: f32[10]"},
       .call = "slice(x, 0, 1, 2, 0)",
       .error = "value: slice step must be positive, got 0"},
      {.in = {"x: f32[]"}, .call = "slice(x, 0)", .error = "shape: slice of a 0-d tensor"},
      // Backed: decided by the range [2, oo] where it can, else guarded on the hint.
      {.in = {"x: f32[s0]"}, .call = "slice(x, 0, 2)", .out = "f32[s0 - 2] stride=[1] offset=2"},
      {.in = {"x: f32[s0=5]"}, .call = "slice(x, 0, -2)", .out = "f32[2] stride=[1] offset=s0 - 2"},
      {.in = {"x: f32[s0]"},
       .call = "slice(x, 0, 0, 3)",
       .out = "f32[3] stride=[1]",
       .facts = {"guard s0 >= 3"},
       .ranges = {"s0: [3, int_oo]"}},
      {.in = {"x: f32[s0, 4]"},
       .call = "slice(x, 1, None, None, 2)",
       .out = "f32[s0, 2] stride=[4, 2]"},
  });
}

// Unbacked: where the clamp of a bound cannot be decided, the size (and without a decided start
// the storage offset) is a fresh unbacked symbol bound at the slice, with range asserts.
TEST(ViewMeta, SliceUnbacked) {
  CheckAll({
      {.in = {"x: f32[u0]"},
       .call = "slice(x, 0, None, None, 2)",
       .out = "f32[FloorDiv(u0 + 1, 2)] stride=[2]"},
      {.in = {"x: f32[u0]"},
       .call = "slice(x, 0, 2)",
       .out = "f32[u1] stride=[1] offset=u2",
       .bindings = "{u1: size(0), u2: storage_offset()}",
       .facts = {"assert u1 >= 0", "assert u1 <= u0", "assert u2 >= 0"},
       .ranges = {"u1: [0, int_oo]", "u2: [0, int_oo]"}},
      // A decided start keeps the offset exact; only the size is fresh.
      {.in = {"x: f32[u0]"},
       .call = "slice(x, 0, 0, 3)",
       .out = "f32[u1] stride=[1]",
       .bindings = "{u1: size(0)}",
       .facts = {"assert u1 >= 0", "assert u1 <= u0"},
       .ranges = {"u1: [0, int_oo]"}},
      // Facts decide the clamp: no fresh symbol.
      {.in = {"x: f32[u0]"},
       .call = "constrain(u0, 5, 10); slice(x, 0, 2, 4)",
       .out = "f32[2] stride=[1] offset=2"},
      {.in = {"x: f32[u0]"},
       .call = "slice(x, 0, -1)",
       .out = "f32[u1] stride=[1] offset=u2",
       .bindings = "{u1: size(0), u2: storage_offset()}",
       .facts = {"assert u1 >= 0", "assert u1 <= u0", "assert u2 >= 0"},
       .ranges = {"u1: [0, int_oo]", "u2: [0, int_oo]"}},
      {.in = {"x: f32[s0=5]", "k: int u0"},
       .call = "slice(x, 0, k)",
       .out = "f32[u1] stride=[1] offset=u2",
       .bindings = "{u1: size(0), u2: storage_offset()}",
       .facts = {"assert u1 >= 0", "assert u1 <= s0", "assert u2 >= 0"},
       .ranges = {"u1: [0, int_oo]", "u2: [0, int_oo]"}},
  });
}

TEST(ViewMeta, Narrow) {
  CheckAll({
      {.in = {"x: f32[10]"}, .call = "narrow(x, 0, 2, 3)", .out = "f32[3] stride=[1] offset=2"},
      {.in = {"x: f32[10]"}, .call = "narrow(x, 0, -3, 2)", .out = "f32[2] stride=[1] offset=7"},
      {.in = {"x: f32[4, 10]"}, .call = "narrow(x, 1, 0, 10)", .out = "f32[4, 10] stride=[10, 1]"},
      {.in = {"x: f32[10]"},
       .call = "narrow(x, 0, 8, 3)",
       .error = "index: narrow: start (8) + length (3) exceeds dimension size (10)"},
      {.in = {"x: f32[10]"},
       .call = "narrow(x, 0, 2, -1)",
       .error = "value: narrow: negative length -1"},
      {.in = {"x: f32[10]"},
       .call = "narrow(x, 0, 11, 0)",
       .error = "index: narrow: start 11 out of range [-10, 10]"},
      {.in = {"x: f32[]"}, .call = "narrow(x, 0, 0, 0)", .error = "shape: narrow of a 0-d tensor"},
      {.in = {"x: f32[s0]"},
       .call = "narrow(x, 0, 1, 2)",
       .out = "f32[2] stride=[1] offset=1",
       .facts = {"guard s0 >= 3"},
       .ranges = {"s0: [3, int_oo]"}},
      // An unbacked length: checked against the size, then the slice is exact.
      {.in = {"x: f32[10]", "k: int u0"},
       .call = "narrow(x, 0, 0, k)",
       .out = "f32[u0] stride=[1]",
       .facts = {"assert u0 >= 0", "assert u0 <= 10"},
       .ranges = {"u0: [0, 10]"}},
      // A start of unknown sign: in range and start + length <= size are asserted, the slice
      // binds a fresh size (asserted equal to the length, so replaced by it) and offset.
      {.in = {"x: f32[10]", "k: int u0"},
       .call = "narrow(x, 0, k, 2)",
       .out = "f32[u1] stride=[1] offset=u2",
       .bindings = "{u1: size(0), u2: storage_offset()}",
       .facts = {"assert (u0 >= -10) & (u0 <= 10)", "assert u0 <= 8", "assert u1 >= 0",
                 "assert u1 <= 10", "assert u2 >= 0", "assert Eq(u1, 2)", "u1 -> 2"},
       .ranges = {"u0: [-10, 8]", "u1: [2, 2]", "u2: [0, int_oo]"}},
  });
}

TEST(ViewMeta, Select) {
  CheckAll({
      {.in = {"x: f32[2, 3]"}, .call = "select(x, 0, 1)", .out = "f32[3] stride=[1] offset=3"},
      {.in = {"x: f32[2, 3]"}, .call = "select(x, 1, -1)", .out = "f32[2] stride=[3] offset=2"},
      {.in = {"x: f32[2, 3]"},
       .call = "select(x, 0, 2)",
       .error = "index: select: index 2 out of range for dim 0 of size 2"},
      {.in = {"x: f32[2, 3]"}, .call = "select(x, 0, -3)", .error = "index: select: index -3"},
      {.in = {"x: f32[]"}, .call = "select(x, 0, 0)", .error = "shape: select of a 0-d tensor"},
      {.in = {"x: f32[s0, 3]"}, .call = "select(x, 0, 1)", .out = "f32[3] stride=[1] offset=3"},
      // A symbolic index: the bounds check (a guard when backed, an assert when unbacked), and
      // the offset wraps a negative index exactly instead of guarding on its sign.
      {.in = {"x: f32[s0, 3]", "n: int s1=1"},
       .call = "select(x, 0, n)",
       .out = "f32[3] stride=[1] offset=3*Piecewise((s0 + s1, s1 <= -1), (s1, True))",
       .facts = {"guard (s0 + s1 >= 0) & (s1 + 1 <= s0)"}},
      {.in = {"x: f32[4]", "k: int u0"},
       .call = "select(x, 0, k)",
       .out = "f32[] stride=[] offset=Piecewise((u0 + 4, u0 <= -1), (u0, True))",
       .facts = {"assert (u0 >= -4) & (u0 <= 3)"},
       .ranges = {"u0: [-4, 3]"}},
      // An unbacked dim must be non-empty to be indexed: the bounds check -u0 <= 0 < u0 is
      // deferred as written (asserts are stored unsimplified) and narrows the range.
      {.in = {"x: f32[u0, 3]"},
       .call = "select(x, 0, 0)",
       .out = "f32[3] stride=[1]",
       .facts = {"assert (u0 >= 0) & (u0 >= 1)"},
       .ranges = {"u0: [1, int_oo] size-like"}},
  });
}

TEST(ViewMeta, Flatten) {
  CheckAll({
      {.in = {"x: f32[2, 3, 4]"}, .call = "flatten(x)", .out = "f32[24] stride=[1]"},
      {.in = {"x: f32[2, 3, 4]"}, .call = "flatten(x, 1)", .out = "f32[2, 12] stride=[12, 1]"},
      {.in = {"x: f32[2, 3, 4]"}, .call = "flatten(x, 0, 1)", .out = "f32[6, 4] stride=[4, 1]"},
      {.in = {"x: f32[s0, s1, 2]"},
       .call = "flatten(x, 1)",
       .out = "f32[s0, 2*s1] stride=[2*s1, 1]"},
      {.in = {"x: f32[s0, u0, 2]"},
       .call = "flatten(x, 1)",
       .out = "f32[s0, 2*u0] stride=[Max(1, 2*u0), 1]"},
      {.in = {"x: f32[]"}, .call = "flatten(x)", .out = "f32[1] stride=[1]"},
      {.in = {"x: f32[2, 3]"},
       .call = "t = transpose(x, 0, 1); flatten(t)",
       .out = "f32[6] stride=[1]"},
      {.in = {"x: f32[2, 3, 4]"},
       .call = "flatten(x, 2, 1)",
       .error = "shape: flatten: start_dim cannot come after end_dim"},
  });
}

// On a 0-d tensor transpose, squeeze and flatten accept only dims 0 and -1 (docs/ops.md, eager:
// "dim 5 out of range for a tensor of rank 0"); the meta functions used to return before
// checking the dim, so the trace accepted what eager rejects.
TEST(ViewMeta, ZeroDimTensorsCheckTheirDims) {
  CheckAll({
      {.in = {"x: f32[]"}, .call = "transpose(x, 0, 5)", .error = "shape: dim 5 out of range"},
      {.in = {"x: f32[]"}, .call = "squeeze(x, 3)", .error = "shape: dim 3 out of range"},
      {.in = {"x: f32[]"}, .call = "flatten(x, 0, 4)", .error = "shape: dim 4 out of range"},
  });
}

}  // namespace
}  // namespace sf::fake::testing
