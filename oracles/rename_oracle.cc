// Works on differences: before each event that moves the replacement table, the renamings,
// replacements and facts are kept; after it, every symbol that gained a renaming or whose
// replacement changed is judged semantically (an equivalent new target is fine, a lost fact is
// not). Near-linear in the log: a first replay finds those events, a second judges only them, and
// Z3 sees only the facts that share symbols with a goal (a violation is confirmed with them all).
#include "oracles/rename_oracle.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <set>
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

// The facts of a ShapeEnv's state gathered by symbol, without reading them all: a symbol's range
// facts and its replacement come from the tables, the replacements whose target mentions it
// from the replacement table's index, the rest (axioms, deferred asserts, guards: usually few)
// from an index made once per state.
class FactsBySymbol {
 public:
  FactsBySymbol(const ShapeEnv& env, smt::FactMemo& memo, SymbolsOf& symbols_of)
      : env_(env), memo_(memo), symbols_of_(symbols_of) {
    others_ = smt::assertion_facts(env, /*detailed_labels=*/false);
    for (size_t i = 0; i < others_.size(); ++i) {
      const std::vector<ExprRef>& fs = symbols_of_(others_[i].expr);
      if (fs.empty()) ground_.push_back(i);
      for (const ExprRef& x : fs) others_of_[x.get()].push_back(i);
    }
  }

  // Calls f(fact, its symbols) for every fact that mentions s.
  template <typename F>
  void each_mentioning(const ExprRef& s, F f) {
    const RangeTable& ranges = env_.range_table();
    if (ranges.has(s)) {
      for (const smt::Fact& r : smt::memo_range_facts(s, ranges.get(s), memo_)) f(r, {s});
    }
    const ReplacementTable& table = env_.replacement_table();
    auto replacement = [&](const ExprRef& key, const ExprRef& tgt) {
      std::vector<ExprRef> symbols = symbols_of_(tgt);
      symbols.push_back(key);
      f(smt::replacement_fact(key, tgt, false, &memo_), symbols);
    };
    if (std::optional<ExprRef> t = table.target(s)) replacement(s, *t);
    if (const auto* keys = table.keys_mentioning(s)) {
      for (const ExprRef& k : *keys) {
        std::optional<ExprRef> t = table.target(k);
        if (!t || k == s) continue;
        const std::vector<ExprRef>& ts = symbols_of_(*t);
        if (std::find(ts.begin(), ts.end(), s) != ts.end()) replacement(k, *t);
      }
    }
    auto it = others_of_.find(s.get());
    if (it == others_of_.end()) return;
    for (size_t i : it->second) f(others_[i], symbols_of_(others_[i].expr));
  }

  // The facts connected to `symbols` through shared symbols, with every fact without symbols.
  // The rest constrain other symbols only, so they change no entailment unless they contradict
  // each other, which is why a violation found on this slice is confirmed with all the facts.
  std::vector<smt::Fact> connected_to(std::vector<ExprRef> frontier) {
    std::vector<smt::Fact> out;
    for (size_t i : ground_) out.push_back(others_[i]);
    std::unordered_set<const sym::Expr*> seen_symbols, seen_facts;
    while (!frontier.empty()) {
      ExprRef s = frontier.back();
      frontier.pop_back();
      if (!seen_symbols.insert(s.get()).second) continue;
      each_mentioning(s, [&](const smt::Fact& f, const std::vector<ExprRef>& symbols) {
        if (!seen_facts.insert(f.expr.get()).second) return;  // (the same expression twice)
        out.push_back(f);
        for (const ExprRef& x : symbols) {
          if (!seen_symbols.count(x.get())) frontier.push_back(x);
        }
      });
    }
    return out;
  }

 private:
  const ShapeEnv& env_;
  smt::FactMemo& memo_;
  SymbolsOf& symbols_of_;
  std::vector<smt::Fact> others_;
  std::vector<size_t> ground_;
  std::unordered_map<const sym::Expr*, std::vector<size_t>> others_of_;
};

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

// What the first replay found about one event: whether it moved the replacement table, and the
// keys it wrote (`all`: it closed a fact scope, which may change any).
struct EventChange {
  bool moved = false, all = false;
  std::vector<ExprRef> keys;
};

class RenameCheck {
 public:
  RenameCheck(const smt::Options& opts, OracleReport& report,
              const std::vector<EventChange>& changes)
      : opts_(opts), report_(report), changes_(changes) {}

  // Keeps what the state was before an event that moves the table: for the keys it writes, their
  // renamings, replacements and the facts that mention them; for a fact scope's close, or an
  // event that may write any key, the whole state. Closing a fact scope is judged against the
  // state when it opened (what it learned is meant to go; a renaming it made and what the
  // caller knew before it are not).
  void before(size_t index, const Event& ev, const ShapeEnv& env) {
    if (smt::deadline_passed()) return;  // nothing more is judged (the report says undecided)
    bool push = std::holds_alternative<event::PushFactScope>(ev.call);
    const EventChange& c = changes_[index];
    if (!c.moved && !push) return;
    if (std::holds_alternative<event::PopFactScope>(ev.call) && !scopes_.empty()) {
      std::tie(renamings_, replacements_, facts_before_) = std::move(scopes_.back());
      scopes_.pop_back();
      whole_state_ = true;
      return;
    }
    if (push || c.all) {
      renamings_ = env.replacement_table().renamings();
      replacements_ = env.replacement_table().entries();
      facts_before_ = smt::env_facts(env, /*detailed_labels=*/false, &memo_);
      if (push) scopes_.emplace_back(renamings_, replacements_, facts_before_);
      whole_state_ = true;
      return;
    }
    whole_state_ = false;
    keyed_before_.clear();
    FactsBySymbol facts(env, memo_, symbols_of_);
    const ReplacementTable& table = env.replacement_table();
    for (const ExprRef& a : c.keys) {
      KeyBefore& k = keyed_before_[a];
      auto r = table.renamings().find(a);
      if (r != table.renamings().end()) k.renamed_to = r->second;
      if (std::optional<ExprRef> t = table.target(a)) k.target = *t;
      facts.each_mentioning(
          a, [&](const smt::Fact& f, const std::vector<ExprRef>&) { k.facts.push_back(f); });
    }
  }

