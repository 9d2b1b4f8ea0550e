// Comparing our outcome with one PyTorch backend's verdict: kinds of rejection by name, outputs
// value by value (floats within a tolerance, NaN equal to NaN), tuples element by element.
#include "fuzz/torch/torch_diff.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace sf::torch_ref {

namespace {

using json = nlohmann::json;
using program::HostValue;

double number_of(const json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s == "nan") return NAN;
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  return v.is_number() ? v.get<double>() : NAN;
}

bool close_enough(double a, double b, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= atol + rtol * std::abs(b);
}

const char* dtype_text(program::DType d) { return program::dtype_name(d); }

// What differs between two outputs: `aspect` is one of "kind", "dtype", "sizes", "values" (empty
// when equal), `detail` says where and how.
struct Difference {
  std::string aspect, detail;
  bool empty() const { return aspect.empty(); }
};

// `where` names the output.
Difference compare(const HostValue& ours, const json& theirs, const std::string& where, double rtol,
                   double atol) {
  switch (ours.kind) {
    case HostValue::Kind::kTensor: {
      if (!theirs.is_object() || !theirs.contains("tensor")) {
        return {"kind", where + ": ours is a tensor, torch's is " + short_text(theirs.dump(), 80)};
      }
      const program::HostTensor& t = ours.tensor;
      if (theirs["tensor"] != dtype_text(t.dtype)) {
        return {"dtype",
                where + ": dtype " + dtype_text(t.dtype) + " vs " + theirs["tensor"].dump()};
      }
      if (theirs["sizes"] != json(t.sizes)) {
        return {"sizes",
                where + ": sizes " + json(t.sizes).dump() + " vs " + theirs["sizes"].dump()};
      }
      const json& values = theirs["values"];
      for (int64_t i = 0; i < t.numel(); ++i) {
        double a = t.at_double(i), b = number_of(values.at(i));
        bool equal = t.is_float() ? close_enough(a, b, rtol, atol) : a == b;
        if (!equal) {
          return {"values", where + ": element " + std::to_string(i) + " is " + std::to_string(a) +
                                " vs " + values.at(i).dump()};
        }
      }
      return {};
    }
    case HostValue::Kind::kInt:
    case HostValue::Kind::kBool:
    case HostValue::Kind::kFloat: {
      const char* key = ours.kind == HostValue::Kind::kInt    ? "int"
                        : ours.kind == HostValue::Kind::kBool ? "bool"
                                                              : "float";
      double a = ours.kind == HostValue::Kind::kInt    ? static_cast<double>(ours.i)
                 : ours.kind == HostValue::Kind::kBool ? (ours.b ? 1 : 0)
                                                       : ours.f;
      // A Python int and bool stand in for each other in a scalar position (True == 1).
      const json* v = nullptr;
      for (const char* k : {"int", "bool", "float"}) {
        if (theirs.is_object() && theirs.contains(k)) v = &theirs[k];
      }
      if (!v) {
        return {"kind",
                where + ": ours is a " + key + ", torch's is " + short_text(theirs.dump(), 80)};
      }
      double b = number_of(*v);
      bool equal = ours.kind == HostValue::Kind::kFloat ? close_enough(a, b, rtol, atol) : a == b;
      if (equal) return {};
      return {"values", where + ": " + ours.str() + " vs " + v->dump()};
    }
    case HostValue::Kind::kTuple: {
      if (!theirs.is_array() || theirs.size() != ours.elems.size()) {
        return {"kind", where + ": ours is a " + std::to_string(ours.elems.size()) +
                            "-tuple, torch's " + short_text(theirs.dump(), 80)};
      }
      for (size_t i = 0; i < ours.elems.size(); ++i) {
        Difference d =
            compare(ours.elems[i], theirs[i], where + "[" + std::to_string(i) + "]", rtol, atol);
        if (!d.empty()) return d;
      }
      return {};
    }
    case HostValue::Kind::kNone:
      if (theirs.is_object() && theirs.contains("other") && theirs["other"] == "None") return {};
      return {"kind", where + ": ours is None"};
  }
  return {"kind", where + ": ?"};
}

// A compiled program checks the user's checks at run time as runtime asserts: PyTorch's report
// names the expression, not the check, so a failed check and a failed assert are one kind there.
bool same_kind(const std::string& ours, const std::string& theirs, bool eager) {
  if (ours == theirs) return true;
  auto assert_like = [](const std::string& k) {
    return k == "check_failed" || k == "runtime_assert_failed";
  };
  return !eager && assert_like(ours) && assert_like(theirs);
}

}  // namespace

