// torch-diff's judgement, one test per class: our outcome against a PyTorch verdict line (the JSON
// torch_prelude.py prints), including the cases that must not agree (a value off by one element,
// a dtype, a rejection kind) so the classifier is shown to fire.
#include "fuzz/torch/torch_diff.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fuzz/torch/torch_case.h"

namespace sf::torch_ref {
namespace {

using program::DType;
using program::HostTensor;
using program::HostValue;

OurOutcome ok_with(std::vector<HostValue> outputs) {
  OurOutcome o;
  o.eager_outputs = std::move(outputs);
  o.compiled_ok = true;
  return o;
}

OurOutcome rejected(const std::string& kind) {
  OurOutcome o;
  o.eager_outputs = std::vector<HostValue>{};  // eager ran; the compiled program refused
  o.compiled_error = kind;
  return o;
}

HostValue floats(std::vector<int64_t> sizes, std::vector<float> values) {
  HostTensor t;
  t.dtype = DType::kFloat32;
  t.sizes = std::move(sizes);
  t.floats = std::move(values);
  return HostValue::of_tensor(t);
}

const std::string kOk =
    R"({"backend": "aot_eager", "verdict": "ok", "outputs": [{"tensor": "f32", "sizes": [2],
        "values": [1.0, "nan"]}, {"int": 3}]})";

TEST(TorchDiffJudge, EqualOutputsAgreeWithNanEqualToNan) {
  Judgement j = judge(ok_with({floats({2}, {1.0f, NAN}), HostValue::of_int(3)}), kOk);
  EXPECT_EQ(j.cls, DiffClass::kAgree) << j.detail;
}

TEST(TorchDiffJudge, AValueOffIsDifferentOutputs) {
  Judgement j = judge(ok_with({floats({2}, {1.5f, NAN}), HostValue::of_int(3)}), kOk);
  EXPECT_EQ(j.cls, DiffClass::kDifferentOutputs);
  EXPECT_NE(j.detail.find("element 0"), std::string::npos) << j.detail;
  j = judge(ok_with({floats({2}, {1.0f, NAN}), HostValue::of_int(4)}), kOk);
  EXPECT_EQ(j.cls, DiffClass::kDifferentOutputs) << j.detail;
}

TEST(TorchDiffJudge, SizesAndDtypesAreCompared) {
  Judgement j = judge(ok_with({floats({1, 2}, {1.0f, NAN}), HostValue::of_int(3)}), kOk);
  EXPECT_EQ(j.cls, DiffClass::kDifferentOutputs);
  EXPECT_NE(j.detail.find("sizes"), std::string::npos) << j.detail;
  HostTensor ints;
  ints.dtype = DType::kInt64;
  ints.sizes = {2};
  ints.ints = {1, 0};
  j = judge(ok_with({HostValue::of_tensor(ints), HostValue::of_int(3)}), kOk);
  EXPECT_NE(j.detail.find("dtype"), std::string::npos) << j.detail;
}

TEST(TorchDiffJudge, RejectionsByKind) {
  const std::string ddg =
      R"({"backend": "aot_eager", "verdict": "error", "kind": "data_dependent_guard",
          "type": "UserError", "message": "Could not guard on data-dependent expression"})";
  EXPECT_EQ(judge(rejected("data_dependent_guard"), ddg).cls, DiffClass::kAgree);
  EXPECT_EQ(judge(rejected("shape"), ddg).cls, DiffClass::kBothRejectDifferently);
  EXPECT_EQ(judge(ok_with({}), ddg).cls, DiffClass::kTorchRejectsWeAccept);
  EXPECT_EQ(judge(rejected("shape"), kOk).cls, DiffClass::kWeRejectTorchAccepts);
}

TEST(TorchDiffJudge, AFailedCheckIsARuntimeAssertOnlyWhenCompiled) {
  std::string assert_failed =
      R"({"backend": "aot_eager", "verdict": "error", "kind": "runtime_assert_failed"})";
  EXPECT_EQ(judge(rejected("check_failed"), assert_failed).cls, DiffClass::kAgree);
  OurOutcome eager_check;
  eager_check.eager_error = "check_failed";
  std::string eager_assert =
      R"({"backend": "eager", "verdict": "error", "kind": "runtime_assert_failed"})";
  EXPECT_EQ(judge(eager_check, eager_assert).cls, DiffClass::kBothRejectDifferently);
}

TEST(TorchDiffJudge, CrashesAndMalformedAnswersAreTorchCrashes) {
  EXPECT_EQ(
      judge(ok_with({}), R"({"backend": "inductor", "verdict": "error", "kind": "crash"})").cls,
      DiffClass::kTorchCrashes);
  EXPECT_EQ(judge(ok_with({}), "not json").cls, DiffClass::kTorchCrashes);
}

TEST(TorchDiffJudge, OurOwnFailureIsNotCompared) {
  OurOutcome o = ok_with({});
  o.own_failure = "fail:binding";
  EXPECT_EQ(judge(o, kOk).cls, DiffClass::kOursFailed);
}

