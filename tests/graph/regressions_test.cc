// Regression tests for engine bugs found while writing the spec tests (each was a failing
// test first): asserts over unbacked inputs, dropped single-symbol asserts, divisibility
// lowering, repeated extern inputs, huge allocations, squeeze/expand of unbacked dims.
#include <gtest/gtest.h>

#include <memory>

#include "engine/backend/cpu/cpu_backend.h"
#include "oracles/pipeline.h"
#include "tests/graph/test_util.h"

namespace sf::graph {
namespace {

using namespace sf::graph::testing;
using oracles::Verdict;

oracles::PipelineResult run(std::string_view text, bool cpu = false) {
  std::unique_ptr<backend::Backend> b = cpu ? backend::make_cpu_backend() : nullptr;
  oracles::PipelineOptions opts;
  opts.backend = b.get();
  return oracles::run_pipeline(sfz(text), opts);
}

constexpr const char* kT22 =
    "input a: f32[1, 1] unbacked(0) = [1.0]\n"
    "input b: f32[ROWS, 1] unbacked(0) = DATA\n"
    "check(size(a, 0) == size(b, 0), \"same rows\")\n"
    "return a * 10\n";

std::string t22(const std::string& rows, const std::string& data) {
  std::string s = kT22;
  s.replace(s.find("ROWS"), 4, rows);
  s.replace(s.find("DATA"), 4, data);
  return s;
}

// Bug A (runtime_asserts.cc): unbacked input symbols are put in `bound_` from input_bindings
// before define() runs, so define() returns early: their buckets (and range asserts) are never
// emitted. Spec §5.1 step 1/3, T22 (#152231), INV-6.
TEST(Regressions, T22_AssertOverUnbackedInputSymbolsIsEmitted) {
  auto ok = run(t22("1", "[2.0]"));
  EXPECT_EQ(ok.verdict.kind, Verdict::Kind::kPass) << ok.verdict.str();
  ASSERT_TRUE(ok.final_graph.has_value());
  std::vector<std::string> l = listing(*ok.final_graph);
  EXPECT_NE(position(l, "assert(Eq(u0, u1))"), -1) << ::testing::PrintToString(l);
  auto bad = run(t22("2", "[2.0, 3.0]"), /*cpu=*/true);
  EXPECT_EQ(bad.verdict.kind, Verdict::Kind::kRejected) << bad.verdict.str();
  EXPECT_EQ(bad.verdict.error_kind, UserErrorKind::kCheckFailed);
  EXPECT_FALSE(bad.run.has_value()) << "the compiled program must raise too";
}

TEST(Regressions, T23_EqualUnbackedInputSizesVerdictPasses) {
  auto r =
      run("input a: f32[4] unbacked(0) = arange()\ninput b: f32[4] unbacked(0) = arange()\n"
          "x = size(a, 0)\ny = size(b, 0)\ncheck(x == y, \"eq\")\n"
          "if x // y == 1:\n  r = x * 2\nelse:\n  r = x\nreturn r\n",
          /*cpu=*/true);
  EXPECT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
}

// Same root cause, silent: T25/T31 expect u >= 0 range asserts on the input symbols.
TEST(Regressions, T25_RangeAssertsForUnbackedInputSymbols) {
  auto r =
      run("input x: i64[3, 2] unbacked(0) unbacked(1) = arange()\ninput y: i64[2] = [2, 3]\n"
          "xt = transpose(x, 0, 1)\na, b = tolist(y)\nr = reshape(xt, [a, b])\nreturn r\n");
  ASSERT_TRUE(r.final_graph.has_value()) << r.verdict.str();
  std::vector<std::string> l = listing(*r.final_graph);
  EXPECT_EQ(position(l, "assert(u0 >= 0)"), 0) << ::testing::PrintToString(l);
  EXPECT_EQ(position(l, "assert(u1 >= 0)"), 1);
}

// Bug B (fake_mode.cc fakify_input): an `i64 unbacked` scalar input is created with
// create_unbacked_symint directly and never enters unbacked_inputs, so check(x == y) installs no
// replacement and x // y == 1 is a data-dependent guard (spec §1.3, §2.13, T23 `_ints`).
TEST(Regressions, T23_UnbackedScalarInputsAreUnbackedInputs) {
  Trace t = trace(
      "input x: i64 unbacked = 4\ninput y: i64 unbacked = 4\ncheck(x == y, \"eq\")\n"
      "return x + 1\n");
  EXPECT_EQ(t.env->unbacked_inputs().size(), 2u);
  EXPECT_EQ(replacement_of(*t.env, U(0)), "u1");
  auto r =
      run("input x: i64 unbacked = 4\ninput y: i64 unbacked = 4\ncheck(x == y, \"eq\")\n"
          "if x // y == 1:\n  r = x * 2\nelse:\n  r = x\nreturn r\n");
  EXPECT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
}

// Bug C (runtime_asserts.cc place()): any one-symbol relation with a numeric side counts as a
// "plain bound" of a range-asserted symbol and is skipped, so Eq(PythonMod(u0, 2), 1) and
// Ne(u0, 5) are never checked at run time (spec §5.1 step 4 skips only bounds like u0 <= 5).
TEST(Regressions, Item7_EqualsConstantAssertIsEmitted) {
  auto r = run("input t: i64[1] = [3]\nu = item(t)\ncheck(u == 3, \"three\")\nreturn u\n");
  ASSERT_TRUE(r.final_graph.has_value()) << r.verdict.str();
  EXPECT_EQ(listing(*r.final_graph),
            (std::vector<std::string>{"item", "assert(u0 >= 3)", "assert(u0 <= 3)",
                                      "assert(Eq(u0, 3))", "output"}));
}

TEST(Regressions, ModuloAssertIsEmitted) {
  auto r =
      run("input t: i64[1] = [4]\nk = item(t)\ncheck_is_size(k)\ncheck(k % 2 == 1, \"odd\")\n"
          "return k\n",
          /*cpu=*/true);
  ASSERT_TRUE(r.final_graph.has_value()) << r.verdict.str();
  EXPECT_NE(position(listing(*r.final_graph), "assert(Eq(PythonMod(u0, 2), 1))"), -1);
  EXPECT_EQ(r.verdict.kind, Verdict::Kind::kRejected) << r.verdict.str();
  EXPECT_EQ(r.verdict.error_kind, UserErrorKind::kCheckFailed);
}

TEST(Regressions, NotEqualAssertIsEmitted) {
  auto r =
      run("input t: i64[1] = [5]\nk = item(t)\ncheck(k >= 0, \"nonneg\")\n"
          "check(k != 5, \"not five\")\nreturn k\n",
          /*cpu=*/true);
  ASSERT_TRUE(r.final_graph.has_value()) << r.verdict.str();
  EXPECT_NE(position(listing(*r.final_graph), "assert(Ne(u0, 5))"), -1);
  EXPECT_EQ(r.verdict.error_kind, UserErrorKind::kCheckFailed) << r.verdict.str();
}

// Bug C again: amax's check u0 > 0 (docs/ops.md: amax over an empty extent is a shape
// error) is dropped, so the compiled program returns a value where eager raises.
TEST(Regressions, AmaxOverEmptyUnbackedExtentRaises) {
  auto r = run("input x: i64[5] = [0, 0, 0, 0, 0]\nreturn amax(nonzero(x), [0])\n", true);
  EXPECT_EQ(r.verdict.kind, Verdict::Kind::kRejected) << r.verdict.str();
  EXPECT_EQ(r.verdict.error_kind, UserErrorKind::kShape);
}

// Bug C on the divisibility path (spec §11 item 12): the Mod assert is dropped too.
TEST(Regressions, DivisibilityAssertIsEmitted) {
  auto r =
      run("input p: i64[1] = [9]\nk = item(p)\ncheck_is_size(k)\ncheck(k % 4 == 0, \"div4\")\n"
          "return k\n");
  ASSERT_TRUE(r.final_graph.has_value()) << r.verdict.str();
  EXPECT_NE(position(listing(*r.final_graph), "assert(Eq(PythonMod(u0, 4), 0))"), -1)
      << r.final_graph->print();
}

// Bug D (lower/lowering.cc lower_call, derived_binding): the divisibility factor is bound as
// FloorDiv(<fresh retrace name>, d); through replacements that is FloorDiv(4*u1, 4), i.e. u1 is
// defined in terms of itself and check_closure aborts (INV-19). Currently aborts the process.
TEST(Regressions, CpuLowersDivisibilityFactor) {
  auto r =
      run("input t: i64[1] = [12]\nk = item(t)\ncheck_is_size(k)\ncheck(k % 4 == 0, \"div4\")\n"
          "return zeros([k]), k // 4\n",
          /*cpu=*/true);
  EXPECT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
}

// Bug E (lower/lower_extern.cc): extern inputs are deduplicated by node, so an op receiving the
// same tensor twice gets one input and the CPU backend reads tensors.at(1): std::out_of_range
// escapes run_pipeline (the CLI terminates).
TEST(Regressions, CpuExternWithTheSameTensorTwice) {
  auto r = run("input m: bool[4] = [True, False, True, True]\nreturn index(m, m)\n", true);
  EXPECT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  auto s = run("input r: i64[3] = [2, 0, 3]\nreturn repeat_interleave(r, r, 0)\n", true);
  EXPECT_EQ(s.verdict.kind, Verdict::Kind::kPass) << s.verdict.str();
}

// Bug G (backend/runner.cc kAlloc): no element limit (eager's 2^26, too_complex) and an
// unchecked size product; a 10^10-element buffer throws std::bad_alloc out of run_pipeline.
TEST(Regressions, CpuHugeDataDependentAllocationIsTooComplex) {
  auto r =
      run("input t: i64[1] = [100000]\nk = item(t)\ncheck_is_size(k)\n"
          "return sum(zeros([k, k]))\n",
          true);
  EXPECT_EQ(r.verdict.kind, Verdict::Kind::kRejected) << r.verdict.str();
  EXPECT_EQ(r.verdict.error_kind, UserErrorKind::kTooComplex);
}

// Bug H (fake/meta/view.cc squeeze): squeeze of an unbacked dim decides size == 1 with
// guard_or_false and keeps the dim without recording anything; when the size is 1 at run time the
// compiled output keeps a dim eager removes (a silent shape difference, FAIL at differential).
TEST(Regressions, SqueezeOfUnbackedDimThatIsOne) {
  auto r =
      run("input x: f32[4, 3] = arange()\ninput m: bool[4] = [False, True, False, False]\n"
          "return squeeze(index(x, m), 0)\n",
          true);
  EXPECT_NE(r.verdict.kind, Verdict::Kind::kFail) << r.verdict.str();
}

// Bug I (meta broadcast/expand, or the differential oracle): an unbacked size that is 1 at run
// time is assumed not to be 1 (PyTorch's unbacked semantics), so expand/broadcast defer
// Eq(u0, 2); eager broadcasts, the compiled program raises: FAIL at differential.
TEST(Regressions, ExpandOfUnbackedDimThatIsOne) {
  auto r =
      run("input x: f32[4, 3] = arange()\ninput m: bool[4] = [False, True, False, False]\n"
          "return expand(index(x, m), [2, 3])\n",
          true);
  EXPECT_NE(r.verdict.kind, Verdict::Kind::kFail) << r.verdict.str();
}

// Bug F (oracles/pipeline.cc): PipelineOptions{repropagate = false} still re-propagates, with
// bump_epoch = false (the memo-disaster testing knob), so any input-mask memo hit is a FAIL.
TEST(Regressions, PipelineWithoutRepropagation) {
  oracles::PipelineOptions opts;
  opts.repropagate = false;
  auto r = oracles::run_pipeline(
      sfz("input x: f32[4] = arange()\ninput m: bool[4] = [True, False, True, True]\n"
          "return index(x, m)\n"),
      opts);
  EXPECT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
}

}  // namespace
}  // namespace sf::graph
