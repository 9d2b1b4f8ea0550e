// Sources are recomputed from the event arguments (a backed expression's value comes from the
// evaluator at the recorded hints), never from what evaluate_expr returned.
#include "oracles/tv_oracle.h"

#include <chrono>
#include <limits>

#include "engine/sym/make.h"
#include "engine/sym/walk.h"
#include "oracles/smt/facts.h"

namespace sf::oracles {

using sym::ExprRef;

namespace {

// A boolean expression's value at the trace-time values of its symbols (backed hints, real
// values recorded for unbacked symbols, sizes of unbacked inputs). When some symbol has no value,
// Z3 decides whether the expression is true (or false) for every value of the rest, as
// evaluate_expr may (Min(s0, 4*u0) <= 3 at s0 = 3); otherwise none.
std::optional<bool> at_hints(const ExprRef& e, const ShapeEnv& env, const smt::Options& opts,
                             smt::Stats& stats) {
  sym::Assignment a;
  bool complete = true;
  for (const ExprRef& s : sym::free_symbols(e)) {
    std::optional<int64_t> h = env.symbols().hint(s);
    if (!h) h = env.symbols().real_value(s);
    if (!h) h = env.symbols().oblivious_hint(s);
    if (h) {
      a.emplace(s, sym::Concrete::of_int(*h));
    } else {
      complete = false;
    }
  }
  if (complete) {
    sym::EvalResult r = sym::evaluate(e, a);
    if (!r.defined || r.value.type != sym::ExprType::kBool) return std::nullopt;
    return r.value.b;
  }
  smt::Session& session = smt::Session::shared(opts);
  smt::Stats before = session.stats();
  std::optional<bool> value;
  {
    smt::Session::Scope scope(session);
    for (const auto& [s, v] : a) session.assume(sym::eq(s, sym::integer(v.i)), "value at trace");
    if (session.entails(e).status == smt::Status::kUnsat) {
      value = true;
    } else if (session.entails(sym::not_(e)).status == smt::Status::kUnsat) {
      value = false;
    }
  }
  stats.add(session.stats().since(before));
  return value;
}

struct SourceCollector {
  const ShapeEnv& env;
  const smt::Options& opts;
  smt::Stats& stats;
  std::vector<smt::Fact>& out;
  std::string where;