// The key groups disagreements and is what the shrinker keeps: the class and the error kinds on
// each side, or the aspect of an output that differs; never a message or a value.
TEST(TorchDiffJudge, KeysNameTheClassAndTheKindsOnly) {
  const std::string ddg =
      R"j({"backend": "aot_eager", "verdict": "error", "kind": "data_dependent_guard",
          "type": "UserError", "message": "Could not guard on Eq(u0, 1)"})j";
  const std::string ddg_other_message =
      R"j({"backend": "aot_eager", "verdict": "error", "kind": "data_dependent_guard",
          "type": "UserError", "message": "Could not guard on Eq(u7, 3)"})j";
  EXPECT_EQ(judge(ok_with({}), ddg).key,
            "torch-rejects-we-accept torch:data_dependent_guard/UserError");
  EXPECT_EQ(judge(ok_with({}), ddg).key, judge(ok_with({}), ddg_other_message).key);
  EXPECT_EQ(judge(rejected("shape"), ddg).key,
            "both-reject-differently ours:shape torch:data_dependent_guard/UserError");
  EXPECT_EQ(judge(rejected("shape"), kOk).key, "we-reject-torch-accepts ours:shape");
  EXPECT_EQ(judge(rejected("data_dependent_guard"), ddg).key, "agree");
  EXPECT_EQ(judge(ok_with({floats({2}, {1.5f, NAN}), HostValue::of_int(3)}), kOk).key,
            "different-outputs values");
  EXPECT_EQ(judge(ok_with({floats({1, 2}, {1.0f, NAN}), HostValue::of_int(3)}), kOk).key,
            "different-outputs sizes");
  EXPECT_EQ(judge(ok_with({HostValue::of_int(3)}), kOk).key, "different-outputs count");
  EXPECT_EQ(judge(ok_with({}), "not json").key, "torch-crashes malformed");
}

// torch-self: PyTorch's eager agrees with ours, its compiled backend does not.
TEST(TorchDiffJudgeCase, ACompiledBackendAgainstItsOwnEagerIsTorchSelf) {
  const std::string eager_ok = R"({"backend": "eager", "verdict": "ok", "outputs": [{"int": 3}]})";
  const std::string eager_other =
      R"({"backend": "eager", "verdict": "ok", "outputs": [{"int": 4}]})";
  const std::string ddg =
      R"j({"backend": "aot_eager", "verdict": "error", "kind": "data_dependent_guard",
          "type": "UserError", "message": "Could not guard on Eq(u0, 0)"})j";
  const std::string four = R"({"backend": "aot_eager", "verdict": "ok", "outputs": [{"int": 4}]})";
  const std::string crash = R"({"backend": "aot_eager", "verdict": "error", "kind": "crash"})";
  TorchCase c;
  c.ours = ok_with({HostValue::of_int(3)});
  const std::vector<std::string> both = {"eager", "aot_eager"};

  c.results = {eager_ok, ddg};
  std::vector<Judgement> js = judge_case(c, both);
  EXPECT_EQ(js[0].cls, DiffClass::kAgree);
  EXPECT_EQ(js[1].cls, DiffClass::kTorchSelf);
  EXPECT_EQ(js[1].key, "torch-self torch-rejects-we-accept torch:data_dependent_guard/UserError");
  EXPECT_EQ(js[1].key, judge_case(c, both)[1].key);  // what the shrinker compares

  c.results = {eager_ok, four};  // compiled computes otherwise
  EXPECT_EQ(judge_case(c, both)[1].key, "torch-self different-outputs values");

  c.results = {eager_ok, crash};  // an internal error stays a crash
  EXPECT_EQ(judge_case(c, both)[1].cls, DiffClass::kTorchCrashes);

  c.results = {eager_other, ddg};  // PyTorch's eager disagrees with ours: not torch-self
  js = judge_case(c, both);
  EXPECT_EQ(js[0].cls, DiffClass::kDifferentOutputs);
  EXPECT_EQ(js[1].cls, DiffClass::kTorchRejectsWeAccept);

  c.results = {ddg};  // without eager in the run there is nothing to compare with
  EXPECT_EQ(judge_case(c, {"aot_eager"})[0].cls, DiffClass::kTorchRejectsWeAccept);
}

