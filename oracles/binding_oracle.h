// The binding oracle (DESIGN §3.8, spec INV-9c/12): σ, the symbol values a real run bound from
// real buffers, must satisfy everything the final ShapeEnv claims (ranges, replacements, axioms,
// deferred asserts, guards; Z3 checks facts ∧ σ is satisfiable and names the conflicting facts
// otherwise), and the traced output shapes and scalars evaluated under σ must be the real ones.
#pragma once

#include "engine/backend/backend.h"
#include "engine/graph/graph.h"
#include "engine/shape_env/shape_env.h"
#include "oracles/oracle_report.h"

namespace sf::oracles {

OracleReport check_binding(const ShapeEnv& env, const graph::Graph& final_graph,
                           const backend::RunResult& run, const smt::Options& opts = {});

}  // namespace sf::oracles
