// One program's SMT session: facts pushed in scopes, satisfiability and entailment queries with a
// closed result set (unsat, sat with a model, unknown, error). Only the expected answer may pass:
// callers treat unknown and error as inconclusive, never as a pass. Z3 stays behind this header.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/sym/eval.h"
#include "engine/sym/expr.h"

namespace sf::smt {

enum class Status { kUnsat, kSat, kUnknown, kError };
const char* status_name(Status s);

struct Result {
  Status status = Status::kError;
  // kSat: a value for every symbol of the query, confirmed by engine/sym's evaluator (Z3 has had
  // soundness bugs on nonlinear integer div/mod, so an unconfirmed model is an error, not a sat).
  sym::Assignment model;
  std::string reason;             // kUnknown / kError: timeout, resource limit, rejected model...
  std::vector<std::string> core;  // kUnsat: labels of facts in a conflicting subset
  double seconds = 0.0;
  bool cached = false;
  std::string model_str() const;  // "u0=3, u1=0" in symbol order
};

struct Options {
  // Wall-clock limit per query, kept by a watchdog thread outside Z3 that interrupts it. Z3's own
  // `timeout` is not set: it starts a timer thread per query (a third of the query's time).
  unsigned timeout_ms = 1000;
  unsigned rlimit = 20000000;  // deterministic resource budget per query
  unsigned seed = 0;
  // Confirm every unsat answer with cvc5 (the `cvc5` binary on PATH, on SMT-LIB2 text): a
  // disagreement is an error; cvc5 missing makes every cross-check an error.
  bool cross_check_unsat = false;
};

struct Stats {
  int64_t queries = 0, cache_hits = 0, sat = 0, unsat = 0, unknown = 0, error = 0;
  int64_t cross_checked = 0, cross_check_failures = 0;
  std::vector<double> seconds;  // of the queries that reached the solver
  void add(const Stats& o);
  Stats since(const Stats& before) const;  // what was added after `before` was taken
  std::string str() const;  // "12 queries (3 cached): 9 unsat, 3 sat, 0 unknown, 0 error; ..."
};

class Session {
 public:
  explicit Session(Options opts = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // A per-thread session for oracles, reused across programs (creating a Z3 context costs
  // milliseconds): scopes are popped by Scope, the cache is per query. It is rebuilt after
  // kReuseLimit scopes or when `opts` differ, so memory stays bounded over a campaign.
  static Session& shared(const Options& opts);
  static constexpr int kReuseLimit = 500;

  // Pushes on construction, pops on destruction: facts assumed inside it are gone afterwards.
  class Scope {
   public:
    explicit Scope(Session& s) : s_(s) { s_.push(); }
    ~Scope() { s_.pop(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Session& s_;
  };

  void push();
  void pop();
  // Adds a boolean fact to the current scope; it is asserted together with its definedness.
  // The label names it in unsat cores ("range u0", "assert 'u0 >= 2'", "σ u0 = 3").
  void assume(const sym::ExprRef& fact, const std::string& label);
  // Satisfiability of the facts in scope and every boolean in `query`; `with_core` names the
  // facts of a conflicting subset in an unsat result.
  Result check(const std::vector<sym::ExprRef>& query = {}, bool with_core = true);
  // Whether the facts in scope entail `goal`: unsat (entailed) or sat with a countermodel.
  Result entails(const sym::ExprRef& goal);

  const Stats& stats() const { return stats_; }
  // The facts in scope and `query` as an SMT-LIB2 script (for cvc5 and for bug reports).
  std::string smtlib(const std::vector<sym::ExprRef>& query = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Stats stats_;
  Options opts_;
  int scopes_opened_ = 0;
};

}  // namespace sf::smt
