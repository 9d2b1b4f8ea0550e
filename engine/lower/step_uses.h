// What one plan step uses, for every pass that needs it (buffer liveness, the INV-19 closure
// check): the buffers it reads or writes and the symbolic expressions it evaluates. The one
// switch over step kinds that those passes share.
#pragma once

#include <functional>

#include "engine/lower/plan.h"

namespace sf::lower {

struct StepUses {
  // Each buffer the step reads or writes (a kOutput step: each buffer it returns). An alloc
  // reports none: it defines its buffer.
  std::function<void(int buffer)> buffer;
  // Each expression over symbols the step evaluates at runtime (null expressions skipped);
  // kBindInput reports the expression it binds (a use unless it is the symbol it defines).
  std::function<void(const sym::ExprRef& e)> expr;
};

void for_each_step_use(const Plan& plan, const Step& s, const StepUses& uses);

}  // namespace sf::lower
