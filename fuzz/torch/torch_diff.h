// torch-diff's judgement: our outcome for a program (eager reference and compiled verdict) against
// PyTorch's verdict for one backend (the JSON torch_prelude.py's sf_run prints), as one of the
// classes the report counts. Eager is compared with our eager reference, every compiling backend
// (aot_eager, inductor, export) with our compiled verdict.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/program/host_value.h"
#include "oracles/pipeline.h"

namespace sf::torch_ref {

// What our pipeline said, reduced to what PyTorch can be compared with.
struct OurOutcome {
  // Eager reference: outputs, or the kind of the user error it raised.
  std::optional<std::vector<program::HostValue>> eager_outputs;
  std::string eager_error;  // a user_error_kind_name, when eager raised
  // Compiled: ok (its outputs equal eager's: the differential oracle checks that), or the kind
  // of the user error it was rejected with.
  bool compiled_ok = false;
  std::string compiled_error;
  // Our pipeline failed an oracle, crashed or was undecided: no comparison (a finding of ours).
  std::string own_failure;
};
OurOutcome our_outcome(const oracles::PipelineResult& r);

enum class DiffClass {
  kAgree,                  // both ok with equal outputs, or both reject with the same kind
  kBothRejectDifferently,  // both reject, with different kinds
  kWeRejectTorchAccepts,
  kTorchRejectsWeAccept,
  kDifferentOutputs,  // both ok, outputs differ (sizes, dtypes or values)
  kTorchCrashes,      // an internal error of PyTorch's, its worker died, or it hung
  kOursFailed,        // our own pipeline failed (not compared)
  // A compiling backend of PyTorch's rejects or computes otherwise where PyTorch's eager agrees
  // with ours (judge_case): PyTorch disagrees with itself.
  kTorchSelf,
  // PyTorch's own graph (the "capture" backend) breaks an invariant our oracles check: a symbol
  // unbound or bound after its use, a keypath that does not resolve, a value outside its range,
  // a replacement, renaming or assert false on the real run, sizes that differ from the real ones.
  kTorchInvariant,
};
const char* diff_class_name(DiffClass c);  // "agree", "we-reject-torch-accepts", ...

// A message as one line of at most n characters ("..." when cut): what a judgement's detail quotes.
std::string short_text(const std::string& s, size_t n = 300);
const std::vector<DiffClass>& all_diff_classes();

struct Judgement {
  DiffClass cls = DiffClass::kAgree;
  std::string detail;  // what differs, in one line
  // The disagreement without messages and values: the class and the kind of error on each side
  // (torch's kind and exception type), or which aspect of an output differs. The report groups
  // disagreements by it and the shrinker keeps it.
  std::string key = "agree";
  // The capture backend's invariant check: facts decided under σ, facts it could not decide,
  // PyTorch expressions we could not read, facts over symbols of discarded traces (-1: no
  // capture was judged), and every invariant violation ("invariant op: detail").
  int facts_checked = -1, facts_unknown = 0, unreadable = 0, orphan_facts = 0;
  std::vector<std::string> violations;
  // What each unreadable expression was (its function, numbers as '#'): the reader's to-do list.
  std::vector<std::string> unreadable_what;
  std::string torch_version;  // the capture's
};

// `torch_verdict`: one backend's JSON object ({"backend", "verdict": "ok"|"error", "kind",
// "type", "message", "outputs"}). Malformed JSON is a crash of the worker's.
Judgement judge(const OurOutcome& ours, const std::string& torch_verdict_json, double rtol = 1e-4,
                double atol = 1e-5);

}  // namespace sf::torch_ref