  void operator()(const event::GuardOrDeferRuntimeAssert& e) {
    out.push_back({e.expr, where + "deferred " + e.expr->str() +
                               (e.msg.empty() ? "" : " ('" + e.msg + "')")});
  }
  void operator()(const event::ConstrainRangeForSize& e) {
    ExprRef lo = sym::integer(std::max<int64_t>(e.min.value_or(0), 0));
    out.push_back({sym::le(lo, e.sym), where + "constrain_range_for_size " + e.sym->str()});
    // PyTorch passes sys.maxsize - 1 for "no upper bound"; ranges treat it as infinity.
    if (e.max && *e.max < std::numeric_limits<int64_t>::max() - 1) {
      out.push_back({sym::le(e.sym, sym::integer(*e.max)),
                     where + "constrain_range_for_size " + e.sym->str()});
    }
  }
  void operator()(const event::ConstrainSymbolRange& e) {
    for (smt::Fact& f : smt::range_facts(e.sym, sym::ValueRange::ints(e.min, e.max))) {
      f.label = where + "constrain_symbol_range " + f.label;
      out.push_back(std::move(f));
    }
  }
  void operator()(const event::EvaluateExpr& e) {
    if (e.size_oblivious || e.fallback || !e.expr->is_bool()) return;
    std::optional<bool> v;
    if (e.hint && e.hint->get()->is(sym::ExprKind::kBoolConst)) {
      v = e.hint->get()->bool_value();
    } else {
      v = at_hints(e.expr, env, opts, stats);
    }
    if (!v) return;
    out.push_back({*v ? e.expr : sym::not_(e.expr),
                   where + "guarded " + e.expr->str() + " == " + (*v ? "True" : "False")});
  }
  void operator()(const event::SetReplacement& e) {
    if (e.sym->is_float() != e.target->is_float()) return;
    out.push_back({sym::eq(e.sym, e.target), where + "set_replacement " + e.sym->str()});
  }
  void operator()(const event::RenameUnbackedTo& e) {
    out.push_back({sym::eq(e.orig, e.dest), where + "rename " + e.orig->str()});
  }
  void operator()(const event::EliminateUnbacked& e) {
    out.push_back({sym::eq(e.orig, e.dest), where + "eliminate " + e.orig->str()});
  }
  template <typename T>
  void operator()(const T&) {}
};

// What the compiled program enforces on every run it completes.
std::vector<smt::Fact> targets(const ShapeEnv& env, const graph::Graph& g) {
  std::vector<smt::Fact> out;
  for (const ShapeGuard& gd : env.assertions().guards()) {
    out.push_back({gd.expr, "guard " + gd.expr->str()});
  }
  for (const auto& [s, r] : env.range_table().ranges()) {
    if (!s->is_backed_symbol()) continue;  // input sizes: checked when inputs are bound
    for (smt::Fact& f : smt::range_facts(s, r)) out.push_back(std::move(f));
  }
  for (const auto& [s, tgt] : env.replacement_table().entries()) {
    if (s->is_float() != tgt->is_float()) continue;
    out.push_back({sym::eq(s, tgt), "replacement " + s->str() + " -> " + tgt->str()});
  }
  for (const graph::Node* n : g.nodes()) {
    if (n->assert_expr &&
        (n->kind == graph::NodeKind::kAssertScalar || n->kind == graph::NodeKind::kCheck)) {
      out.push_back({n->assert_expr, "graph assert %" + n->name + " " + n->assert_expr->str()});
    }
  }
  return out;
}

}  // namespace

OracleReport check_translation(const ShapeEnv& env, const graph::Graph& final_graph,
                               const smt::Options& opts) {
  auto start = std::chrono::steady_clock::now();
  OracleReport report;
  report.name = "tv";
  report.ran = true;
  std::vector<smt::Fact> sources;
  const EventLog& log = env.events();
  for (size_t i = 0; i < log.size(); ++i) {
    if (log[i].outcome.kind != EventOutcome::Kind::kOk) continue;
    std::visit(SourceCollector{env, opts, report.smt, sources, "event " + std::to_string(i) + ": "},
               log[i].call);
  }
  // Nothing dropped: what the program enforces implies every assumption of the trace.
  {
    smt::Session& session = smt::Session::shared(opts);
    smt::Stats before = session.stats();
    smt::Session::Scope scope(session);
    smt::assume_all(session, targets(env, final_graph));
    for (const smt::Fact& s : sources) {
      smt::Result r = session.entails(s.expr);
      if (r.status == smt::Status::kSat) {
        report.violations.push_back(
            {"tv", "the trace assumed " + s.expr->str() + " (" + s.label +
                       ") but nothing the compiled program checks implies it; a run with " +
                       r.model_str() + " passes every check"});
      } else if (r.status != smt::Status::kUnsat) {
        report.undecided("dropped " + s.label, r);
      }
    }
    report.smt.add(session.stats().since(before));
  }
  // Nothing made up: each derived assert and guard follows from the sources and ranges.
  {
    smt::Session& session = smt::Session::shared(opts);
    smt::Stats before = session.stats();
    smt::Session::Scope scope(session);
    smt::assume_all(session, sources);
    for (const auto& [s, r] : env.range_table().ranges()) {
      smt::assume_all(session, smt::range_facts(s, r));
    }
    std::vector<smt::Fact> derived;
    for (const auto& [key, ras] : env.assertions().deferred()) {
      for (const RuntimeAssert& ra : ras) derived.push_back({ra.expr, "deferred assert"});
    }
    for (const ShapeGuard& g : env.assertions().guards()) derived.push_back({g.expr, "guard"});
    for (const smt::Fact& d : derived) {
      smt::Result r = session.entails(d.expr);
      if (r.status == smt::Status::kSat) {
        report.violations.push_back({"tv", d.label + " " + d.expr->str() +
                                               " does not follow from what the trace assumed "
                                               "(counterexample " +
                                               r.model_str() + ")"});
      } else if (r.status != smt::Status::kUnsat) {
        report.undecided("derived " + d.label + " " + d.expr->str(), r);
      }
    }
    report.smt.add(session.stats().since(before));
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace sf::oracles
