// Checkers for the ShapeEnv invariants of spec §8 (INV-7..11, 21, 26 and replay). Each returns
// the violations it found; an empty list means the invariant holds. None of them mutates the env.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/shape_env/shape_env.h"

namespace sf::oracles {

struct Violation {
  std::string invariant;  // "INV-8", "replay", ...
  std::string details;
};
std::string violations_str(const std::vector<Violation>& vs);

// What we remember before an operation to check monotonicity and renames afterwards.
struct ShapeEnvSnapshot {
  std::map<ExprRef, sym::ValueRange, sym::ExprLess> ranges;
  std::map<ExprRef, ExprRef, sym::ExprLess> replacements;
  std::set<ExprRef, sym::ExprLess> size_like;
  std::string state;
  static ShapeEnvSnapshot of(const ShapeEnv& env);
};

// INV-8 replacement discipline, INV-9(a,b) range soundness, INV-9e size-likeness only from
// unbacked symbols, INV-10 guards backed, INV-11 assert bucketing, INV-1 style sanity of pending
// (no duplicates).
std::vector<Violation> check_state(const ShapeEnv& env);
// INV-11 on a deferred-assert table: each assert in the bucket of its newest unbacked symbol.
std::vector<Violation> check_assert_buckets(
    const std::map<ExprRef, std::vector<RuntimeAssert>, sym::ExprLessNullFirst>& deferred);
// INV-9(d): every range only shrank since `before`.
std::vector<Violation> check_ranges_monotone(const ShapeEnv& env, const ShapeEnvSnapshot& before);
// INV-7 for rename_unbacked_to(a, b) performed after `before` was taken.
std::vector<Violation> check_rename(const ShapeEnv& env, const ExprRef& a, const ExprRef& b,
                                    const ShapeEnvSnapshot& before);
// INV-13/14/15: the env is unchanged since `before` (for static queries, fallbacks, DDEs).
std::vector<Violation> check_unchanged(const ShapeEnv& env, const ShapeEnvSnapshot& before,
                                       const std::string& invariant, const std::string& what);
// Replaying the event log into a fresh ShapeEnv gives the same state and the same outcomes.
std::vector<Violation> check_replay(const ShapeEnv& env);
// INV-22 (scoped facts, spec §6.6): replays the log and, at each fact scope's close, compares
// what the env knows with what it knew when the scope opened. A fact the scope learned that is
// still known after it (an axiom, a deferred assert, a replacement other than a renaming, a
// narrower range or size-likeness of a symbol older than the scope, a divisibility) is a leak.
std::vector<Violation> check_fact_scopes(const ShapeEnv& env);
// INV-21: what simplify would answer from its cache equals simplifying the replaced expression
// now, uncached, for the (at most `limit`) oldest entries computed before some state change.
std::vector<Violation> check_simplify_cache(const ShapeEnv& env, size_t limit = 32);

}  // namespace sf::oracles
