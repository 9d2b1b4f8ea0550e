// The memoization oracle (spec §4, INV-16/17/18): within an epoch, repeated nonzero/item/unique
// on one fake tensor share their symbols, unless an in-place op changed the tensor in between or
// inference mode is on (then they must be fresh); after re-propagation each binding site holds a
// fresh symbol whose equality with the old one the facts entail (Z3) and σ confirms; every extern
// in the plan defines exactly its node's resolved bindings, each symbol once.
#pragma once

#include <optional>

#include "engine/backend/backend.h"
#include "engine/graph/graph.h"
#include "engine/lower/plan.h"
#include "engine/shape_env/shape_env.h"
#include "oracles/oracle_report.h"

namespace sf::oracles {

struct MemoInputs {
  const ShapeEnv* env = nullptr;
  const graph::Graph* traced = nullptr;       // as traced (epoch 0)
  const graph::Graph* final_graph = nullptr;  // re-propagated (epoch 1) and DCE'd, or null
  const lower::Plan* plan = nullptr;          // or null
  const backend::RunResult* run = nullptr;    // or null
  bool inference_mode = false;
};

OracleReport check_memo(const MemoInputs& in, const smt::Options& opts = {});

}  // namespace sf::oracles
