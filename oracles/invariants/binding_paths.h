// INV-4 on one value, independent of the engine's keypath code: each recorded binding path,
// followed here entry by entry through the value's metadata, must end at its symbol (or at
// d*symbol for DivideByKey, Eq(symbol, 1) for ConvertIntKey), in the grammar of spec §3.1.
#pragma once

#include <vector>

#include "engine/shape_env/shape_env.h"
#include "oracles/invariants/shape_env_invariants.h"

namespace sf::oracles {

std::vector<Violation> check_binding_paths(const Value& value, const Bindings& bindings);

}  // namespace sf::oracles