  void after(size_t index, const Event& ev, const ShapeEnv& env) {
    if (smt::deadline_passed() || !changes_[index].moved) return;
    std::vector<std::pair<ExprRef, ExprRef>> changed;  // (old symbol, what it now stands for)
    const ReplacementTable& table = env.replacement_table();
    if (whole_state_) {
      std::unordered_set<const sym::Expr*> renamed;
      for_both(table.renamings(), renamings_,
               [&](const ExprRef& a, const ExprRef* now, const ExprRef* was) {
                 if (now && (!was || *was != *now)) {
                   changed.emplace_back(a, *now);
                   renamed.insert(a.get());
                 }
               });
      for_both(table.entries(), replacements_,
               [&](const ExprRef& a, const ExprRef* now, const ExprRef* was) {
                 if (was && !renamed.count(a.get()) && (!now || *now != *was))
                   changed.emplace_back(a, a);
               });
    } else {
      for (const auto& [a, k] : keyed_before_) {
        auto r = table.renamings().find(a);
        if (r != table.renamings().end() && (!k.renamed_to || k.renamed_to != r->second)) {
          changed.emplace_back(a, r->second);
          continue;
        }
        std::optional<ExprRef> t = table.target(a);
        if (k.target && (!t || *t != k.target)) changed.emplace_back(a, a);
      }
    }
    if (changed.empty()) return;
    smt::Session& session = smt::Session::shared(opts_);
    smt::Stats before = session.stats();
    FactsBySymbol facts(env, memo_, symbols_of_);
    for (const auto& [a, b] : changed) judge(session, env, facts, index, ev, a, b);
    stats.add(session.stats().since(before));
  }

  smt::Stats stats;

 private:
  struct KeyBefore {
    ExprRef renamed_to, target;    // null when it had none
    std::vector<smt::Fact> facts;  // the facts that mentioned the key
  };

  // The facts that mentioned `a` before the event.
  std::vector<smt::Fact> facts_before_mentioning(const ExprRef& a) {
    if (!whole_state_) return keyed_before_.at(a).facts;
    std::vector<smt::Fact> out;
    for (const smt::Fact& f : facts_before_) {
      const std::vector<ExprRef>& fs = symbols_of_(f.expr);
      if (std::find(fs.begin(), fs.end(), a) != fs.end()) out.push_back(f);
    }
    return out;
  }

  void judge(smt::Session& session, const ShapeEnv& env, FactsBySymbol& facts, size_t index,
             const Event& ev, const ExprRef& a, const ExprRef& b) {
    std::vector<smt::Fact> goals;
    for (const smt::Fact& f : facts_before_mentioning(a)) {
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
    smt::assume_all(session, facts.connected_to(symbols));
    for (const smt::Fact& g : goals) {
      smt::Result r = session.entails(g.expr);
      if (r.status == smt::Status::kSat) r = entailed_by_all(session, env, g.expr);
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
  smt::Result entailed_by_all(smt::Session& session, const ShapeEnv& env, const ExprRef& goal) {
    smt::Session::Scope all(session);
    smt::assume_all(session, smt::env_facts(env, /*detailed_labels=*/false, &memo_));
    return session.entails(goal);
  }

  smt::Options opts_;
  OracleReport& report_;
  const std::vector<EventChange>& changes_;
  smt::FactMemo memo_;  // the state is read around every judged event
  SymbolsOf symbols_of_;
  bool whole_state_ = false;  // the state before the event was kept whole (else by key)
  std::map<ExprRef, KeyBefore, sym::ExprLess> keyed_before_;
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
  // First replay: which events move the replacement table (most do not), and the keys each
  // writes.
  std::vector<EventChange> changes(env.events().size());
  {
    ShapeEnv fresh(env.settings());
    size_t journal = 0;
    ReplayHooks hooks;
    hooks.before = [&](size_t, const Event&, const ShapeEnv& e) {
      journal = e.replacement_table().touched().size();
    };
    hooks.after = [&](size_t i, const Event&, const ShapeEnv& e) {
      const std::vector<ExprRef>& touched = e.replacement_table().touched();
      EventChange& c = changes[i];
      c.moved = touched.size() != journal;
      std::set<ExprRef, sym::ExprLess> keys;
      for (size_t k = journal; k < touched.size(); ++k) {
        if (!touched[k])
          c.all = true;
        else
          keys.insert(touched[k]);
      }
      c.keys.assign(keys.begin(), keys.end());
    };
    replay_events(env.events(), fresh, hooks);
  }
  RenameCheck check(opts, report, changes);
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
