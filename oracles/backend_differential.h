// The backend differential: one plan run on two backends (the CPU reference and CUDA) must give
// the same outcome: the same outputs (within tolerance) and σ, or the same user error with the
// same message. An engine bug or an Unavailable on either side is never an agreement.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "engine/backend/backend.h"
#include "engine/program/ast.h"
#include "oracles/differential.h"

namespace sf::oracles {

// What running a plan on one backend ended in.
struct BackendOutcome {
  std::optional<backend::RunResult> run;
  std::string error_kind, error;  // when it raised
  bool engine_bug = false;        // an EngineBug or an Unavailable: never an agreement
};

BackendOutcome run_plan_on(backend::Backend& b, const lower::Plan& plan, const ShapeEnv& env,
                           const std::map<std::string, program::HostValue>& inputs);

// Empty when the two outcomes agree; otherwise what differs, naming the backends.
std::string compare_backend_outcomes(const std::string& a_name, const BackendOutcome& a,
                                     const std::string& b_name, const BackendOutcome& b,
                                     const Tolerance& tol);

// A program through the pipeline on `reference` (the plan and the inputs it ran on), then that
// plan on both backends.
struct BackendDiff {
  enum class Kind { kAgree, kDiffer, kSkipped };
  Kind kind = Kind::kSkipped;
  // kDiffer: what differs; kSkipped: why (no plan); kAgree: the user error kind both raised,
  // if they raised one.
  std::string detail;
};
BackendDiff diff_backends(const program::Program& p, backend::Backend& reference,
                          backend::Backend& other, const Tolerance& tol);

}  // namespace sf::oracles
