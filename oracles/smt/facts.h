// What a ShapeEnv claims holds in every run, as labelled boolean expressions read from its state
// (never computed by its reasoning): symbol ranges, replacements, axioms, deferred runtime
// asserts and guards. The Z3 oracles assume them in an smt::Session.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/shape_env/shape_env.h"
#include "oracles/smt/solver.h"

namespace sf::smt {

struct Fact {
  sym::ExprRef expr;  // boolean
  std::string label;  // "range u0 [0, oo]", "replacement u1 -> u0", "assert: <msg>", ...
};

// lo <= s <= hi for the finite bounds of `r` (none when both are infinite).
std::vector<Fact> range_facts(const sym::ExprRef& s, const sym::ValueRange& r,
                              bool detailed_label = true);
// The range and replacement facts last made for each symbol, for callers that read the state
// around many events (the rename oracle): a symbol whose range or target did not change reuses
// its facts instead of building the relations again.
struct FactMemo {
  std::unordered_map<const sym::Expr*, std::pair<sym::ValueRange, std::vector<Fact>>> ranges;
  std::unordered_map<const sym::Expr*, std::pair<const sym::Expr*, Fact>> replacements;
};

// One symbol's range facts, reused from `memo` when its range is unchanged (labels: the kind).
const std::vector<Fact>& memo_range_facts(const sym::ExprRef& s, const sym::ValueRange& r,
                                          FactMemo& memo);
// s == tgt for the replacement s -> tgt (both as floats when one is).
Fact replacement_fact(const sym::ExprRef& s, const sym::ExprRef& tgt, bool detailed_label = true,
                      FactMemo* memo = nullptr);
// The facts that are neither a range nor a replacement: axioms, deferred runtime asserts, guards.
std::vector<Fact> assertion_facts(const ShapeEnv& env, bool detailed_labels = true);

// `detailed_labels` false: labels name only the fact's kind ("replacement", "guard", ...), for
// callers that take the state before every event (printing every expression costs more than
// the solver). `memo` (with labels that are not detailed only) reuses facts made before.
std::vector<Fact> env_facts(const ShapeEnv& env, bool detailed_labels = true,
                            FactMemo* memo = nullptr);
void assume_all(Session& session, const std::vector<Fact>& facts);

}  // namespace sf::smt