// The capture backend: a capture we cannot read is PyTorch's crash (never ours); a readable one
// with a broken invariant is torch-invariant, keyed by the invariant and the op.
TEST(TorchDiffJudgeCase, TheCaptureBackendIsJudgedByTheInvariants) {
  TorchCase c;
  c.ours = ok_with({HostValue::of_int(3)});
  const std::string ok_outputs = R"("verdict": "ok", "outputs": [{"int": 3}])";
  c.results = {R"({"backend": "capture", )" + ok_outputs + R"(, "capture": {"graphs": 7}})"};
  Judgement j = judge_case(c, {"capture"})[0];
  EXPECT_EQ(j.key, "torch-crashes capture-unreadable") << j.detail;

  // One graph: an add whose size uses u0, which no node binds.
  c.results = {R"({"backend": "capture", )" + ok_outputs + R"(, "capture": {"torch": "2.15.0",
      "graphs": [{"nodes": [{"name": "add", "op": "call_function", "target": "aten.add.Tensor",
      "val": {"sizes": ["u0"], "strides": [1], "offset": 0}}], "real": null,
      "shape_env": null}]}})"};
  j = judge_case(c, {"capture"})[0];
  EXPECT_EQ(j.cls, DiffClass::kTorchInvariant);
  EXPECT_EQ(j.key, "torch-invariant binding aten.add.Tensor");
  EXPECT_EQ(j.torch_version, "2.15.0");
  ASSERT_EQ(j.violations.size(), 1u);

  c.results = {R"({"backend": "capture", )" + ok_outputs + R"(, "capture": {"graphs": []}})"};
  j = judge_case(c, {"capture"})[0];
  EXPECT_EQ(j.cls, DiffClass::kAgree);
  EXPECT_EQ(j.facts_checked, 0);

  // Expressions the reader lacks are counted by what they are, without places or numbers.
  c.results = {R"({"backend": "capture", )" + ok_outputs + R"(, "capture": {"graphs": [{"nodes":
      [{"name": "a", "op": "placeholder", "target": "a", "val": {"sizes": [["Hypot", "s12", 3]],
      "strides": [1], "offset": 0}}, {"name": "b", "op": "placeholder", "target": "b",
      "val": {"value": "q17"}}], "real": null, "shape_env": null}]}})"};
  j = judge_case(c, {"capture"})[0];
  EXPECT_EQ(j.unreadable, 2);
  EXPECT_EQ(j.unreadable_what, (std::vector<std::string>{"Hypot", "the symbol q#"}));
}

// Where PyTorch's eager failed a check, as our eager reference does, and a captured graph (of
// either capture backend) ran to the end, the graph lost eager's check: torch-invariant
// eager-raised. Eager's other errors bind nothing (dead code may be dropped), and an eager that
// raised where ours runs is eager's own disagreement, not the graph's.
TEST(TorchDiffJudgeCase, ACaptureThatCompletesWhereEagerRaisedBreaksEagerRaised) {
  TorchCase c;
  c.ours = ok_with({HostValue::of_int(3)});
  c.ours.eager_outputs.reset();
  c.ours.eager_error = "check_failed";
  c.ours.compiled_ok = false;
  c.ours.compiled_error = "runtime_assert_failed";
  const std::string eager_check = R"j({"backend": "eager", "verdict": "error",
      "kind": "check_failed", "type": "RuntimeError", "message": "sfz check failed: u0 < 3"})j";
  const std::string eager_guard = R"j({"backend": "eager", "verdict": "error",
      "kind": "data_dependent_guard", "type": "UserError", "message": "Eq(u0, 0)"})j";
  const std::string completed = R"({"backend": "capture_export", "verdict": "ok",
      "outputs": [{"int": 3}], "capture": {"graphs": []}})";
  const std::string raised = R"j({"backend": "capture_export", "verdict": "error",
      "kind": "runtime_assert_failed", "type": "RuntimeError", "message": "u0 < 3",
      "capture": {"graphs": []}})j";
  const std::vector<std::string> backends = {"eager", "capture_export"};

  c.results = {eager_check, completed};
  Judgement j = judge_case(c, backends)[1];
  EXPECT_EQ(j.cls, DiffClass::kTorchInvariant);
  EXPECT_EQ(j.key, "torch-invariant eager-raised check_failed");
  ASSERT_FALSE(j.violations.empty());
  EXPECT_NE(j.detail.find("sfz check failed: u0 < 3"), std::string::npos) << j.detail;
  EXPECT_TRUE(judged_against_eager(j.key));  // the shrinker runs eager beside the capture

  c.results = {eager_check, raised};  // the graph kept the check
  EXPECT_EQ(judge_case(c, backends)[1].cls, DiffClass::kAgree);

  c.ours.eager_error = "data_dependent_guard";  // both eagers raise it: not a check
  c.results = {eager_guard, completed};
  ASSERT_EQ(judge_case(c, backends)[0].cls, DiffClass::kAgree);
  EXPECT_NE(judge_case(c, backends)[1].cls, DiffClass::kTorchInvariant);

  const std::string eager_index = R"j({"backend": "eager", "verdict": "error", "kind": "index",
      "type": "RuntimeError", "message": "index 3 is out of bounds"})j";
  c.ours.eager_error = "index";  // both eagers raise it; the graph may drop the dead call
  c.results = {eager_index, completed};
  EXPECT_NE(judge_case(c, backends)[1].cls, DiffClass::kTorchInvariant);

  TorchCase ours_runs = c;  // ours runs where PyTorch's eager fails the check
  ours_runs.ours = ok_with({HostValue::of_int(3)});
  ours_runs.results = {eager_check, completed};
  EXPECT_NE(judge_case(ours_runs, backends)[1].cls, DiffClass::kTorchInvariant);

  c.results = {completed};  // without eager in the run there is nothing to hold the graph to
  EXPECT_NE(judge_case(c, {"capture_export"})[0].cls, DiffClass::kTorchInvariant);
  EXPECT_FALSE(judged_against_eager("torch-invariant binding aten.add.Tensor"));
}

}  // namespace
}  // namespace sf::torch_ref
