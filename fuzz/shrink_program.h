// The program shrinker: reduces a .sfz program, as a program, while a predicate ("gives the same
// signature") holds, to a fixpoint. Line-level ddmin first (bulk removal of statements, inputs,
// checks), then AST passes: inline an `if` branch, replace a value by one of its operands or a
// constant, inline copies and constants, simplify integer literals, shrink input ranks, sizes and
// data, make dynamic and unbacked dims static, drop returned values and unused inputs.
// Deterministic when it stops at a fixpoint or at the attempt budget (ShrinkResult::stopped_by
// says which); a stop by time depends on the machine. The input must be interesting itself
// (ShrinkResult::reproduced). Falls back to line ddmin for text that does not parse.
#pragma once

#include <functional>
#include <string>

#include "fuzz/shrink.h"

namespace sf::fuzz {

struct ShrinkLimits {
  int max_attempts = 3000;  // predicate calls
  double seconds = 60;      // wall clock
};

ShrinkResult shrink_program(const std::string& text,
                            const std::function<bool(const std::string&)>& interesting,
                            const ShrinkLimits& limits = {});

}  // namespace sf::fuzz
