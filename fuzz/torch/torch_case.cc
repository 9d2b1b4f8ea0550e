// Running one program on both sides and judging each backend (fuzz/torch/torch_case.h).
#include "fuzz/torch/torch_case.h"

#include <nlohmann/json.hpp>

#include "engine/base/errors.h"
#include "fuzz/torch/export_torch.h"

namespace sf::torch_ref {

using json = nlohmann::json;

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
    case TorchProcess::Status::kDied: {
      bool hung = status == TorchProcess::Status::kTimeout;
      for (const std::string& b : backends) {
        c.results.push_back(json{{"backend", b},
                                 {"verdict", "error"},
                                 {"kind", "crash"},
                                 {"type", hung ? "timeout" : "worker died"},
                                 {"message", hung ? "no answer in time" : *error}}
                                .dump());
      }
      break;
    }
  }
  return status;
}

Judgement judge_backend(const TorchCase& c, size_t b) {
  if (!c.ours.own_failure.empty()) return judge(c.ours, "");
  return judge(c.ours, b < c.results.size() ? c.results[b] : "");
}

}  // namespace sf::torch_ref
