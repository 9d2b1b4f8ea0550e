// The memo invariant on PyTorch's graph (issue 34): two data-dependent calls on the same values
// share a symbol or are asserted equal, and a call on other values (after a mutation) never
// reuses an earlier call's symbol.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

#include "oracles/torch_graph/invariants.h"

namespace sf::torch_graph {

// What the memo check asks of the graph checker: the node that binds a symbol (or a renaming of
// it), an expression with the ShapeEnv's replacements and renamings applied, and whether an
// assert or guard equates two such expressions.
struct MemoFacts {
  std::function<std::optional<size_t>(const ExprRef&)> bound_at;
  std::function<ExprRef(const ExprRef&)> canonical;
  std::function<bool(const ExprRef&, const ExprRef&)> asserted_equal;
};

// Adds the violations of invariant "memo" to `r` (and counts each comparison decided).
void check_memo(const CapturedGraph& g, const MemoFacts& facts, InvariantReport& r);

}  // namespace sf::torch_graph
