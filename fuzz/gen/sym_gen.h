// Random symbolic expressions, symbol ranges and in-range assignments, decoded from a
// FuzzSource. Shared by the simplify fuzz target and the RapidCheck properties.
#pragma once

#include <vector>

#include "engine/sym/bound.h"
#include "engine/sym/eval.h"
#include "engine/sym/expr.h"
#include "fuzz/fuzz_source.h"

namespace sf::fuzz {

struct SymPool {
  std::vector<sym::ExprRef> symbols;
  sym::MapRangeEnv ranges;
};

// Finite stand-in for an infinite bound when sampling concrete values.
constexpr int64_t kSampleBound = 1000;

// 1–4 integer symbols (backed "s" and unbacked "u") with random, possibly infinite, ranges.
SymPool gen_symbol_pool(FuzzSource& src);
sym::ExprRef gen_int_expr(FuzzSource& src, const SymPool& pool, int depth);
sym::ExprRef gen_bool_expr(FuzzSource& src, const SymPool& pool, int depth);
// Values for every symbol in the pool, inside its range.
sym::Assignment gen_assignment(FuzzSource& src, const SymPool& pool);

}  // namespace sf::fuzz
