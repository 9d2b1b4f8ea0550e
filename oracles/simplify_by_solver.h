// Simplifier soundness beyond one run: a few of the simplifications the ShapeEnv logged are
// proved by Z3 from the facts in scope (ranges, replacements, asserts, guards), over every value
// they allow rather than the one point σ the run chose.
#pragma once

#include <vector>

#include "engine/shape_env/shape_env.h"
#include "oracles/invariants/shape_env_invariants.h"
#include "oracles/smt/solver.h"

namespace sf::oracles {

// How many logged simplifications one program's binding oracle proves (each a solver query).
inline constexpr size_t kSimplificationsProved = 2;

// Proves `sample` entries of `logged` (spread over it, the newest included; int and bool ones
// only: Z3's reals are not doubles), each `expr == simplified` entailed by the facts `session`
// assumes. A countermodel is a violation: the facts only grow and ranges only narrow after a
// simplification is made, so a value the final facts allow was allowed then too. Undecided
// queries are not judged. `proved` counts the entailed ones.
std::vector<Violation> check_simplifications_by_solver(
    const std::vector<ShapeEnv::CachedSimplification>& logged, smt::Session& session, size_t sample,
    size_t* proved = nullptr);

}  // namespace sf::oracles
