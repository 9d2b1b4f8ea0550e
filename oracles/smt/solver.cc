// The Z3 session behind smt::Session: facts asserted in push scopes (unsat cores come from a
// separate indicator solver, only when asked), one push/pop around each query, a query cache keyed
// by the exact facts and query (hash-consed expressions compare by pointer), the watchdog
// (watchdog.h) and cvc5's confirmation of unsat answers (cvc5.h) around each check, and model
// confirmation by the concrete evaluator.
#include "oracles/smt/solver.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "engine/base/errors.h"
#include "engine/sym/make.h"
#include "engine/sym/walk.h"
#include "oracles/smt/cvc5.h"
#include "oracles/smt/deadline.h"
#include "oracles/smt/encoding.h"
#include "oracles/smt/watchdog.h"

namespace sf::smt {

using sym::ExprRef;

const char* status_name(Status s) {
  switch (s) {
    case Status::kUnsat:
      return "unsat";
    case Status::kSat:
      return "sat";
    case Status::kUnknown:
      return "unknown";
    case Status::kError:
      return "error";
  }
  return "?";
}

std::string Result::model_str() const {
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& [s, v] : model) items.emplace_back(s->str(), v.str());
  std::sort(items.begin(), items.end());
  std::string out;
  for (const auto& [name, value] : items) out += (out.empty() ? "" : ", ") + name + "=" + value;
  return out;
}

void Stats::add(const Stats& o) {
  queries += o.queries;
  cache_hits += o.cache_hits;
  sat += o.sat;
  unsat += o.unsat;
  unknown += o.unknown;
  error += o.error;
  cross_checked += o.cross_checked;
  cross_check_failures += o.cross_check_failures;
  seconds.insert(seconds.end(), o.seconds.begin(), o.seconds.end());
}

Stats Stats::since(const Stats& before) const {
  Stats d;
  d.queries = queries - before.queries;
  d.cache_hits = cache_hits - before.cache_hits;
  d.sat = sat - before.sat;
  d.unsat = unsat - before.unsat;
  d.unknown = unknown - before.unknown;
  d.error = error - before.error;
  d.cross_checked = cross_checked - before.cross_checked;
  d.cross_check_failures = cross_check_failures - before.cross_check_failures;
  d.seconds.assign(seconds.begin() + std::min(seconds.size(), before.seconds.size()),
                   seconds.end());
  return d;
}

std::string Stats::str() const {
  std::ostringstream os;
  os << queries << " queries (" << cache_hits << " cached): " << unsat << " unsat, " << sat
     << " sat, " << unknown << " unknown, " << error << " error";
  if (cross_checked)
    os << "; cvc5 confirmed " << cross_checked - cross_check_failures << "/" << cross_checked
       << " unsat";
  if (!seconds.empty()) {
    std::vector<double> s = seconds;
    std::sort(s.begin(), s.end());
    os << "; solver time median " << s[s.size() / 2] * 1e3 << " ms, p95 "
       << s[std::min(s.size() - 1, s.size() * 95 / 100)] * 1e3 << " ms, max " << s.back() * 1e3
       << " ms";
  }
  return os.str();
}

namespace {

struct Fact {
  ExprRef expr;
  std::string label;
  z3::expr asserted;  // definedness and value, as asserted
  // The sequences of facts in scope up to this one, by expression and by label, as numbers
  // (FactSequences): equal numbers, equal sequences.
  uint64_t exprs_id = 0, labels_id = 0;
};

// Numbers the sequences of facts a session has had in scope, so that a query's cache key names
// them in O(1) instead of listing them (which made every query linear in the facts): each
// sequence is its predecessor's number and the fact appended, interned. 0 is the empty one.
class FactSequences {
 public:
  uint64_t append_expr(uint64_t prefix, const ExprRef& e) {
    auto [it, added] = exprs_.try_emplace({prefix, e.get()}, next_id_, e);
    if (added) ++next_id_;
    return it->second.first;
  }
  uint64_t append_label(uint64_t prefix, const std::string& label) {
    auto [it, added] = labels_.try_emplace({prefix, label}, next_id_);
    if (added) ++next_id_;
    return it->second;
  }

