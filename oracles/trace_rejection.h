// Judges the trace's rejection of a program that eager ran (issue 30): the trace claimed the
// program invalid for inputs eager just ran, so a documented rule must explain it, and a
// data-dependent guard must not be on an expression the recorded facts decide.
#pragma once

#include <optional>
#include <string>

#include "engine/base/errors.h"
#include "engine/eager/eager.h"
#include "engine/graph/tracer.h"
#include "engine/shape_env/shape_env.h"

namespace sf::oracles {

// Whether a trace rejection is wrong, explained by a rule (named), or not the oracle's to judge
// (a resource limit, a deliberate gap, a guard the rules do not decide). `rejected` is the trace as
// the rejection left it (null when unknown: then only the size-oblivious rule can explain). The
// rules, in docs/decisions.md "Wrong rejections anywhere":
// - shape, invalid-program, check, value and index errors are explained only by a function eager
//   never ran (torch.cond and while_loop trace every branch and body), by a higher-order op's
//   statement (its subgraphs are checked together, eager runs one branch) or by the size-oblivious
//   assumption (an unbacked size is taken to be neither 0 nor 1: explained when eager made a
//   data-dependent int that was 0 or 1, named in the explanation);
// - a data-dependent guard is wrong when, with the replacements substituted, a recorded axiom
//   states it or its negation, or the symbols' ranges decide it by interval arithmetic on a sum
//   of distinct symbols with coefficients ±1 (exact there, so PyTorch's bound_sympy decides it).
struct RejectionJudgement {
  enum class Kind { kNotJudged, kExplained, kWrong };
  Kind kind = Kind::kNotJudged;
  std::string why;  // kExplained: the rule that explains it; kWrong: what is wrong
};
RejectionJudgement judge_trace_rejection(const UserErrorInfo& error,
                                         const eager::EagerTrail& eager_run,
                                         const graph::Trace* rejected);

// The rule that explains a rejection of kind shape etc., for messages; none when none does.
// `site`: the statements being traced when it raised, outermost first.
std::optional<std::string> rejection_rule(const std::vector<graph::Trace::OpenStatement>& site,
                                          const eager::EagerTrail& eager_run);

// The size-oblivious rule alone: a data-dependent int eager made that was 0 or 1, named. It also
// explains a compiled program's failed runtime assert where the trace assumed so (a range the
// no-broadcast assumption narrowed fails before the implicit assert itself runs).
std::optional<std::string> size_oblivious_rule(const eager::EagerTrail& eager_run);

// What the recorded facts of `env` say of `guard`: true, false, or none (undecided by the rules
// above). Exposed for its tests.
std::optional<bool> decided_by_facts(const sym::ExprRef& guard, const ShapeEnv& env,
                                     std::string* which = nullptr);
// The same for an int the trace had to specialize (guard_int): its value, when the replacements
// or the ranges of a unit sum of symbols pin it to one.
std::optional<int64_t> pinned_by_facts(const sym::ExprRef& value, const ShapeEnv& env,
                                       std::string* which = nullptr);

}  // namespace sf::oracles
