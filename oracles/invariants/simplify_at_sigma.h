// Simplifier soundness inside every run: each simplification the ShapeEnv logged (expression ->
// simplified form, under the facts outside any fact scope) is evaluated on both sides at the
// symbol values the run bound (σ). Where σ satisfies the facts, the two sides must agree.
#pragma once

#include <vector>

#include "engine/shape_env/shape_env.h"
#include "engine/sym/eval.h"
#include "oracles/invariants/shape_env_invariants.h"

namespace sf::oracles {

// `cached`: ShapeEnv::simplification_log() or cached_simplifications() (size-oblivious ones are
// skipped: they assume size-like symbols >= 2, which σ need not satisfy). Sides σ does not define
// (a symbol the run did not bind, a division by zero) are not judged. Floats agree within a
// relative 1e-9 (or both NaN).
std::vector<Violation> check_simplifications_at(
    const std::vector<ShapeEnv::CachedSimplification>& cached, const sym::Assignment& sigma);

}  // namespace sf::oracles