 private:
  uint64_t next_id_ = 1;
  // (prefix, the fact's node) -> (number, the node kept alive so its address is not reused).
  std::map<std::pair<uint64_t, const sym::Expr*>, std::pair<uint64_t, ExprRef>> exprs_;
  std::map<std::pair<uint64_t, std::string>, uint64_t> labels_;
};

struct CacheKey {
  uint64_t facts = 0;  // FactSequences' number of the facts in scope
  std::vector<ExprRef> query;
  bool with_core = false;  // an answer cached without its core cannot serve one that needs it
  uint64_t labels = 0;     // with a core: the number of the facts' labels, which the core names
  bool operator<(const CacheKey& o) const {
    if (with_core != o.with_core) return with_core < o.with_core;
    if (labels != o.labels) return labels < o.labels;
    if (facts != o.facts) return facts < o.facts;
    return std::lexicographical_compare(
        query.begin(), query.end(), o.query.begin(), o.query.end(),
        [](const ExprRef& x, const ExprRef& y) { return x.get() < y.get(); });
  }
};

std::optional<sym::Concrete> concrete_of(const z3::expr& v, bool is_float) {
  if (!v.is_numeral()) return std::nullopt;
  if (!is_float) {
    int64_t i = 0;
    if (!v.is_numeral_i64(i)) return std::nullopt;
    return sym::Concrete::of_int(i);
  }
  return sym::Concrete::of_float(std::strtod(v.get_decimal_string(40).c_str(), nullptr));
}

}  // namespace

struct Session::Impl {
  explicit Impl(const Options& o) : opts(o), solver(ctx), enc(ctx), watchdog(ctx) {
    solver.set(solver_params());
    scopes.emplace_back();
  }

  // The deterministic budget and seed every solver of the session runs with.
  z3::params solver_params() {
    z3::params p(ctx);
    p.set("rlimit", opts.rlimit);
    p.set("random_seed", opts.seed);
    return p;
  }

  std::vector<ExprRef> fact_exprs() const {
    std::vector<ExprRef> out;
    for (const auto& scope : scopes) {
      for (const Fact& f : scope) out.push_back(f.expr);
    }
    return out;
  }

  // The model's value for every symbol of the facts in scope and the query (not every symbol the
  // session ever met: it is shared across programs), confirmed against every fact and conjunct.
  Result confirm(const z3::model& m, const std::vector<ExprRef>& query) {
    Result r;
    r.status = Status::kSat;
    auto read = [&](const ExprRef& s) {
      if (r.model.count(s)) return true;
      z3::expr value = m.eval(enc.encode(s).value, true);
      std::optional<sym::Concrete> v = concrete_of(value, s->is_float());
      if (!v) {
        r.status = Status::kError;
        r.reason = "model value of " + s->str() + " is not a machine number: " + value.to_string();
        return false;
      }
      r.model.emplace(s, *v);
      return true;
    };
    for (const ExprRef& e : fact_exprs()) {
      for (const ExprRef& s : sym::free_symbols(e)) {
        if (!read(s)) return r;
      }
    }
    for (const ExprRef& q : query) {
      for (const ExprRef& s : sym::free_symbols(q)) {
        if (!read(s)) return r;
      }
    }
    auto holds = [&](const ExprRef& e) {
      sym::EvalResult ev = sym::evaluate(e, r.model);
      if (ev.defined && ev.value.type == sym::ExprType::kBool && ev.value.b) return true;
      r.status = Status::kError;
      r.reason = "Z3's model (" + r.model_str() + ") does not satisfy " + e->str() +
                 " under the evaluator (" + (ev.defined ? ev.value.str() : ev.why) + ")";
      return false;
    };
    for (const auto& scope : scopes) {
      for (const Fact& f : scope) {
        if (!holds(f.expr)) return r;
      }
    }
    for (const ExprRef& q : query) {
      if (!holds(q)) return r;
    }
    return r;
  }

