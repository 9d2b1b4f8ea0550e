// INV-22 for facts: what a cond branch or loop body learned is gone once its scope closes. The
// expected state is the one seen when the scope opened, read through the env's const views.
#include <functional>
#include <map>
#include <set>

#include "oracles/invariants/shape_env_invariants.h"

namespace sf::oracles {

namespace {

struct AssertLess {
  bool operator()(const std::pair<ExprRef, std::string>& a,
                  const std::pair<ExprRef, std::string>& b) const {
    int c = sym::compare(a.first, b.first);
    return c != 0 ? c < 0 : a.second < b.second;
  }
};

// What the caller may reason with, as plain data.
struct KnownFacts {
  std::map<ExprRef, bool, sym::ExprLess> axioms;
  std::set<std::pair<ExprRef, std::string>, AssertLess> asserts;
  std::map<ExprRef, ExprRef, sym::ExprLess> replacements;
  std::map<ExprRef, sym::ValueRange, sym::ExprLess> ranges;
  std::set<ExprRef, sym::ExprLess> size_like, divisible;

  static KnownFacts of(const ShapeEnv& env) {
    KnownFacts k;
    k.axioms = env.axioms();
    for (const auto& [key, ras] : env.deferred_runtime_asserts())
      for (const RuntimeAssert& ra : ras) k.asserts.insert({ra.expr, ra.msg});
    k.replacements = env.replacements();
    k.ranges = env.var_to_range();
    k.size_like = env.size_like();
    k.divisible = env.divisible();
    return k;
  }
};

// `local(s)`: s has a value only where the closing scope's subgraph runs, so what it learned
// about s alone may stay.
void compare(const KnownFacts& before, const ShapeEnv& env, size_t opened, size_t closed,
             const std::function<bool(const ExprRef&)>& local, std::vector<Violation>& out) {
  std::string where = "fact scope opened at event " + std::to_string(opened) +
                      " and closed at event " + std::to_string(closed) + ": ";
  auto leak = [&](const std::string& what) {
    out.push_back({"INV-22", where + what + " was learned inside and is still known outside"});
  };
  KnownFacts now = KnownFacts::of(env);
  for (const auto& [e, v] : now.axioms) {
    auto it = before.axioms.find(e);
    if (it == before.axioms.end() || it->second != v)
      leak("axiom " + e->str() + " == " + (v ? "True" : "False"));
  }
  for (const auto& [e, msg] : now.asserts) {
    if (!before.asserts.count({e, msg})) leak("deferred assert " + e->str() + " ('" + msg + "')");
  }
  const auto& renamings = env.unbacked_renamings();
  for (const auto& [s, tgt] : now.replacements) {
    auto it = before.replacements.find(s);
    if (it != before.replacements.end() && it->second == tgt) continue;
    if (renamings.count(s)) continue;  // two names of one value: an identity, not a fact
    leak("replacement " + s->str() + " -> " + tgt->str());
  }
  for (const auto& [s, r] : before.ranges) {
    if (local(s)) continue;
    auto it = now.ranges.find(s);
    if (it != now.ranges.end() && !(it->second == r))
      leak("range " + it->second.str() + " of " + s->str() + " (was " + r.str() + ")");
  }
  for (const ExprRef& s : now.size_like) {
    if (before.ranges.count(s) && !local(s) && !before.size_like.count(s))
      leak("size-likeness of " + s->str());
  }
  for (const ExprRef& m : now.divisible) {
    if (!before.divisible.count(m)) leak("divisibility " + m->str() + " == 0");
  }
}

}  // namespace

std::vector<Violation> check_fact_scopes(const ShapeEnv& env) {
  std::vector<Violation> out;
  bool any_scope = false;
  for (const Event& ev : env.events())
    any_scope = any_scope || std::holds_alternative<event::PushFactScope>(ev.call);
  if (!any_scope) return out;
  std::vector<std::pair<size_t, KnownFacts>> open;
  ReplayHooks hooks;
  hooks.before = [&](size_t i, const Event& ev, const ShapeEnv& replayed) {
    if (std::holds_alternative<event::PushFactScope>(ev.call))
      open.emplace_back(i, KnownFacts::of(replayed));
  };
  hooks.after = [&](size_t i, const Event& ev, const ShapeEnv& replayed) {
    if (!std::holds_alternative<event::PopFactScope>(ev.call) || open.empty()) return;
    const KnownFacts& before = open.back().second;
    // Local to the scope: a symbol that did not exist when it opened, or one such a symbol was
    // renamed to (the trace's name of a symbol re-propagation made fresh inside).
    std::set<ExprRef, sym::ExprLess> local;
    for (const auto& [s, r] : replayed.var_to_range()) {
      if (!before.ranges.count(s)) local.insert(s);
    }
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto& [orig, dest] : replayed.unbacked_renamings()) {
        if (local.count(orig)) grew = local.insert(dest).second || grew;
      }
    }
    compare(
        before, replayed, open.back().first, i,
        [&](const ExprRef& s) { return local.count(s) > 0; }, out);
    open.pop_back();
  };
  ShapeEnv fresh(env.settings());
  replay_events(env.events(), fresh, hooks);
  return out;
}

}  // namespace sf::oracles
