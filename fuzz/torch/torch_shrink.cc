// The disagreement-keeping predicate for the program shrinker (fuzz/torch/torch_shrink.h).
#include "fuzz/torch/torch_shrink.h"

#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "fuzz/torch/torch_case.h"

namespace sf::torch_ref {

// Our pipeline on one candidate, in a child: shrinking makes programs the engine has not seen, and
// one that crashes it is not the disagreement (nor the end of the run).
constexpr double kOurSideSeconds = 30;

DisagreementShrink shrink_disagreement(const std::string& sfz, const std::string& backend,
                                       const std::string& key, TorchProcess& worker,
                                       const oracles::PipelineOptions& opts, double timeout,
                                       const fuzz::ShrinkLimits& limits,
                                       const BackendMaker& make_backend) {
  DisagreementShrink out;
  // torch-self and eager-raised are judgements against PyTorch's eager too: each candidate asks
  // for both.
  std::vector<std::string> asked = {backend};
  if (judged_against_eager(key)) asked.insert(asked.begin(), "eager");
  auto same_disagreement = [&](const std::string& text) {
    TorchCase c;
    c.name = "shrink";
    c.sfz = text;
    try {
      run_our_side_isolated(c, program::parse_program(text), opts, kOurSideSeconds, make_backend);
    } catch (const UserError&) {
      return false;  // a candidate that does not parse
    }
    if (!c.ours.own_failure.empty()) {
      if (out.our_crash.empty() && c.ours.own_failure.rfind("crash:", 0) == 0) {
        out.our_crash_program = text;
        out.our_crash = c.ours.own_failure;
      }
      return judge_case(c, asked).back().key == key;
    }
    std::string error;
    if (run_torch_side(c, worker, asked, timeout, &error) == TorchProcess::Status::kNotStarted) {
      return false;
    }
    return judge_case(c, asked).back().key == key;
  };
  out.shrunk = fuzz::shrink_program(sfz, same_disagreement, limits);
  return out;
}

}  // namespace sf::torch_ref
