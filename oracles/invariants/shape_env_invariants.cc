// ShapeEnv invariant checkers (spec §8).
#include "oracles/invariants/shape_env_invariants.h"

#include <algorithm>

#include "engine/sym/simplify.h"
#include "engine/sym/walk.h"

namespace sf::oracles {

std::string violations_str(const std::vector<Violation>& vs) {
  std::string out;
  for (const Violation& v : vs) out += v.invariant + ": " + v.details + "\n";
  return out;
}

ShapeEnvSnapshot ShapeEnvSnapshot::of(const ShapeEnv& env) {
  ShapeEnvSnapshot s;
  s.ranges = env.range_table().ranges();
  s.replacements = env.replacement_table().entries();
  s.size_like = env.range_table().size_like();
  s.state = env.state_str();
  return s;
}

std::vector<Violation> check_state(const ShapeEnv& env) {
  std::vector<Violation> out;
  // Fresh symbols made by the divisibility rewrite may appear in replacement targets.
  std::set<ExprRef, sym::ExprLess> divisibility_factors;
  for (const auto& [s, why] : env.replacement_table().reasons()) {
    if (why != "divisibility") continue;
    auto it = env.replacement_table().entries().find(s);
    if (it == env.replacement_table().entries().end()) continue;
    for (const ExprRef& f : sym::free_unbacked_symbols(it->second)) divisibility_factors.insert(f);
  }
  for (const auto& [u, tgt] : env.replacement_table().entries()) {
    if (sym::has_symbol(tgt, u)) {
      out.push_back({"INV-8", u->str() + " occurs in its own replacement " + tgt->str()});
    }
    if (env.replace(tgt) != tgt) {
      out.push_back({"INV-8", "replacement of " + u->str() + " is not fully resolved: " +
                                  tgt->str() + " -> " + env.replace(tgt)->str()});
    }
    if (!u->is_unbacked_symbol() || env.symbols().unbacked_inputs().count(u)) continue;
    ExprRef renamed_to = env.resolve_renaming(u);
    for (const ExprRef& s : sym::free_unbacked_symbols(tgt)) {
      bool allowed = env.symbols().unbacked_inputs().count(s) || s == renamed_to ||
                     divisibility_factors.count(s) || env.replace(renamed_to) == tgt;
      if (!allowed) {
        out.push_back({"INV-8", "data-dependent " + u->str() + " replaced by " + tgt->str() +
                                    ", which mentions the unbacked symbol " + s->str() +
                                    " (not an input, rename target or divisibility factor)"});
      }
    }
  }
  for (const auto& [s, hint] : env.symbols().hints()) {
    if (!env.var_range(s).contains(hint)) {
      out.push_back({"INV-9a", "hint " + std::to_string(hint) + " of " + s->str() +
                                   " outside its range " + env.var_range(s).str()});
    }
  }
  // INV-9e: size-likeness starts at unbacked symbols (constrain_range_for_size, which
  // check_is_size and the fake impls call for unbacked ones only) and crosses only plain symbol
  // equality (spec §2.9): a backed size-like symbol is tied to a size-like unbacked one by a chain
  // of symbol-to-symbol replacements (either direction: a later replacement may re-point it).
  const auto& size_like = env.range_table().size_like();
  std::map<ExprRef, std::vector<ExprRef>, sym::ExprLess> equal_to;
  for (const auto& [a, tgt] : env.replacement_table().entries()) {
    if (!tgt->is(sym::ExprKind::kSymbol)) continue;
    equal_to[a].push_back(tgt);
    equal_to[tgt].push_back(a);
  }
  std::set<ExprRef, sym::ExprLess> tied;  // reachable from a size-like unbacked symbol
  std::vector<ExprRef> todo;
  for (const ExprRef& s : size_like) {
    if (s->is_unbacked_symbol() && tied.insert(s).second) todo.push_back(s);
  }
  while (!todo.empty()) {
    ExprRef s = todo.back();
    todo.pop_back();
    for (const ExprRef& t : equal_to[s]) {
      if (tied.insert(t).second) todo.push_back(t);
    }
  }
  // A backed symbol replaced since (by a constant, say: u0 -> s86 -> 2 leaves u0 -> 2 and
  // s86 -> 2) lost the link that made it size-like; its replacement speaks for it.
  for (const ExprRef& s : size_like) {
    if (!tied.count(s) && !env.replacement_table().entries().count(s)) {
      out.push_back({"INV-9e", "size-like " + s->str() +
                                   " is backed and no replacement ties it to a size-like "
                                   "unbacked symbol"});
    }
  }
  for (const ExprRef& s : size_like) {
    sym::ValueRange r = env.var_range(s);
    if (r.lo() < sym::ExtInt(0) || r.hi() < sym::ExtInt(2)) {
      out.push_back({"INV-9b", "size-like " + s->str() + " has range " + r.str()});
    }
  }
  for (const ShapeGuard& g : env.assertions().guards()) {
    if (sym::has_free_unbacked_symbols(g.expr)) {
      out.push_back({"INV-10", "guard " + g.expr->str() + " mentions unbacked symbols"});
    }
  }
  std::vector<Violation> buckets = check_assert_buckets(env.assertions().deferred());
  out.insert(out.end(), buckets.begin(), buckets.end());
  int64_t count = 0;
  for (const auto& [key, ras] : env.assertions().deferred()) count += ras.size();
  if (count != env.assertions().num_deferred()) {
    out.push_back({"INV-11", "num_deferred_runtime_asserts " +
                                 std::to_string(env.assertions().num_deferred()) + " but " +
                                 std::to_string(count) + " stored"});
  }
  std::vector<ExprRef> pending = env.symbols().pending();
  std::sort(pending.begin(), pending.end(), sym::ExprLess());
  if (std::adjacent_find(pending.begin(), pending.end()) != pending.end()) {
    out.push_back({"INV-1", "a symbol is pending twice"});
  }
  return out;
}

std::vector<Violation> check_assert_buckets(
    const std::map<ExprRef, std::vector<RuntimeAssert>, sym::ExprLessNullFirst>& deferred) {
  // Spec §2.18: an assert's bucket is its newest unbacked int symbol (the largest index), None
  // when it has none. Recomputed here, not with the engine's AssertionStore::bucket_key.
  auto newest_unbacked = [](const ExprRef& e) {
    ExprRef newest;
    for (const ExprRef& s : sym::free_symbols(e)) {
      bool unbacked_int = s->sym_kind() == sym::SymKind::kUnbackedInt;
      if (unbacked_int && (!newest || s->sym_index() > newest->sym_index())) newest = s;
    }
    return newest;
  };
  std::vector<Violation> out;
  for (const auto& [key, ras] : deferred) {
    for (const RuntimeAssert& ra : ras) {
      ExprRef expected = newest_unbacked(ra.expr);
      if (expected != key) {
        out.push_back({"INV-11", "assert " + ra.expr->str() + " is in bucket " +
                                     (key ? key->str() : "None") + ", expected " +
                                     (expected ? expected->str() : "None")});
      }
    }
  }
  return out;
}

std::vector<Violation> check_ranges_monotone(const ShapeEnv& env, const ShapeEnvSnapshot& before) {
  std::vector<Violation> out;
  for (const auto& [s, old] : before.ranges) {
    sym::ValueRange now = env.var_range(s);
    if (!now.issubset(old)) {
      out.push_back(
          {"INV-9d", "range of " + s->str() + " grew from " + old.str() + " to " + now.str()});
    }
  }
  return out;
}

std::vector<Violation> check_rename(const ShapeEnv& env, const ExprRef& a, const ExprRef& b,
                                    const ShapeEnvSnapshot& before) {
  std::vector<Violation> out;
  std::string what = "rename_unbacked_to(" + a->str() + ", " + b->str() + ")";
  if (!b->is_unbacked_symbol() || !a->is_unbacked_symbol() || b->sym_index() >= a->sym_index()) {
    out.push_back({"INV-7i", what + ": target must be an older unbacked symbol"});
  }
  auto ren = env.replacement_table().renamings().find(a);
  if (ren == env.replacement_table().renamings().end() || ren->second != b) {
    out.push_back({"INV-7ii", what + ": unbacked_renamings[" + a->str() + "] is not " + b->str()});
  }
  // Equal representatives, or an equality the env knows (e.g. 5*u7 == 4*u8 kept as an assert).
  if (env.replace(a) != env.replace(b) &&
      !env.statically_known_true(sym_eq(SymInt(a), SymInt(b)))) {
    out.push_back({"INV-7iii", what + ": replace(a) = " + env.replace(a)->str() +
                                   " but replace(b) = " + env.replace(b)->str() +
                                   " (renaming and replacement diverged)"});
  }
  auto old_a = before.ranges.find(a);
  if (old_a != before.ranges.end() && !env.var_range(a).issubset(old_a->second)) {
    out.push_back({"INV-7iv", what + ": range of " + a->str() + " grew"});
  }
  // What a now stands for must lie within a's range (b itself may be replaced further). A
  // size-like symbol's upper bound is held at >= 2 by design, so that bound is exempt.
  sym::ValueRange rb = env.bound(env.replace(b)), ra = env.var_range(a);
  bool clamped = env.is_size_like(b) && rb.hi() == sym::ExtInt(2) && ra.hi() < sym::ExtInt(2);
  if (clamped) rb = sym::ValueRange::ints(rb.lo(), ra.hi() < rb.lo() ? rb.lo() : ra.hi());
  if (env.replacement_table().entries().count(a) && !rb.issubset(ra)) {
    out.push_back({"INV-7iv", what + ": bound of replace(" + b->str() + ") = " +
                                  env.bound(env.replace(b)).str() + " not within range of " +
                                  a->str() + " " + env.var_range(a).str()});
  }
  // A symbol whose range is below 2 cannot be size-like (INV-9b), so it is exempt.
  auto may_be_size_like = [&](const ExprRef& s) { return env.var_range(s).hi() >= sym::ExtInt(2); };
  if (env.is_size_like(a) != env.is_size_like(b) && may_be_size_like(a) && may_be_size_like(b)) {
    out.push_back({"INV-7v", what + ": size-likeness differs"});
  }
  auto dest = before.replacements.find(a);
  if (dest != before.replacements.end() && dest->second != b &&
      env.replace(b) != env.replace(dest->second) &&
      !env.statically_known_true(sym_eq(SymInt(b), SymInt(dest->second)))) {
    out.push_back({"INV-7vi", what + ": " + a->str() + " had replacement " + dest->second->str() +
                                  " but now replace(" + b->str() + ") = " + env.replace(b)->str()});
  }
  return out;
}

std::vector<Violation> check_unchanged(const ShapeEnv& env, const ShapeEnvSnapshot& before,
                                       const std::string& invariant, const std::string& what) {
  std::string now = env.state_str();
  if (now == before.state) return {};
  return {
      {invariant, what + " changed the ShapeEnv:\nbefore:\n" + before.state + "after:\n" + now}};
}

std::vector<Violation> check_replay(const ShapeEnv& env) {
  ShapeEnv fresh(env.settings());
  ReplayResult r = replay_events(env.events(), fresh);
  std::vector<Violation> out;
  if (!r.same_outcomes) out.push_back({"replay", r.first_mismatch});
  std::string a = env.state_str(), b = fresh.state_str();
  if (a != b)
    out.push_back({"replay", "state differs after replay:\noriginal:\n" + a + "replayed:\n" + b});
  return out;
}

std::vector<Violation> check_simplify_cache(const ShapeEnv& env, size_t limit) {
  // Entries computed after the last state change cannot be stale; of the others the oldest
  // have seen the most changes. Ties are broken structurally so the sample is deterministic.
  std::vector<ShapeEnv::CachedSimplification> entries;
  for (ShapeEnv::CachedSimplification& c : env.cached_simplifications()) {
    if (c.changes_before < env.state_changes()) entries.push_back(std::move(c));
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    if (a.changes_before != b.changes_before) return a.changes_before < b.changes_before;
    if (a.size_oblivious != b.size_oblivious) return b.size_oblivious;
    return sym::compare(a.expr, b.expr) < 0;
  });
  if (entries.size() > limit) entries.resize(limit);
  std::vector<Violation> out;
  for (const ShapeEnv::CachedSimplification& c : entries) {
    ExprRef now = sym::simplify(env.replace(c.expr), ShapeEnv::Ranges(env, c.size_oblivious));
    if (now == c.out) continue;
    out.push_back(
        {"INV-21", std::string("simplify") + (c.size_oblivious ? "(size-oblivious)" : "") + " of " +
                       c.expr->str() + " answers " + c.out->str() +
                       " from its cache (computed after " + std::to_string(c.changes_before) +
                       " of " + std::to_string(env.state_changes()) +
                       " state changes), but simplifying it now gives " + now->str()});
  }
  return out;
}

}  // namespace sf::oracles
