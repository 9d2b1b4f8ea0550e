// Sources are recomputed from the event arguments (a backed expression's value comes from the
// evaluator at the recorded hints), never from what evaluate_expr returned.
#include "oracles/tv_oracle.h"

#include <chrono>
#include <functional>
#include <initializer_list>
#include <limits>
#include <set>

#include "engine/sym/make.h"
#include "engine/sym/walk.h"
#include "oracles/smt/deadline.h"
#include "oracles/smt/facts.h"

namespace sf::oracles {

using sym::ExprRef;

namespace {

// A boolean expression's value at the trace-time values of its symbols (backed hints, real
// values recorded for unbacked symbols, sizes of unbacked inputs). When some symbol has no value,
// Z3 decides whether the expression is true (or false) for every value of the rest, given the
// sources known so far, as evaluate_expr may (Min(s0, 4*u0) <= 3 at s0 = 3); otherwise none.
// `against_hints` is set when the trace's assumptions so far decide the expression the other way
// than the complete trace values do (the engine then answered from them, not from hints).
std::optional<bool> at_hints(const ExprRef& e, const ShapeEnv& env,
                             const std::vector<smt::Fact>& sources,
                             const std::vector<smt::Fact>& premises, bool backed_hints_only,
                             bool replaced_by_then, const smt::Options& opts, smt::Stats& stats,
                             bool* against_hints) {
  auto value_at_trace = [&](const ExprRef& s) {
    std::optional<int64_t> h = env.symbols().hint(s);
    if (!h && !backed_hints_only) h = env.symbols().real_value(s);
    if (!h && !backed_hints_only) h = env.symbols().oblivious_hint(s);
    return h;
  };
  sym::Assignment a;
  bool complete = true;
  for (const ExprRef& s : sym::free_symbols(e)) {
    if (std::optional<int64_t> h = value_at_trace(s)) {
      a.emplace(s, sym::Concrete::of_int(*h));
    } else {
      complete = false;
    }
  }
  smt::Session& session = smt::Session::shared(opts);
  smt::Stats before = session.stats();
  if (complete) {
    sym::EvalResult r = sym::evaluate(e, a);
    if (!r.defined || r.value.type != sym::ExprType::kBool) return std::nullopt;
    bool at_trace = r.value.b;
    // The engine reads hints only when replacements, axioms and ranges leave the expression
    // open. When the trace's assumptions so far (premises aside: nothing obliges the program to
    // them) decide it the other way (hints that violate an assert: a squeeze's Ne(X, 1) at
    // inputs where X is 1), it answered from them without a guard.
    if (sources.empty()) return at_trace;
    {
      smt::Session::Scope scope(session);
      smt::assume_all(session, sources);
      *against_hints = session.entails(at_trace ? sym::not_(e) : e).status == smt::Status::kUnsat;
    }
    stats.add(session.stats().since(before));
    return *against_hints ? !at_trace : at_trace;
  }
  std::optional<bool> value;
  {
    smt::Session::Scope scope(session);
    // What was known by then counts. So do the trace-time values of symbols that an equality
    // ties in (the replacement u0 -> s0 from check(s0 == u0)): the ShapeEnv decides Eq(u0, 1)
    // by replacing u0 and reading s0's hint. Values reached through inequalities do not
    // count: the ShapeEnv cannot use them (guard_or_false then falls back, deciding nothing).
    // Nor do equalities it did not turn into replacements (a deferred Eq(u0, Max(0, 2 - s0))
    // whose replacement was declined because u0 is size-like): evaluate_expr reads hints only
    // when the replacements leave no unbacked symbol in the expression.
    // (`env` is the final state: a replacement made inside a fact scope is gone once it closed,
    // so `replaced_by_then` says whether the events so far replaced each unbacked symbol.)
    bool hints_through_replacements = !backed_hints_only || replaced_by_then ||
                                      sym::free_unbacked_symbols(env.replace(e)).empty();
    for (const std::vector<smt::Fact>* facts : {&sources, &premises}) {
      for (const smt::Fact& f : *facts) {
        session.assume(f.expr, f.label);
        if (!f.expr->is(sym::ExprKind::kEq) || !hints_through_replacements) continue;
        for (const ExprRef& s : sym::free_symbols(f.expr)) {
          if (s->is_float() || a.count(s)) continue;
          if (std::optional<int64_t> h = value_at_trace(s)) {
            a.emplace(s, sym::Concrete::of_int(*h));
          }
        }
      }
    }
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
  // True at trace time but possibly never relied on, so the compiled program need not enforce
  // them: premises for what was derived only.
  std::vector<smt::Fact>& premises;
  std::string where;
  bool& frozen;  // runtime asserts were frozen: lowering has begun
  // Symbols replaced by the events so far: a later replacement (a check after the evaluation)
  // did not make the engine read hints for an evaluation before it.
  std::set<ExprRef, sym::ExprLess>& replaced;
  // Inside a fact scope (a branch or body being traced): the top level's sources, which hold
  // there too (`out` then collects the scope's own).
  const std::vector<smt::Fact>* outer = nullptr;

  // What was assumed so far where this event happened.
  std::vector<smt::Fact> visible() const {
    if (!outer) return out;
    std::vector<smt::Fact> all = *outer;
    all.insert(all.end(), out.begin(), out.end());
    return all;
  }

  // An equality checked or guarded may install a replacement (maybe_guard_rel).
  void note_replacements(const ExprRef& e) {
    if (!e->is(sym::ExprKind::kEq)) return;
    for (const ExprRef& s : sym::free_unbacked_symbols(e)) replaced.insert(s);
  }
  void operator()(const event::GuardOrDeferRuntimeAssert& e) {
    note_replacements(e.expr);
    out.push_back({e.expr, where + "deferred " + e.expr->str() +
                               (e.msg.empty() ? "" : " ('" + e.msg + "')")});
  }
  void operator()(const event::FreezeRuntimeAsserts&) { frozen = true; }
  void operator()(const event::ConstrainRangeForSize& e) {
    // After the freeze (lowering re-runs extern meta functions), a range is the op's own claim
    // about its output (nonzero counts at most the elements it is given, now known to be fewer)
    // and no assert can carry it: a premise, not something the program must enforce.
    std::vector<smt::Fact>& dest = frozen ? premises : out;
    ExprRef lo = sym::integer(std::max<int64_t>(e.min.value_or(0), 0));
    dest.push_back({sym::le(lo, e.sym), where + "constrain_range_for_size " + e.sym->str()});
    // PyTorch passes sys.maxsize - 1 for "no upper bound"; ranges treat it as infinity.
    if (e.max && *e.max < std::numeric_limits<int64_t>::max() - 1) {
      int64_t hi = *e.max;
      // A re-propagation's fresh symbol renamed to a size-like one is that symbol, whose range
      // keeps no upper bound below 2 (INV-9b; upstream's _update_var_to_range): unique or
      // nonzero over one element allocates [0, 1], the old symbol stays [0, 2].
      ExprRef name = env.resolve_renaming(e.sym);
      if (hi < 2 && name != e.sym && env.is_size_like(name)) hi = 2;
      dest.push_back(
          {sym::le(e.sym, sym::integer(hi)), where + "constrain_range_for_size " + e.sym->str()});
    }
  }
  void operator()(const event::ConstrainSymbolRange& e) {
    // sys.maxsize - 1 bounds nothing (as for constrain_range_for_size): a merged cond output
    // takes the hull of its branches' ranges, which may end there.
    sym::ExtInt hi = e.max.is_finite() && e.max.value() >= std::numeric_limits<int64_t>::max() - 1
                         ? sym::ExtInt::pos_inf()
                         : e.max;
    for (smt::Fact& f : smt::range_facts(e.sym, sym::ValueRange::ints(e.min, hi))) {
      f.label = where + "constrain_symbol_range " + f.label;
      out.push_back(std::move(f));
    }
  }
  void operator()(const event::EvaluateExpr& e) {
    if (!e.expr->is_bool()) {
      // guard_int (an int parameter): the trace specialized the int to its trace-time value
      // (hints, or values observed for unbacked symbols); without one it raised instead.
      if (std::optional<int64_t> v = int_at_trace(e.expr)) {
        out.push_back({sym::eq(e.expr, sym::integer(*v)),
                       where + "specialized " + e.expr->str() + " == " + std::to_string(*v)});
      }
      return;
    }
    if (!e.fallback && !e.size_oblivious) note_replacements(e.expr);
    // A size-oblivious evaluation may take a size-like symbol to be >= 2, and guard_or_* may
    // fall back to a default: neither is a fact. They are sources only where backed hints (and
    // what was known, e.g. a replacement by a backed symbol) decide them, as they then guard.
    bool backed_only = e.size_oblivious || e.fallback.has_value();
    std::optional<bool> v;
    bool against_hints = false;
    if (e.hint && e.hint->get()->is(sym::ExprKind::kBoolConst) && !backed_only) {
      v = e.hint->get()->bool_value();
    } else {
      bool replaced_by_then = true;
      for (const ExprRef& s : sym::free_unbacked_symbols(e.expr)) {
        replaced_by_then = replaced_by_then && replaced.count(s);
      }
      v = at_hints(e.expr, env, visible(), premises, backed_only, replaced_by_then, opts, stats,
                   &against_hints);
    }
    if (!v) return;
    if (against_hints) {
      // Decided by the sources, not guarded: it follows from them, so it obliges the program to
      // nothing more (a premise for what was derived).
      premises.push_back({*v ? e.expr : sym::not_(e.expr),
                          where + "decided " + e.expr->str() + " == " + (*v ? "True" : "False") +
                              " by the assumptions so far, against the trace values"});
      return;
    }
    // With an unbacked symbol left after replacements, the engine reads no hint (spec §2.17):
    // it answers by static reasoning, the size-oblivious assumption or guard_or_*'s default,
    // unguarded; or static reasoning removes that symbol and it guards the backed rest, a guard
    // that needs this premise. Either way nothing obliges the program to enforce it (a
    // broadcast's guard_or_false(Eq(size, 1)) over s0*u0 is False at s0 = 3 for every u0, and 1
    // at s0 = 2, u0 = 1).
    bool unreplaced_then = false;
    for (const ExprRef& s : sym::free_unbacked_symbols(e.expr))
      unreplaced_then = unreplaced_then || !replaced.count(s);
    bool premise_only =
        backed_only && (unreplaced_then || sym::has_free_unbacked_symbols(env.replace(e.expr)));
    (premise_only ? premises : out)
        .push_back({*v ? e.expr : sym::not_(e.expr),
                    where + "guarded " + e.expr->str() + " == " + (*v ? "True" : "False")});
  }
  std::optional<int64_t> int_at_trace(const ExprRef& e) const {
    sym::Assignment a;
    for (const ExprRef& s : sym::free_symbols(e)) {
      std::optional<int64_t> h = env.symbols().hint(s);
      if (!h) h = env.symbols().real_value(s);
      if (!h) return std::nullopt;
      a.emplace(s, sym::Concrete::of_int(*h));
    }
    sym::EvalResult r = sym::evaluate(e, a);
    if (!r.defined || r.value.type != sym::ExprType::kInt) return std::nullopt;
    return r.value.i;
  }
  void operator()(const event::SetReplacement& e) {
    replaced.insert(e.sym);
    if (e.sym->is_float() != e.target->is_float()) return;
    out.push_back({sym::eq(e.sym, e.target), where + "set_replacement " + e.sym->str()});
  }
  void operator()(const event::RenameUnbackedTo& e) {
    replaced.insert(e.orig);
    out.push_back({sym::eq(e.orig, e.dest), where + "rename " + e.orig->str()});
  }
  void operator()(const event::EliminateUnbacked& e) {
    replaced.insert(e.orig);
    out.push_back({sym::eq(e.orig, e.dest), where + "eliminate " + e.orig->str()});
  }
  template <typename T>
  void operator()(const T&) {}
};

// What the compiled program enforces on every run it completes; `nested`: also the asserts of
// its cond branches and loop bodies (which hold where those run).
std::vector<smt::Fact> targets(const ShapeEnv& env, const graph::Graph& g, bool nested) {
  std::vector<smt::Fact> out;
  for (const ShapeGuard& gd : env.assertions().guards()) {
    out.push_back({gd.expr, "guard " + gd.expr->str()});
  }
  for (const auto& [s, r] : env.range_table().ranges()) {
    if (!s->is_backed_symbol()) continue;  // input sizes: checked when inputs are bound
    for (smt::Fact& f : smt::range_facts(s, r)) out.push_back(std::move(f));
  }
  // A replacement is no check: the program uses the target in place of the symbol, and a
  // runtime value that differs goes unnoticed unless a guard or an assert says otherwise. So
  // replacements are sources, not targets, except the identities that hold by construction:
  // renamings and eliminations (two names of one runtime value) and the definition of a
  // divisibility symbol (u0 = d*u1 binds u1 as u0 // d).
  for (const auto& [orig, dest] : env.unbacked_renamings()) {
    out.push_back({sym::eq(orig, dest), "renaming " + orig->str() + " -> " + dest->str()});
  }
  const auto& reasons = env.replacement_table().reasons();
  for (const auto& [s, tgt] : env.replacement_table().entries()) {
    auto why = reasons.find(s);
    if (why == reasons.end() || s->is_float() != tgt->is_float()) continue;
    if (why->second.rfind("rename_unbacked_to", 0) == 0 ||
        why->second.rfind("eliminate_unbacked", 0) == 0) {
      out.push_back({sym::eq(s, tgt),
                     "replacement " + s->str() + " -> " + tgt->str() + " (" + why->second + ")"});
    } else if (why->second == "divisibility" && tgt->is(sym::ExprKind::kMul) &&
               tgt->num_args() == 2 && tgt->arg(0)->is(sym::ExprKind::kInteger) &&
               tgt->arg(1)->is(sym::ExprKind::kSymbol)) {
      // u0 -> d*u1: the plan binds u1 as u0 // d (the assert Mod(u0, d) == 0 is separate).
      out.push_back({sym::eq(tgt->arg(1), sym::floordiv(s, tgt->arg(0))),
                     "divisibility symbol " + tgt->arg(1)->str()});
    }
  }
  // The top-level graph's nodes, or (nested) its subgraphs' too.
  auto for_each_node = [&](const std::function<void(const graph::Node*)>& fn) {
    if (nested) {
      g.for_each_nested(fn);
    } else {
      for (const graph::Node* n : g.nodes()) fn(n);
    }
  };
  // A divisibility factor's binding site computes it: i1 = i0 // d (in a subgraph too, where the
  // replacement i0 -> d*i1 does not outlive the subgraph's fact scope).
  for_each_node([&](const graph::Node* n) {
    if (!n->derived_binding || n->args.size() != 2 ||
        n->args[0].kind != graph::NodeArg::Kind::kNode)
      return;
    ExprRef i0 = n->args[0].node->value.expr(), d = sym::integer(n->args[1].i);
    out.push_back({sym::eq(n->value.expr(), sym::floordiv(i0, d)),
                   "divisibility symbol " + n->value.expr()->str() + " (node %" + n->name + ")"});
  });
  // Asserts inside a cond branch or loop body are checked only when it runs, as the trace's
  // assumptions recorded while tracing it hold only then: both are taken unconditionally there.
  for_each_node([&](const graph::Node* n) {
    if (n->assert_expr &&
        (n->kind == graph::NodeKind::kAssertScalar || n->kind == graph::NodeKind::kCheck)) {
      out.push_back({n->assert_expr, "graph assert %" + n->name + " " + n->assert_expr->str()});
    }
  });
  return out;
}

// Whether the compiled program has a value for every unbacked symbol of `e`: bound by a node of
// the final graph (through its renaming), or replaced by symbols that are. A trace assumption
// about a symbol whose binding site was dead code (u2 >= 0 for a DCE'd nonzero) constrains
// nothing the program computes, so it cannot have been dropped.
bool all_symbols_live(const ExprRef& e, const ShapeEnv& env,
                      const std::set<ExprRef, sym::ExprLess>& bound) {
  for (const ExprRef& s : sym::free_symbols(e)) {
    if (!s->is_unbacked_symbol() || bound.count(env.resolve_renaming(s))) continue;
    ExprRef r = env.replace(s);
    if (r == s) return false;
    for (const ExprRef& t : sym::free_unbacked_symbols(r)) {
      if (!bound.count(env.resolve_renaming(t))) return false;
    }
  }
  return true;
}

}  // namespace

OracleReport check_translation(const ShapeEnv& env, const graph::Graph& final_graph,
                               const smt::Options& opts,
                               const std::map<ExprRef, ExprRef, sym::ExprLess>& constants) {
  auto start = std::chrono::steady_clock::now();
  OracleReport report;
  report.name = "tv";
  report.ran = true;
  // Sources recorded inside a fact scope hold only where its subgraph runs (spec §6.6): they
  // oblige the subgraphs' asserts, and justify no fact the caller keeps.
  std::vector<smt::Fact> sources, premises, scoped, scoped_premises;
  bool frozen = false;
  int depth = 0;
  std::set<ExprRef, sym::ExprLess> replaced;
  const EventLog& log = env.events();
  for (size_t i = 0; i < log.size(); ++i) {
    if (log[i].outcome.kind != EventOutcome::Kind::kOk) continue;
    if (std::holds_alternative<event::PushFactScope>(log[i].call)) ++depth;
    if (std::holds_alternative<event::PopFactScope>(log[i].call)) --depth;
    SourceCollector collect{
        env,
        opts,
        report.smt,
        depth > 0 ? scoped : sources,
        depth > 0 ? scoped_premises : premises,
        "event " + std::to_string(i) + (depth > 0 ? " (in a subgraph): " : ": "),
        frozen,
        replaced};
    if (depth > 0) collect.outer = &sources;
    std::visit(collect, log[i].call);
  }
  std::set<ExprRef, sym::ExprLess> bound;
  final_graph.for_each_nested([&](const graph::Node* n) {
    for (const auto& [s, path] : n->unbacked_bindings) bound.insert(env.resolve_renaming(s));
    for (const auto& [s, path] : n->input_bindings) bound.insert(env.resolve_renaming(s));
  });
  // A symbol re-propagation made a constant is that constant in the compiled program: its
  // binding site computes the number (a nonzero of an input a later check emptied), so a
  // trace assumption about it holds or fails with the number, not for every value.
  auto with_constants = [&](const ExprRef& e) {
    if (constants.empty()) return e;
    return sym::substitute_symbols(e, [&](const ExprRef& x) -> ExprRef {
      auto c = constants.find(env.resolve_renaming(x));
      return c == constants.end() ? ExprRef() : c->second;
    });
  };
  // Nothing dropped: what the program enforces implies every assumption of the trace. The top
  // level's are enforced by the top-level graph alone (a subgraph's asserts run only where it
  // does); a subgraph's by anything (taken unconditionally: a sound over-approximation).
  auto judge_dropped = [&](const std::vector<smt::Fact>& assumed, bool nested) {
    smt::Session& session = smt::Session::shared(opts);
    smt::Stats before = session.stats();
    smt::Session::Scope scope(session);
    smt::assume_all(session, targets(env, final_graph, nested));
    for (const smt::Fact& source : assumed) {
      if (smt::deadline_passed()) break;  // undecided: the pipeline says so
      smt::Fact s{with_constants(source.expr), source.label};
      if (s.expr != source.expr) {
        s.label += "; stated as " + source.expr->str() +
                   " before re-propagation made its symbols constants";
      }
      if (!all_symbols_live(s.expr, env, bound)) continue;
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
  };
  judge_dropped(sources, false);
  judge_dropped(scoped, true);
  // Nothing made up: each derived assert and guard follows from the sources and ranges. The
  // caller's deferred asserts from the top level's sources only; the guards (which may read a
  // branch's facts: a recompile condition, never a wrong answer) and the subgraphs' asserts
  // from every source.
  {
    smt::Session& session = smt::Session::shared(opts);
    smt::Stats before = session.stats();
    smt::Session::Scope scope(session);
    smt::assume_all(session, sources);
    smt::assume_all(session, premises);
    for (const auto& [s, r] : env.range_table().ranges()) {
      smt::assume_all(session, smt::range_facts(s, r));
    }
    auto judge_derived = [&](const smt::Fact& d) {
      if (smt::deadline_passed()) return;
      smt::Result r = session.entails(d.expr);
      if (r.status == smt::Status::kSat) {
        report.violations.push_back({"tv", d.label + " " + d.expr->str() +
                                               " does not follow from what the trace assumed "
                                               "(counterexample " +
                                               r.model_str() + ")"});
      } else if (r.status != smt::Status::kUnsat) {
        report.undecided("derived " + d.label + " " + d.expr->str(), r);
      }
    };
    for (const auto& [key, ras] : env.assertions().deferred()) {
      for (const RuntimeAssert& ra : ras) judge_derived({ra.expr, "deferred assert"});
    }
    smt::Session::Scope in_subgraphs(session);
    smt::assume_all(session, scoped);
    smt::assume_all(session, scoped_premises);
    for (const ShapeGuard& g : env.assertions().guards()) judge_derived({g.expr, "guard"});
    std::set<const graph::Graph*> judged;  // a region shared by several calls, once
    final_graph.for_each_nested([&](const graph::Node* n) {
      for (const auto& sub : n->subgraphs) {
        if (!judged.insert(sub.get()).second) continue;
        for (const RuntimeAssert& ra : sub->scoped_asserts)
          judge_derived({ra.expr, "subgraph assert ('" + ra.msg + "')"});
      }
    });
    report.smt.add(session.stats().since(before));
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace sf::oracles
