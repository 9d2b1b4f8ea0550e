// The backend interface: execute a wrapper plan on concrete inputs with a runtime symbol
// environment σ. User-visible runtime failures (a failed runtime assert, an out-of-range gather,
// an integer division by zero) are UserErrors; a failed guard is GuardFailed (recompile); a
// backend this machine cannot run raises Unavailable.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/lower/plan.h"
#include "engine/program/host_value.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/eval.h"

namespace sf::backend {

using program::DType;
using sym::ExprRef;

// The inputs violate a guard of the plan: the program must be traced again for them (a user
// error for a caller that runs a plan directly; CompiledProgram retraces instead).
class GuardFailed : public UserError {
 public:
  explicit GuardFailed(const std::string& m) : UserError(UserErrorKind::kGuardFailed, m) {}
};

struct RunResult {
  std::vector<program::HostValue> outputs;
  sym::Assignment sigma;  // every symbol bound while running (inputs and unbacked)
  // Each evaluated binding: "u0 = nonzero_1.size(0) -> 3" (for the oracles and `run --backend`).
  std::vector<std::string> bindings;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // False (with a reason) when this machine cannot run it (e.g. no GPU or no driver).
  virtual bool available(std::string* why) const = 0;
  virtual RunResult run(const lower::Plan& plan, const ShapeEnv& env,
                        const std::map<std::string, program::HostValue>& inputs) = 0;
};

}  // namespace sf::backend
