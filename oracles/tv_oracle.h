// Translation validation (spec §7, INV-24). Sources: what tracing assumed, read from the event log
// (each deferred/checked condition, each range constraint, each backed guard's expression with
// its value at the hints, each explicit replacement or renaming). Targets: what the compiled
// program enforces (the plan's guards, the final graph's asserts, input ranges, replacements).
// Z3 proves targets ⊨ every source (nothing was dropped) and sources ∧ ranges ⊨ every deferred
// assert and guard the engine derived (nothing was made up by an unsound simplification).
#pragma once

#include <map>

#include "engine/graph/graph.h"
#include "engine/shape_env/shape_env.h"
#include "oracles/oracle_report.h"

namespace sf::oracles {

// `constants`: traced symbols whose binding site re-propagation made a number (the program
// computes that number, not the symbol; constantified_symbols in graph_invariants.h).
OracleReport check_translation(const ShapeEnv& env, const graph::Graph& final_graph,
                               const smt::Options& opts = {},
                               const std::map<ExprRef, ExprRef, sym::ExprLess>& constants = {});

}  // namespace sf::oracles
