// The disagreement-keeping predicate for the program shrinker (fuzz/torch/torch_shrink.h).
#include "fuzz/torch/torch_shrink.h"

#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "fuzz/torch/torch_case.h"

namespace sf::torch_ref {

fuzz::ShrinkResult shrink_disagreement(const std::string& sfz, const std::string& backend,
                                       const std::string& key, TorchProcess& worker,
                                       const oracles::PipelineOptions& opts, double timeout,
                                       const fuzz::ShrinkLimits& limits) {
  auto same_disagreement = [&](const std::string& text) {
    TorchCase c;
    c.name = "shrink";
    c.sfz = text;
    try {
      run_our_side(c, program::parse_program(text), opts);
    } catch (const UserError&) {
      return false;  // a candidate that does not parse
    }
    if (!c.ours.own_failure.empty()) return judge_backend(c, 0).key == key;
    std::string error;
    if (run_torch_side(c, worker, {backend}, timeout, &error) ==
        TorchProcess::Status::kNotStarted) {
      return false;
    }
    return judge_backend(c, 0).key == key;
  };
  return fuzz::shrink_program(sfz, same_disagreement, limits);
}

}  // namespace sf::torch_ref
