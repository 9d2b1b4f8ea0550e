// Works on differences: before each event the renamings, replacements and facts are kept; after
// it, every symbol that gained a renaming or whose replacement changed is judged semantically
// (an equivalent new target is fine, a lost fact is not).
#include "oracles/rename_oracle.h"

#include <chrono>
#include <tuple>

#include "engine/sym/make.h"
#include "engine/sym/walk.h"
#include "oracles/smt/deadline.h"
#include "oracles/smt/facts.h"

namespace sf::oracles {

using sym::ExprRef;

namespace {

bool mentions(const ExprRef& e, const ExprRef& s) {
  for (const ExprRef& x : sym::free_symbols(e)) {
    if (x == s) return true;
  }
  return false;
}

class RenameCheck {
 public:
  RenameCheck(const smt::Options& opts, OracleReport& report) : opts_(opts), report_(report) {}

  // Keeps what the state was before an event: renamings, replacements and every fact. Closing
  // a fact scope is judged against the state when it opened (what it learned is meant to go;
  // a renaming it made and what the caller knew before it are not).
  void before(const Event& ev, const ShapeEnv& env) {
    if (smt::deadline_passed()) return;  // nothing more is judged (the report says undecided)
    if (std::holds_alternative<event::PopFactScope>(ev.call) && !scopes_.empty()) {
      std::tie(renamings_, replacements_, facts_before_) = std::move(scopes_.back());
      scopes_.pop_back();
      return;
    }
    renamings_ = env.replacement_table().renamings();
    replacements_ = env.replacement_table().entries();
    facts_before_ = smt::env_facts(env, /*detailed_labels=*/false);
    if (std::holds_alternative<event::PushFactScope>(ev.call))
      scopes_.emplace_back(renamings_, replacements_, facts_before_);
  }

  void after(size_t index, const Event& ev, const ShapeEnv& env) {
    if (smt::deadline_passed()) return;
    const auto& ren = env.replacement_table().renamings();
    const auto& rep = env.replacement_table().entries();
    std::vector<std::pair<ExprRef, ExprRef>> changed;  // (old symbol, what it now stands for)
    for (const auto& [a, b] : ren) {
      auto it = renamings_.find(a);
      if (it == renamings_.end() || it->second != b) changed.emplace_back(a, b);
    }
    for (const auto& [a, old_tgt] : replacements_) {
      auto it = rep.find(a);
      bool renamed = ren.count(a) && (!renamings_.count(a) || renamings_.at(a) != ren.at(a));
      if (!renamed && (it == rep.end() || it->second != old_tgt)) changed.emplace_back(a, a);
    }
    if (changed.empty()) return;
    // One solver scope per event: the new state is encoded once for every changed symbol.
    smt::Session& session = smt::Session::shared(opts_);
    smt::Stats before = session.stats();
    {
      smt::Session::Scope scope(session);
      smt::assume_all(session, smt::env_facts(env, /*detailed_labels=*/false));
      for (const auto& [a, b] : changed) judge(session, index, ev, a, b);
    }
    stats.add(session.stats().since(before));
  }

  smt::Stats stats;

 private:
  void judge(smt::Session& session, size_t index, const Event& ev, const ExprRef& a,
             const ExprRef& b) {
    std::vector<smt::Fact> goals;
    for (const smt::Fact& f : facts_before_) {
      if (!mentions(f.expr, a)) continue;
      ExprRef g = a == b ? f.expr : sym::substitute_symbols(f.expr, [&](const ExprRef& s) {
        return s == a ? b : s;
      });
      goals.push_back({g, f.label});
    }
    if (a != b) goals.push_back({sym::eq(a, b), "renaming " + a->str() + " -> " + b->str()});
    if (goals.empty()) return;
    std::string what = "event " + std::to_string(index) + " " + ev.name() + ": " + a->str() +
                       (a == b ? " (replacement rewritten)" : " renamed to " + b->str());
    for (const smt::Fact& g : goals) {
      smt::Result r = session.entails(g.expr);
      if (r.status == smt::Status::kSat) {
        report_.violations.push_back({"rename", what + ": '" + g.label + "' (as " + g.expr->str() +
                                                    ") is no longer entailed; counterexample " +
                                                    r.model_str()});
      } else if (r.status != smt::Status::kUnsat) {
        report_.undecided(what + " '" + g.label + "'", r);
      }
    }
  }

  smt::Options opts_;
  OracleReport& report_;
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
  RenameCheck check(opts, report);
  ShapeEnv fresh(env.settings());
  ReplayHooks hooks;
  hooks.before = [&](size_t, const Event& ev, const ShapeEnv& e) { check.before(ev, e); };
  hooks.after = [&](size_t i, const Event& ev, const ShapeEnv& e) { check.after(i, ev, e); };
  replay_events(env.events(), fresh, hooks);
  report.smt = check.stats;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace sf::oracles