OurOutcome our_outcome(const oracles::PipelineResult& r) {
  OurOutcome o;
  if (r.eager) {
    o.eager_outputs = r.eager->outputs;
  } else if (r.eager_error) {
    o.eager_error = user_error_kind_name(r.eager_error->kind);
  }
  switch (r.verdict.kind) {
    case oracles::Verdict::Kind::kPass:
      o.compiled_ok = true;
      break;
    case oracles::Verdict::Kind::kRejected:
    case oracles::Verdict::Kind::kWrongRejection:
      o.compiled_error = user_error_kind_name(r.verdict.error_kind);
      if (!r.eager && !r.eager_error) o.eager_error = o.compiled_error;  // before eager ran
      break;
    case oracles::Verdict::Kind::kFail:
    case oracles::Verdict::Kind::kInconclusive:
      o.own_failure = r.verdict.bucket();
      break;
  }
  return o;
}

std::string short_text(const std::string& s, size_t n) {
  std::string out = s.substr(0, n);
  for (char& c : out) c = (c == '\n' || c == '\t') ? ' ' : c;
  return out + (s.size() > n ? "..." : "");
}

const char* diff_class_name(DiffClass c) {
  switch (c) {
    case DiffClass::kAgree:
      return "agree";
    case DiffClass::kBothRejectDifferently:
      return "both-reject-differently";
    case DiffClass::kWeRejectTorchAccepts:
      return "we-reject-torch-accepts";
    case DiffClass::kTorchRejectsWeAccept:
      return "torch-rejects-we-accept";
    case DiffClass::kDifferentOutputs:
      return "different-outputs";
    case DiffClass::kTorchCrashes:
      return "torch-crashes";
    case DiffClass::kOursFailed:
      return "ours-failed";
    case DiffClass::kTorchSelf:
      return "torch-self";
    case DiffClass::kTorchInvariant:
      return "torch-invariant";
  }
  return "?";
}

const std::vector<DiffClass>& all_diff_classes() {
  static const std::vector<DiffClass> all = {DiffClass::kAgree,
                                             DiffClass::kBothRejectDifferently,
                                             DiffClass::kWeRejectTorchAccepts,
                                             DiffClass::kTorchRejectsWeAccept,
                                             DiffClass::kDifferentOutputs,
                                             DiffClass::kTorchCrashes,
                                             DiffClass::kOursFailed,
                                             DiffClass::kTorchSelf,
                                             DiffClass::kTorchInvariant};
  return all;
}

Judgement judge(const OurOutcome& ours, const std::string& torch_verdict_json, double rtol,
                double atol) {
  auto judgement = [](DiffClass c, std::string detail, const std::string& what_kind) {
    std::string key = diff_class_name(c);
    if (!what_kind.empty()) key += " " + what_kind;
    return Judgement{c, std::move(detail), key};
  };
  if (!ours.own_failure.empty()) {
    return judgement(DiffClass::kOursFailed, ours.own_failure, ours.own_failure);
  }
  json v = json::parse(torch_verdict_json, nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded() || !v.is_object() || !v.contains("verdict")) {
    return judgement(DiffClass::kTorchCrashes,
                     "malformed verdict: " + short_text(torch_verdict_json), "malformed");
  }
  std::string backend = v.value("backend", "?");
  bool eager = backend == "eager";
  bool we_ok = eager ? ours.eager_outputs.has_value() : ours.compiled_ok;
  std::string our_kind = eager ? ours.eager_error : ours.compiled_error;
  if (v["verdict"] != "ok") {
    std::string kind = v.value("kind", "other");
    std::string type = v.value("type", "?");
    std::string what = kind + " (" + type + ": " + short_text(v.value("message", "")) + ")";
    std::string theirs = "torch:" + kind + "/" + type;
    if (kind == "crash" || kind == "export_error") {
      return judgement(DiffClass::kTorchCrashes, what, theirs);
    }
    if (we_ok) return judgement(DiffClass::kTorchRejectsWeAccept, "torch raised " + what, theirs);
    if (same_kind(our_kind, kind, eager))
      return judgement(DiffClass::kAgree, "both raise " + kind, "");
    return judgement(DiffClass::kBothRejectDifferently, "ours " + our_kind + ", torch " + what,
                     "ours:" + our_kind + " " + theirs);
  }
  if (!we_ok) {
    return judgement(DiffClass::kWeRejectTorchAccepts, "ours raised " + our_kind,
                     "ours:" + our_kind);
  }
  if (!ours.eager_outputs) {
    return judgement(DiffClass::kOursFailed, "no eager outputs to compare", "no-eager-outputs");
  }
  const std::vector<HostValue>& outs = *ours.eager_outputs;
  const json& theirs = v["outputs"];
  if (!theirs.is_array() || theirs.size() != outs.size()) {
    return judgement(DiffClass::kDifferentOutputs,
                     std::to_string(outs.size()) + " outputs vs " + short_text(theirs.dump(), 120),
                     "count");
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    Difference d = compare(outs[i], theirs[i], "output " + std::to_string(i), rtol, atol);
    if (!d.empty()) return judgement(DiffClass::kDifferentOutputs, d.detail, d.aspect);
  }
  return judgement(DiffClass::kAgree, "equal outputs", "");
}

}  // namespace sf::torch_ref
