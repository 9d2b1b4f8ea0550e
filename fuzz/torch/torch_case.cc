// Running one program on both sides and judging each backend (fuzz/torch/torch_case.h).
#include "fuzz/torch/torch_case.h"

#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "fuzz/isolated.h"
#include "fuzz/torch/capture_json.h"
#include "fuzz/torch/export_torch.h"
#include "oracles/torch_graph/invariants.h"

namespace sf::torch_ref {

using json = nlohmann::json;
using program::HostTensor;
using program::HostValue;

namespace {

// A HostValue as JSON for the trip out of the isolated child: floats as their bits (NaN and
// infinities have no JSON number, and a decimal round trip could move the last bit).
json value_to_json(const HostValue& v) {
  json j = {{"kind", static_cast<int>(v.kind)}};
  switch (v.kind) {
    case HostValue::Kind::kTensor: {
      j["dtype"] = static_cast<int>(v.tensor.dtype);
      j["sizes"] = v.tensor.sizes;
      j["ints"] = v.tensor.ints;
      std::vector<uint32_t> bits;
      for (float f : v.tensor.floats) bits.push_back(std::bit_cast<uint32_t>(f));
      j["floats"] = bits;
      break;
    }
    case HostValue::Kind::kInt:
      j["i"] = v.i;
      break;
    case HostValue::Kind::kFloat:
      j["f"] = std::bit_cast<uint64_t>(v.f);
      break;
    case HostValue::Kind::kBool:
      j["b"] = v.b;
      break;
    case HostValue::Kind::kTuple:
      j["elems"] = json::array();
      for (const HostValue& e : v.elems) j["elems"].push_back(value_to_json(e));
      break;
    case HostValue::Kind::kNone:
      break;
  }
  return j;
}

HostValue value_from_json(const json& j) {
  HostValue v;
  v.kind = static_cast<HostValue::Kind>(j.at("kind").get<int>());
  switch (v.kind) {
    case HostValue::Kind::kTensor:
      v.tensor.dtype = static_cast<program::DType>(j.at("dtype").get<int>());
      v.tensor.sizes = j.at("sizes").get<std::vector<int64_t>>();
      v.tensor.ints = j.at("ints").get<std::vector<int64_t>>();
      for (uint32_t bits : j.at("floats").get<std::vector<uint32_t>>()) {
        v.tensor.floats.push_back(std::bit_cast<float>(bits));
      }
      break;
    case HostValue::Kind::kInt:
      v.i = j.at("i").get<int64_t>();
      break;
    case HostValue::Kind::kFloat:
      v.f = std::bit_cast<double>(j.at("f").get<uint64_t>());
      break;
    case HostValue::Kind::kBool:
      v.b = j.at("b").get<bool>();
      break;
    case HostValue::Kind::kTuple:
      for (const json& e : j.at("elems")) v.elems.push_back(value_from_json(e));
      break;
    case HostValue::Kind::kNone:
      break;
  }
  return v;
}

json our_side_to_json(const TorchCase& c) {
  json j = {{"eager_error", c.ours.eager_error},
            {"compiled_ok", c.ours.compiled_ok},
            {"compiled_error", c.ours.compiled_error},
            {"own_failure", c.ours.own_failure},
            {"our_verdict", c.our_verdict},
            {"python", c.python}};
  if (c.ours.eager_outputs) {
    j["eager_outputs"] = json::array();
    for (const HostValue& v : *c.ours.eager_outputs) j["eager_outputs"].push_back(value_to_json(v));
  }
  return j;
}

void our_side_from_json(const json& j, TorchCase& c) {
  c.ours.eager_error = j.at("eager_error").get<std::string>();
  c.ours.compiled_ok = j.at("compiled_ok").get<bool>();
  c.ours.compiled_error = j.at("compiled_error").get<std::string>();
  c.ours.own_failure = j.at("own_failure").get<std::string>();
  c.our_verdict = j.at("our_verdict").get<std::string>();
  c.python = j.at("python").get<std::string>();
  if (j.contains("eager_outputs")) {
    c.ours.eager_outputs.emplace();
    for (const json& v : j["eager_outputs"]) c.ours.eager_outputs->push_back(value_from_json(v));
  }
}

}  // namespace

void run_our_side(TorchCase& c, const program::Program& p, const oracles::PipelineOptions& opts) {
  oracles::PipelineResult r = oracles::run_pipeline(p, opts);
  c.ours = our_outcome(r);
  c.our_verdict = r.verdict.str();
  try {
    c.python = export_torch(p, c.name);
  } catch (const UserError& e) {
    c.ours.own_failure = std::string("cannot export: ") + e.what();
  }
}

namespace {

// The availability probe's child: a backend's start (a driver, a first context) and no more.
constexpr double kProbeSeconds = 60;

// Our side's children cap their data segment: the CUDA backend's driver reserves the unified
// address space at cuInit, which an address-space cap fails; runaway allocations are private
// writable mappings, which the data-segment cap catches.
fuzz::IsolationLimits our_side_limits(double timeout_seconds) {
  fuzz::IsolationLimits limits;
  limits.timeout_seconds = timeout_seconds;
  limits.cap = fuzz::MemoryCap::kDataSegment;
  return limits;
}

// In the child: the options with the maker's backend (kept alive by `*held`).
oracles::PipelineOptions with_backend(const oracles::PipelineOptions& opts,
                                      const BackendMaker& make_backend,
                                      std::unique_ptr<backend::Backend>* held) {
  oracles::PipelineOptions o = opts;
  if (make_backend) {
    *held = make_backend();
    o.backend = held->get();
  }
  return o;
}

void fail_our_side(TorchCase& c, const fuzz::IsolatedResult& r) {
  c.ours = OurOutcome{};
  c.ours.own_failure = r.crash + (r.report.empty() ? "" : ": " + r.report);
  c.our_verdict = c.ours.own_failure;
}

}  // namespace

std::string our_backend_unavailable(const BackendMaker& make_backend) {
  fuzz::IsolatedResult probe = fuzz::run_isolated(
      [&] {
        std::unique_ptr<backend::Backend> b = make_backend();
        std::string reason = "no such backend";
        return b && b->available(&reason) ? std::string() : reason;
      },
      our_side_limits(kProbeSeconds));
  return probe.crash.empty() ? probe.output : probe.crash + " " + probe.report;
}

void run_our_side_isolated(TorchCase& c, const program::Program& p,
                           const oracles::PipelineOptions& opts, double timeout_seconds,
                           const BackendMaker& make_backend) {
  fuzz::IsolatedResult r = fuzz::run_isolated(
      [&] {
        std::unique_ptr<backend::Backend> held;
        run_our_side(c, p, with_backend(opts, make_backend, &held));
        return our_side_to_json(c).dump();
      },
      our_side_limits(timeout_seconds));
  if (r.crash.empty()) {
    json j = json::parse(r.output, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded()) {
      our_side_from_json(j, c);
      return;
    }
    r.crash = "malformed answer from the child";
  }
  fail_our_side(c, r);
}

void run_our_side_batch(const std::vector<TorchCase*>& cases,
                        const std::vector<const program::Program*>& programs,
                        const oracles::PipelineOptions& opts, double timeout_seconds,
                        const BackendMaker& make_backend) {
  SF_CHECK(cases.size() == programs.size()) << "run_our_side_batch: one program per case";
  if (cases.empty()) return;
  fuzz::IsolatedResult r = fuzz::run_isolated(
      [&] {
        std::unique_ptr<backend::Backend> held;
        oracles::PipelineOptions o = with_backend(opts, make_backend, &held);
        json all = json::array();
        for (size_t i = 0; i < cases.size(); ++i) {
          run_our_side(*cases[i], *programs[i], o);
          all.push_back(our_side_to_json(*cases[i]));
        }
        return all.dump();
      },
      our_side_limits(timeout_seconds * static_cast<double>(cases.size())));
  if (r.crash.empty()) {
    json all = json::parse(r.output, nullptr, /*allow_exceptions=*/false);
    if (!all.is_discarded() && all.is_array() && all.size() == cases.size()) {
      for (size_t i = 0; i < cases.size(); ++i) our_side_from_json(all[i], *cases[i]);
      return;
    }
  }
  // One program crashed, hung or broke the answer: each again in a child of its own, so the
  // failure stays with the program that caused it.
  for (size_t i = 0; i < cases.size(); ++i) {
    run_our_side_isolated(*cases[i], *programs[i], opts, timeout_seconds, make_backend);
  }
}

TorchProcess::Status run_torch_side(TorchCase& c, TorchProcess& worker,
                                    const std::vector<std::string>& backends, double timeout,
                                    std::string* error) {
  c.results.clear();
  json request = {{"id", c.name}, {"code", c.python}, {"backends", backends}};
  std::string answer;
  TorchProcess::Status status = worker.ask(request.dump(), timeout, &answer, error);
  switch (status) {
    case TorchProcess::Status::kAnswer: {
      json a = json::parse(answer, nullptr, /*allow_exceptions=*/false);
      bool whole = !a.is_discarded() && a.contains("results") && a["results"].is_array();
      for (size_t b = 0; b < backends.size(); ++b) {
        c.results.push_back(whole && b < a["results"].size() ? a["results"][b].dump()
                                                             : std::string("malformed answer"));
      }
      break;
    }
    case TorchProcess::Status::kNotStarted:
      break;
    case TorchProcess::Status::kTimeout:
    case TorchProcess::Status::kTooLong:
    case TorchProcess::Status::kDied: {
      const char* type = status == TorchProcess::Status::kTimeout   ? "timeout"
                         : status == TorchProcess::Status::kTooLong ? "answer too long"
                                                                    : "worker died";
      for (const std::string& b : backends) {
        c.results.push_back(json{
            {"backend", b},
            {"verdict", "error"},
            {"kind", "crash"},
            {"type", type},
            {"message", *error}}.dump());
      }
      break;
    }
  }
  return status;
}

Judgement judge_backend(const TorchCase& c, size_t b) {
  // judge() itself answers ours-failed first, without reading the verdict.
  return judge(c.ours, b < c.results.size() ? c.results[b] : "");
}

namespace {

// "capture" (torch.compile's graph after AOTAutograd) and "capture_export" (torch.export's).
bool is_capture_backend(const std::string& backend) { return backend.rfind("capture", 0) == 0; }

// "where: unreadable PyTorch expression: the symbol zuf3" -> "the symbol zuf#": what the reader
// lacks, without the place or the numbers, so that a report can count each kind.
std::string unreadable_kind(const std::string& why) {
  const std::string marker = "unreadable PyTorch expression: ";
  size_t at = why.find(marker);
  std::string what = at == std::string::npos ? why : why.substr(at + marker.size());
  std::string out;
  for (char ch : what) {
    bool digit = ch >= '0' && ch <= '9';
    if (!digit || out.empty() || out.back() != '#') out += digit ? '#' : ch;
  }
  return out;
}

// A backend's verdict as a JSON object (null when it is not one: judge() has judged that).
json verdict_object(const std::string& verdict_json) {
  json v = json::parse(verdict_json, nullptr, /*allow_exceptions=*/false);
  return v.is_object() ? v : json();
}

// The capture backend's verdict carries PyTorch's graph: our invariants judged on it override the
// plain judgement when one is broken (or the capture does not parse: a torch-crashes).
void judge_capture(const json& v, Judgement* j) {
  if (!v.is_object() || !v.contains("capture")) return;
  torch_graph::Capture capture;
  try {
    capture = capture_of_json(v["capture"]);
  } catch (const UserError& e) {
    *j = Judgement{DiffClass::kTorchCrashes, e.what(), "torch-crashes capture-unreadable"};
    return;
  }
  torch_graph::InvariantReport r = torch_graph::check_capture(capture);
  j->facts_checked = r.checked;
  j->facts_unknown = r.unknown;
  j->unreadable = static_cast<int>(r.unreadable.size());
  for (const std::string& why : r.unreadable) j->unreadable_what.push_back(unreadable_kind(why));
  j->orphan_facts = r.orphan_facts;
  j->torch_version = capture.torch_version;
  for (const torch_graph::Violation& v : r.violations) {
    j->violations.push_back(v.invariant + " " + v.op + ": " + v.detail);
  }
  if (r.violations.empty()) return;
  const torch_graph::Violation& first = r.violations.front();
  j->cls = DiffClass::kTorchInvariant;
  j->key = std::string(diff_class_name(DiffClass::kTorchInvariant)) + " " + first.invariant + " " +
           first.op;
  j->detail = first.detail;
  if (r.violations.size() > 1) {
    j->detail += " (and " + std::to_string(r.violations.size() - 1) + " more)";
  }
}

// Translation validation's other half: where PyTorch's eager failed a check (torch._check, or a
// runtime assert of a body it compiled) and our eager reference failed it too, and the captured
// graph ran to the end on the same inputs, no assert of the graph stood for the check (invariant
// "eager-raised", keyed by eager's error kind). Other errors (a size mismatch, an index out of
// range) bind nothing: a compiled graph may drop the dead code that raised them, as ours does.
void judge_eager_raised(const json& e, bool ours_agree_with_eager, const json& c, Judgement* j) {
  if (!ours_agree_with_eager || !e.is_object() || !c.is_object()) return;
  std::string kind = e.value("kind", "");
  if (e.value("verdict", "") != "error" || c.value("verdict", "") != "ok" ||
      (kind != "check_failed" && kind != "runtime_assert_failed")) {
    return;
  }
  std::string what = "PyTorch's eager raised " + kind + " (" + e.value("type", "?") + ": " +
                     short_text(e.value("message", "")) +
                     "), as ours does, and the captured graph ran to the end on the same inputs";
  j->violations.insert(j->violations.begin(), "eager-raised " + kind + ": " + what);
  j->cls = DiffClass::kTorchInvariant;
  j->key = std::string(diff_class_name(DiffClass::kTorchInvariant)) + " eager-raised " + kind;
  j->detail = what;
}

}  // namespace

bool judged_against_eager(const std::string& key) {
  auto starts = [&](const std::string& prefix) { return key.rfind(prefix, 0) == 0; };
  return starts(std::string(diff_class_name(DiffClass::kTorchSelf)) + " ") ||
         starts(std::string(diff_class_name(DiffClass::kTorchInvariant)) + " eager-raised ");
}

std::vector<Judgement> judge_case(const TorchCase& c, const std::vector<std::string>& backends) {
  std::vector<Judgement> out;
  bool eager_agrees = false;
  json eager;  // PyTorch's eager verdict, when eager is among the backends
  for (size_t b = 0; b < backends.size(); ++b) out.push_back(judge_backend(c, b));
  for (size_t b = 0; b < backends.size(); ++b) {
    if (backends[b] != "eager" || b >= c.results.size()) continue;
    eager = verdict_object(c.results[b]);
    eager_agrees = out[b].cls == DiffClass::kAgree;
  }
  for (size_t b = 0; b < backends.size(); ++b) {
    if (is_capture_backend(backends[b]) && b < c.results.size() &&
        out[b].cls != DiffClass::kOursFailed) {
      json capture = verdict_object(c.results[b]);  // parsed once for both judgements
      judge_capture(capture, &out[b]);
      judge_eager_raised(eager, eager_agrees, capture, &out[b]);
    }
  }
  if (!eager_agrees) return out;
  for (size_t b = 0; b < backends.size(); ++b) {
    Judgement& j = out[b];
    if (backends[b] == "eager") continue;
    if (j.cls != DiffClass::kTorchRejectsWeAccept && j.cls != DiffClass::kDifferentOutputs)
      continue;
    j.cls = DiffClass::kTorchSelf;
    j.key = std::string(diff_class_name(DiffClass::kTorchSelf)) + " " + j.key;
    j.detail = "PyTorch's eager agrees with ours; " + j.detail;
  }
  return out;
}

}  // namespace sf::torch_ref
