// Works on differences: before each event that moves the replacement table, the renamings,
// replacements and facts are kept; after it, every symbol that gained a renaming or whose
// replacement changed is judged semantically (an equivalent new target is fine, a lost fact is
// not). Near-linear in the log: a first replay finds those events, a second judges only them, and
// Z3 sees only the facts that share symbols with a goal (a violation is confirmed with them all).
#include "oracles/rename_oracle.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "engine/sym/make.h"
#include "engine/sym/walk.h"
#include "oracles/smt/deadline.h"
#include "oracles/smt/facts.h"

namespace sf::oracles {

using sym::ExprRef;

namespace {

// The free symbols of each fact's expression, computed once: the state is read around many
// events and most facts stay.
class SymbolsOf {
 public:
  const std::vector<ExprRef>& operator()(const ExprRef& e) {
    auto it = cache_.find(e.get());
    if (it == cache_.end()) {
      it = cache_.emplace(e.get(), std::make_pair(e, sym::free_symbols(e))).first;
    }
    return it->second.second;
  }

 private:
  // (The expression is kept so that its address is not reused for another one.)
  std::unordered_map<const sym::Expr*, std::pair<ExprRef, std::vector<ExprRef>>> cache_;
};

// The facts among `facts` that can matter to goals over `symbols`: those connected to them
// through shared symbols (with every fact without symbols). The rest constrain other symbols
// only, so they change no entailment unless they contradict each other, which is why a
// violation found on this slice is confirmed with all the facts.
std::vector<smt::Fact> facts_connected_to(const std::vector<smt::Fact>& facts,
                                          const std::vector<ExprRef>& symbols,
                                          SymbolsOf& symbols_of) {
  // Union-find over symbols: the facts join the symbols they mention.
  std::unordered_map<const sym::Expr*, const sym::Expr*> parent;
  auto root = [&](const sym::Expr* x) {  // iterative, halving the path as it goes
    auto it = parent.try_emplace(x, x).first;
    while (it->second != it->first) {
      auto up = parent.find(it->second);
      it->second = up->second;
      it = parent.find(it->second);
    }
    return it->first;
  };
  std::vector<const std::vector<ExprRef>*> fact_symbols;
  for (const smt::Fact& f : facts) {
    fact_symbols.push_back(&symbols_of(f.expr));
    const std::vector<ExprRef>& fs = *fact_symbols.back();
    for (size_t i = 1; i < fs.size(); ++i) parent[root(fs[i].get())] = root(fs[0].get());
  }
  std::unordered_set<const sym::Expr*> wanted;
  for (const ExprRef& s : symbols) wanted.insert(root(s.get()));
  std::vector<smt::Fact> out;
  for (size_t i = 0; i < facts.size(); ++i) {
    if (fact_symbols[i]->empty() || wanted.count(root((*fact_symbols[i])[0].get())))
      out.push_back(facts[i]);
  }
  return out;
}

// f(key, value now or null, value before or null) for every key of either map, in one ordered
// walk of both: a lookup per key would compare expressions structurally log(n) times.
template <typename F>
void for_both(const std::map<ExprRef, ExprRef, sym::ExprLess>& now,
              const std::map<ExprRef, ExprRef, sym::ExprLess>& before, F f) {
  sym::ExprLess less;
  auto i = now.begin();
  auto j = before.begin();
  while (i != now.end() || j != before.end()) {
    if (j == before.end() || (i != now.end() && i->first != j->first && less(i->first, j->first))) {
      f(i->first, &i->second, nullptr);
      ++i;
    } else if (i == now.end() || (i->first != j->first && less(j->first, i->first))) {
      f(j->first, nullptr, &j->second);
      ++j;
    } else {
      f(i->first, &i->second, &j->second);
      ++i;
      ++j;
    }
  }
}

class RenameCheck {
 public:
  // `judged`: the events that moved the replacement table (the first replay's finding); the
  // state is kept and judged around those only, and around fact scopes.
  RenameCheck(const smt::Options& opts, OracleReport& report, const std::vector<bool>& judged)
      : opts_(opts), report_(report), judged_(judged) {}

  // Keeps what the state was before an event: renamings, replacements and every fact. Closing
  // a fact scope is judged against the state when it opened (what it learned is meant to go;
  // a renaming it made and what the caller knew before it are not).
  void before(size_t index, const Event& ev, const ShapeEnv& env) {
    if (smt::deadline_passed()) return;  // nothing more is judged (the report says undecided)
    bool push = std::holds_alternative<event::PushFactScope>(ev.call);
    if (!judged_[index] && !push) return;
    if (std::holds_alternative<event::PopFactScope>(ev.call) && !scopes_.empty()) {
      std::tie(renamings_, replacements_, facts_before_) = std::move(scopes_.back());
      scopes_.pop_back();
      return;
    }
    renamings_ = env.replacement_table().renamings();
    replacements_ = env.replacement_table().entries();
    facts_before_ = smt::env_facts(env, /*detailed_labels=*/false, &memo_);
    if (push) scopes_.emplace_back(renamings_, replacements_, facts_before_);
  }