  // The labels of a conflicting subset of the facts in scope and `query` (unsat): a separate
  // solver with one indicator per fact, asked only when a caller explains an unsat. Tracking
  // indicators on every query made Z3 slower, and most unsats are passing entailments.
  // Nothing when that solver does not answer unsat (a budget ran out).
  std::optional<std::vector<std::string>> unsat_core_labels(const std::vector<z3::expr>& query) {
    z3::solver explain(ctx);
    explain.set(solver_params());
    for (const z3::expr& q : query) explain.add(q);
    z3::expr_vector indicators(ctx);
    std::vector<const Fact*> facts;
    for (const auto& scope : scopes) {
      for (const Fact& f : scope) {
        std::string name = "fact!" + std::to_string(facts.size());
        z3::expr indicator = ctx.bool_const(name.c_str());
        explain.add(z3::implies(indicator, f.asserted));
        indicators.push_back(indicator);
        facts.push_back(&f);
      }
    }
    if (under_watchdog([&] { return explain.check(indicators); }) != z3::unsat) return std::nullopt;
    std::vector<std::string> out;
    z3::expr_vector core = explain.unsat_core();
    for (unsigned i = 0; i < core.size(); ++i) {
      for (unsigned j = 0; j < indicators.size(); ++j) {
        if (z3::eq(core[i], indicators[j])) out.push_back(facts[j]->label);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // Runs `run` (a Z3 check) under the watchdog; `interrupted` says whether it fired. An interrupt
  // that landed after the check returned is cleared here, before any other Z3 call.
  template <typename F>
  z3::check_result under_watchdog(F run, bool* interrupted = nullptr) {
    struct Disarm {
      Impl& m;
      bool* interrupted;
      ~Disarm() {
        bool fired = m.watchdog.disarm();
        if (fired) {
          m.clear_interrupt();
          m.solver_in_doubt = true;
        }
        if (interrupted) *interrupted = fired;
      }
    } disarm{*this, interrupted};
    auto budget = std::chrono::milliseconds(opts.timeout_ms);
    if (auto left = deadline_time_left()) budget = std::min(budget, *left);
    watchdog.arm(budget);
    return run();
  }

  // A fresh solver holding the facts in scope, one push per scope. Z3 (4.8.12) can be left
  // inconsistent by an interrupted check, the core solver's included: later models that miss
  // facts it holds, unsats that are wrong (seen in campaigns under load, every program of the
  // worker after the first interrupt failing, since the session is reused across programs).
  void rebuild_solver() {
    solver_in_doubt = false;
    solver = z3::solver(ctx);
    solver.set(solver_params());
    for (size_t level = 0; level < scopes.size(); ++level) {
      if (level > 0) solver.push();
      for (const Fact& f : scopes[level]) solver.add(f.asserted);
    }
  }

  // The reason given for a query our watchdog interrupted.
  std::string wall_clock_reason() const {
    return "wall-clock limit of " + std::to_string(opts.timeout_ms) + " ms";
  }

  // Z3 clears its cancel flag when a check starts: an empty check on a scratch solver does it.
  void clear_interrupt() noexcept {
    try {
      z3::solver scratch(ctx);
      scratch.check();
    } catch (const z3::exception&) {
    }
  }

  Options opts;
  // Since the last rebuild the watchdog interrupted a check or Z3 threw: rebuild before reuse.
  bool solver_in_doubt = false;
  z3::context ctx;
  z3::solver solver;
  Encoder enc;
  Watchdog watchdog;
  std::vector<std::vector<Fact>> scopes;
  FactSequences sequences;
  std::map<CacheKey, Result> cache;

  // The last fact in scope (null when none is).
  const Fact* last_fact() const {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      if (!it->empty()) return &it->back();
    }
    return nullptr;
  }
};

Session::Session(Options opts) : impl_(std::make_unique<Impl>(opts)), opts_(opts) {}
Session::~Session() = default;

Session& Session::shared(const Options& opts) {
  thread_local std::unique_ptr<Session> session;
  auto same = [&](const Options& a) {
    return a.timeout_ms == opts.timeout_ms && a.rlimit == opts.rlimit && a.seed == opts.seed &&
           a.cross_check_unsat == opts.cross_check_unsat;
  };
  if (!session || !same(session->opts_) ||
      (session->scopes_opened_ >= kReuseLimit && session->impl_->scopes.size() == 1)) {
    session.reset();  // the old context goes before the new one is made
    session = std::make_unique<Session>(opts);
  }
  return *session;
}

void Session::push() {
  ++scopes_opened_;
  impl_->solver.push();
  impl_->scopes.emplace_back();
}

void Session::pop() {
  if (impl_->scopes.size() <= 1) return;
  impl_->solver.pop();
  impl_->scopes.pop_back();
}

void Session::assume(const ExprRef& fact, const std::string& label) {
  Impl& m = *impl_;
  Term t = m.enc.encode(fact);
  z3::expr asserted = t.defined && t.value;
  m.solver.add(asserted);
  const Fact* last = m.last_fact();
  uint64_t exprs_id = m.sequences.append_expr(last ? last->exprs_id : 0, fact);
  uint64_t labels_id = m.sequences.append_label(last ? last->labels_id : 0, label);
  m.scopes.back().push_back(Fact{fact, label, asserted, exprs_id, labels_id});
}

Result Session::entails(const ExprRef& goal) {
  ExprRef negated;
  try {
    negated = sym::not_(goal);  // canonicalizing may overflow (x <= INT64_MIN negated)
  } catch (const UserError& e) {
    ++stats_.queries;
    ++stats_.error;
    Result r;
    r.status = Status::kError;
    r.reason = std::string("cannot state the negation of ") + goal->str() + ": " + e.what();
    return r;
  }
  return check({negated}, /*with_core=*/false);
}

Result Session::check(const std::vector<ExprRef>& query, bool with_core) {
  Impl& m = *impl_;
  ++stats_.queries;
  const Fact* last = m.last_fact();
  CacheKey key{last ? last->exprs_id : 0, query, with_core,
               with_core && last ? last->labels_id : 0};
  if (auto it = m.cache.find(key); it != m.cache.end()) {
    ++stats_.cache_hits;
    Result r = it->second;
    r.cached = true;
    return r;
  }
  Result r;
  if (deadline_passed()) {  // the oracle's time is up: undecided, and not cached
    ++stats_.unknown;
    r.status = Status::kUnknown;
    r.reason = "the oracle's per-program deadline passed";
    return r;
  }
  bool cacheable = true;
  bool interrupted = false;
  m.solver.push();
  std::vector<z3::expr> conjuncts;
  try {
    for (const ExprRef& q : query) {
      Term t = m.enc.encode(q);
      conjuncts.push_back(t.defined && t.value);
      m.solver.add(conjuncts.back());
    }
    auto start = std::chrono::steady_clock::now();
    z3::check_result cr = m.under_watchdog([&] { return m.solver.check(); }, &interrupted);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats_.seconds.push_back(r.seconds);
    switch (cr) {
      case z3::unsat: {
        r.status = Status::kUnsat;
        if (with_core) {
          std::optional<std::vector<std::string>> core = m.unsat_core_labels(conjuncts);
          if (core) {
            r.core = std::move(*core);
          } else {
            r.reason = "unsat, but naming a conflicting subset ran out of budget";
            cacheable = false;  // a later call may name it
          }
        }
        break;
      }
      case z3::sat: {
        Result c = m.confirm(m.solver.get_model(), query);
        c.seconds = r.seconds;
        r = c;
        break;
      }
      case z3::unknown:
        r.status = Status::kUnknown;
        // Interrupted by our watchdog, Z3's own reason depends on where the interrupt landed
        // ("canceled", "incomplete (theory ...)"): left out, so a replay gives the same message.
        r.reason = interrupted ? m.wall_clock_reason() : m.solver.reason_unknown();
        break;
    }
  } catch (const z3::exception& e) {
    r.status = Status::kError;
    r.reason = std::string("z3: ") + e.msg();
    m.solver_in_doubt = true;
  }
  // An interrupted check's unsat cannot be confirmed as a model can: not an answer.
  if (interrupted && r.status == Status::kUnsat) {
    r.status = Status::kUnknown;
    r.core.clear();
    r.reason = m.wall_clock_reason();
  }
  // A model that misses a fact is the same doubt, seen later.
  if (m.solver_in_doubt || r.status == Status::kError) {
    m.rebuild_solver();  // (without the query's push)
  } else {
    m.solver.pop();
  }
  if (r.status == Status::kUnsat && m.opts.cross_check_unsat) {
    ++stats_.cross_checked;
    std::string answer = run_cvc5(smtlib(query), m.opts.timeout_ms);
    if (answer != "unsat") {
      ++stats_.cross_check_failures;
      r.status = Status::kError;
      r.reason = "Z3 says unsat but cvc5 says: " + answer;
    }
  }
  switch (r.status) {
    case Status::kUnsat:
      ++stats_.unsat;
      break;
    case Status::kSat:
      ++stats_.sat;
      break;
    case Status::kUnknown:
      ++stats_.unknown;
      break;
    case Status::kError:
      ++stats_.error;
      break;
  }
  // Unknowns depend on timing; only deterministic answers are cached.
  if (cacheable && (r.status == Status::kUnsat || r.status == Status::kSat)) {
    m.cache.emplace(std::move(key), r);
  }
  return r;
}

std::string Session::smtlib(const std::vector<ExprRef>& query) {
  Impl& m = *impl_;
  z3::expr_vector all(m.ctx);
  for (const auto& scope : m.scopes) {
    for (const Fact& f : scope) {
      Term t = m.enc.encode(f.expr);
      all.push_back(t.defined && t.value);
    }
  }
  for (const ExprRef& q : query) {
    Term t = m.enc.encode(q);
    all.push_back(t.defined && t.value);
  }
  z3::expr conj = z3::mk_and(all);
  std::string body = Z3_benchmark_to_smtlib_string(m.ctx, "shapefuzz query", "ALL", "unknown", "",
                                                   0, nullptr, conj);
  return body;
}

}  // namespace sf::smt
