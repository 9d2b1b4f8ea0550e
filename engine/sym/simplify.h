// The range-aware simplifier: canonical form plus rules for division, modulo, min/max,
// relations and piecewise. Idempotent; every rewrite preserves the value wherever the input is
// defined (checked by properties/ and the fuzzers).
#pragma once

#include <cstdint>

#include "engine/sym/bound.h"
#include "engine/sym/expr.h"

namespace sf::sym {

ExprRef simplify(const ExprRef& e, const RangeEnv& env);
// Simplify with unknown ranges for every symbol.
ExprRef simplify(const ExprRef& e);

struct SimplifyStats {
  uint64_t calls = 0;
  uint64_t passes = 0;
  uint64_t rules_fired = 0;
};
// Process-wide counters (fuzzers assert on them; benchmarks print them).
const SimplifyStats& simplify_stats();

// Passes allowed before the simplifier declares a non-terminating rewrite (an engine bug).
constexpr int kMaxSimplifyPasses = 12;

}  // namespace sf::sym