  void after(size_t index, const Event& ev, const ShapeEnv& env) {
    if (smt::deadline_passed() || !judged_[index]) return;
    const auto& ren = env.replacement_table().renamings();
    const auto& rep = env.replacement_table().entries();
    std::vector<std::pair<ExprRef, ExprRef>> changed;  // (old symbol, what it now stands for)
    std::unordered_set<const sym::Expr*> renamed;
    for_both(ren, renamings_, [&](const ExprRef& a, const ExprRef* now, const ExprRef* was) {
      if (now && (!was || *was != *now)) {
        changed.emplace_back(a, *now);
        renamed.insert(a.get());
      }
    });
    for_both(rep, replacements_, [&](const ExprRef& a, const ExprRef* now, const ExprRef* was) {
      if (was && !renamed.count(a.get()) && (!now || *now != *was)) changed.emplace_back(a, a);
    });
    if (changed.empty()) return;
    // One solver scope per event: the new state is encoded once for every changed symbol.
    smt::Session& session = smt::Session::shared(opts_);
    smt::Stats before = session.stats();
    std::vector<smt::Fact> facts = smt::env_facts(env, /*detailed_labels=*/false, &memo_);
    for (const auto& [a, b] : changed) judge(session, facts, index, ev, a, b);
    stats.add(session.stats().since(before));
  }

  smt::Stats stats;

 private:
  void judge(smt::Session& session, const std::vector<smt::Fact>& facts, size_t index,
             const Event& ev, const ExprRef& a, const ExprRef& b) {
    std::vector<smt::Fact> goals;
    for (const smt::Fact& f : facts_before_) {
      const std::vector<ExprRef>& fs = symbols_of_(f.expr);
      if (std::find(fs.begin(), fs.end(), a) == fs.end()) continue;
      ExprRef g = a == b ? f.expr : sym::substitute_symbols(f.expr, [&](const ExprRef& s) {
        return s == a ? b : s;
      });
      goals.push_back({g, f.label});
    }
    if (a != b) goals.push_back({sym::eq(a, b), "renaming " + a->str() + " -> " + b->str()});
    if (goals.empty()) return;
    std::string what = "event " + std::to_string(index) + " " + ev.name() + ": " + a->str() +
                       (a == b ? " (replacement rewritten)" : " renamed to " + b->str());
    std::vector<ExprRef> symbols;
    for (const smt::Fact& g : goals) {
      for (const ExprRef& x : symbols_of_(g.expr)) symbols.push_back(x);
    }
    smt::Session::Scope scope(session);
    smt::assume_all(session, facts_connected_to(facts, symbols, symbols_of_));
    for (const smt::Fact& g : goals) {
      smt::Result r = session.entails(g.expr);
      if (r.status == smt::Status::kSat) r = entailed_by_all(session, facts, g.expr);
      if (r.status == smt::Status::kSat) {
        report_.violations.push_back({"rename", what + ": '" + g.label + "' (as " + g.expr->str() +
                                                    ") is no longer entailed; counterexample " +
                                                    r.model_str()});
      } else if (r.status != smt::Status::kUnsat) {
        report_.undecided(what + " '" + g.label + "'", r);
      }
    }
  }

  // A goal the slice does not entail, asked again with every fact (in a scope of its own).
  static smt::Result entailed_by_all(smt::Session& session, const std::vector<smt::Fact>& facts,
                                     const ExprRef& goal) {
    smt::Session::Scope all(session);
    smt::assume_all(session, facts);
    return session.entails(goal);
  }

  smt::Options opts_;
  OracleReport& report_;
  const std::vector<bool>& judged_;
  smt::FactMemo memo_;  // the state is read around every judged event
  SymbolsOf symbols_of_;
  std::map<ExprRef, ExprRef, sym::ExprLess> renamings_, replacements_;
  std::vector<smt::Fact> facts_before_;
  using Map = std::map<ExprRef, ExprRef, sym::ExprLess>;
  std::vector<std::tuple<Map, Map, std::vector<smt::Fact>>> scopes_;  // at each open scope's push
};

}  // namespace

OracleReport check_renames(const ShapeEnv& env, const smt::Options& opts) {
  auto start = std::chrono::steady_clock::now();
  OracleReport report;
  report.name = "rename";
  report.ran = true;
  // First replay: which events move the replacement table (most do not).
  std::vector<bool> judged(env.events().size(), false);
  {
    ShapeEnv fresh(env.settings());
    uint64_t revision = 0;
    ReplayHooks hooks;
    hooks.before = [&](size_t, const Event&, const ShapeEnv& e) {
      revision = e.replacement_table().revision();
    };
    hooks.after = [&](size_t i, const Event&, const ShapeEnv& e) {
      judged[i] = e.replacement_table().revision() != revision;
    };
    replay_events(env.events(), fresh, hooks);
  }
  RenameCheck check(opts, report, judged);
  ShapeEnv fresh(env.settings());
  ReplayHooks hooks;
  hooks.before = [&](size_t i, const Event& ev, const ShapeEnv& e) { check.before(i, ev, e); };
  hooks.after = [&](size_t i, const Event& ev, const ShapeEnv& e) { check.after(i, ev, e); };
  replay_events(env.events(), fresh, hooks);
  report.smt = check.stats;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace sf::oracles
