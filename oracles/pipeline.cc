// The structural oracles as stage observers (they stop the pipeline on a violation), and the
// verdict: user errors become rejections, engine bugs and violations failures, and a completed
// run is compared with eager (the compiled program must raise exactly when eager does).
#include "oracles/pipeline.h"

#include <chrono>
#include <functional>
#include <set>

#include "engine/base/faults.h"
#include "engine/fake/meta/meta.h"
#include "engine/program/run_limits.h"
#include "engine/sym/make.h"
#include "engine/sym/walk.h"
#include "oracles/binding_oracle.h"
#include "oracles/differential.h"
#include "oracles/invariants/graph_invariants.h"
#include "oracles/memo_oracle.h"
#include "oracles/rename_oracle.h"
#include "oracles/smt/deadline.h"
#include "oracles/smt/facts.h"
#include "oracles/trace_rejection.h"
#include "oracles/tv_oracle.h"

namespace sf::oracles {

namespace {

using compile::Next;
using compile::Stage;
using compile::StageError;
using compile::StageProducts;

void append(std::vector<Violation>& out, std::vector<Violation> more) {
  out.insert(out.end(), more.begin(), more.end());
}

// Registers the spec §8 structural checkers. Violations after tracing stop the pipeline at once
// (later stages would build on a broken trace); those after re-propagation are collected and
// reported once the graph is final.
class StructuralOracles {
 public:
  // `constantified`: filled by the pipeline's own observer at re-propagation, before this one.
  StructuralOracles(Verdict& verdict, OracleReport& report, const Constantified& constantified)
      : verdict_(verdict), report_(report), constantified_(constantified) {
    report_.name = "structural";
  }

  void register_with(compile::Pipeline& pl) {
    pl.observe(Stage::kTrace, timed([this](const StageProducts& s) { return after_trace(s); }));
    pl.observe(Stage::kRepropagate,
               timed([this](const StageProducts& s) { return after_repropagate(s); }));
    pl.observe(Stage::kDce, timed([this](const StageProducts& s) { return after_dce(s); }));
  }

 private:
  Next after_trace(const StageProducts& s) {
    traced_ = SymbolWindow::all(s.env());
    append(vs_, check_state(s.env()));
    append(vs_, check_bindings(s.trace->graph, s.env(), traced_));
    append(vs_, check_def_before_use(s.trace->graph, s.env()));
    return stop_if_violated("invariants violated after tracing");
  }

  Next after_repropagate(const StageProducts& s) {
    SymbolWindow fresh = SymbolWindow::all(s.env());
    fresh.first_int = traced_.end_int;
    fresh.first_float = traced_.end_float;
    append(vs_, check_bindings(*s.graph, s.env(), fresh));
    append(vs_, check_retrace_rebinding(s.trace->graph, *s.graph, s.env()));
    append(vs_, check_refakified_inputs(s.trace->graph, *s.graph));
    append(vs_, check_state(s.env()));
    return Next::kContinue;
  }

  Next after_dce(const StageProducts& s) {
    append(vs_, check_def_before_use(*s.graph, s.env()));
    append(vs_, check_replay(s.env()));
    append(vs_, check_fact_scopes(s.env()));
    append(vs_, check_simplify_cache(s.env()));
    for (const RuntimeAssert& ra : s.asserts.unplaced) {
      // A trace assumption about a value re-propagation made a constant (its binding site now
      // computes a number, so nothing binds the symbol) is stale, not lost: the re-propagated
      // nodes re-derived what they assume about that constant, as upstream, which leaves such
      // asserts in their bucket.
      if (mentions_constantified(s.env(), ra.expr)) continue;
      vs_.push_back({"INV-6", "deferred assert " + ra.expr->str() + " (" + ra.msg +
                                  ") mentions a symbol no node binds; it would never be checked"});
    }
    return stop_if_violated("invariants violated");
  }

  bool mentions_constantified(const ShapeEnv& env, const ExprRef& e) const {
    for (const ExprRef& x : sym::free_unbacked_symbols(e)) {
      if (constantified_.count(env.resolve_renaming(x))) return true;
    }
    return false;
  }

  Next stop_if_violated(const std::string& what) {
    report_.violations = vs_;
    if (vs_.empty()) return Next::kContinue;
    verdict_ = Verdict::fail("oracles", what, vs_);
    return Next::kStop;
  }

  template <typename F>
  compile::StageObserver timed(F f) {
    return [this, f](const StageProducts& s) {
      report_.ran = true;
      auto start = std::chrono::steady_clock::now();
      Next n = f(s);
      report_.seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return n;
    };
  }

  Verdict& verdict_;
  OracleReport& report_;
  SymbolWindow traced_;
  const Constantified& constantified_;  // traced symbols re-propagation made constants
  std::vector<Violation> vs_;
};

// The verdict for a stage that raised, or none when the differential decides (a user error of the
// run). Only tracing and running may reject a program: a user error while re-propagating,
// inserting asserts or lowering a graph the trace accepted is a bug (re-propagation's exceptions
// are decided before, by repropagation_rejection).
std::optional<Verdict> verdict_for_error(const StageError& e) {
  std::string stage = compile::stage_name(e.stage);
  switch (e.channel) {
    case StageError::Channel::kEngineBug:
      return Verdict::fail(stage, e.message);
    case StageError::Channel::kUnavailable:
      return Verdict::fail(stage, "unavailable: " + e.message);
    case StageError::Channel::kUser:
      break;
  }
  switch (e.stage) {
    case Stage::kTrace:
      return Verdict::rejected(*e.user_kind, stage, e.message);
    case Stage::kRun:
      if (*e.user_kind == UserErrorKind::kGuardFailed) {
        return Verdict::fail(stage,
                             "a guard fails on the very inputs it was traced for: " + e.message);
      }
      return std::nullopt;
    case Stage::kRepropagate:
    case Stage::kRuntimeAsserts:
    case Stage::kDce:
    case Stage::kLower:
      return Verdict::fail(stage,
                           "user error on a graph the trace accepted: " + e.user_error().str());
  }
  return Verdict::fail(stage, e.message);
}

// Whether the trace recorded an assumption of unbacked semantics relating two sizes (a
// broadcast's Eq(u0, u1)) as a runtime assert: one that can narrow the range of the other.
bool has_implicit_relation(const PipelineResult& r) {
  if (!r.trace) return false;
  for (const auto& [key, asserts] : r.trace->env->deferred_runtime_asserts()) {
    for (const RuntimeAssert& a : asserts) {
      if (a.msg.find(fake::kImplicitAssertTag) != std::string::npos &&
          sym::free_symbols(a.expr).size() >= 2) {
        return true;
      }
    }
  }
  return false;
}

// Whether graph `g` (or a subgraph of it) has a call of `op` from program line `line`.
bool has_call_at(const graph::Graph& g, int line, const std::string& op) {
  for (const graph::Node* n : g.nodes()) {
    if (n->kind == graph::NodeKind::kCall && n->line == line && program::op_name(n->op) == op) {
      return true;
    }
    for (const auto& sub : n->subgraphs) {
      if (has_call_at(*sub, line, op)) return true;
    }
  }
  return false;
}

// Eager raised on data ("line N: op: ...": an index out of range, a bad value, a division by
// zero) in a call the trace recorded and DCE then removed: its result is used nowhere, so the
// compiled program never runs it, as PyTorch's compiled graphs drop dead pure ops.
bool raised_in_dead_code(const PipelineResult& r) {
  const UserErrorInfo& e = *r.eager_error;
  if (e.kind != UserErrorKind::kIndex && e.kind != UserErrorKind::kValue &&
      e.kind != UserErrorKind::kZeroDivision) {
    return false;
  }
  if (!r.trace || !r.final_graph || e.message.rfind("line ", 0) != 0) return false;
  size_t colon = e.message.find(": ");
  size_t op_end = colon == std::string::npos ? colon : e.message.find(": ", colon + 2);
  if (op_end == std::string::npos) return false;
  int line = std::atoi(e.message.c_str() + 5);
  std::string op = e.message.substr(colon + 2, op_end - colon - 2);
  return has_call_at(r.trace->graph, line, op) && !has_call_at(*r.final_graph, line, op);
}

// The compiled program must raise exactly when eager does, and otherwise agree on every output.
Verdict differential(const PipelineResult& r, const std::string& backend) {
  if (!r.eager && !r.run) {
    return Verdict::rejected(r.eager_error->kind, "eager+" + backend,
                             r.eager_error->message + " | compiled: " + r.run_error->message);
  }
  if (!r.eager && r.eager_error->kind == UserErrorKind::kTooComplex &&
      r.eager_error->message.find(program::kLoopBudgetMessage) == std::string::npos) {
    // The reference refused to compute (one of eager's resource limits: its nesting depth, the
    // elements of a view the compiled program never materializes), which is no disagreement:
    // nothing is known about what it would have returned. The loop budget is the plan's too:
    // a compiled program that ran past it disagrees. (A wrong size the compiled program
    // computed instead is the binding oracle's to find: it still judges this run.)
    return Verdict::rejected(r.eager_error->kind, "eager",
                             r.eager_error->message +
                                 " (a limit of the reference; the compiled "
                                 "program on " +
                                 backend + " ran)");
  }
  if (!r.eager && raised_in_dead_code(r)) {
    return Verdict::rejected(
        r.eager_error->kind, "eager",
        r.eager_error->message +
            " (in dead code: the compiled program drops the call, as PyTorch's "
            "compiled graphs do)");
  }
  if (!r.eager) {
    return Verdict::fail("differential", "eager raised (" + r.eager_error->str() +
                                             ") but the compiled program on " + backend +
                                             " returned normally");
  }
  if (!r.run && r.run_error->kind == UserErrorKind::kRuntimeAssertFailed) {
    // An assumption of unbacked semantics (e.g. no broadcasting of an unbacked size) that these
    // inputs violate: like PyTorch, the compiled program raises where eager does not.
    if (r.run_error->message.find(fake::kImplicitAssertTag) != std::string::npos) {
      return Verdict::rejected(r.run_error->kind, backend, r.run_error->message);
    }
    // Such an assumption may also narrow a range (Eq(u0, u1) with u1 <= 2 bounds u0), whose
    // assert then fails first: explained when eager made a size the trace assumed away. (An
    // assumption over one size narrows nothing the run would not check itself.)
    std::optional<std::string> why =
        has_implicit_relation(r) ? size_oblivious_rule(r.eager->trail) : std::nullopt;
    if (why) {
      return Verdict::rejected(r.run_error->kind, backend,
                               r.run_error->message + " [explained: " + *why + "]");
    }
  }
  if (!r.run) {
    return Verdict::fail("differential", "the compiled program on " + backend + " raised (" +
                                             r.run_error->str() + ") but eager returned normally");
  }
  if (auto diff = compare_values(r.eager->outputs, r.run->outputs)) {
    return Verdict::fail("differential", "eager vs " + backend + ": " + *diff);
  }
  return Verdict::pass();
}

// Runs one oracle; a user error while it builds its queries (e.g. an integer overflow folding a
// constant) makes it undecided, never a pass and never an escaped exception.
// Each runs under its per-program deadline: when that passes before it finishes, what it did not
// judge makes it undecided (a violation it found before still decides).
OracleReport guarded(const char* name, unsigned deadline_ms,
                     const std::function<OracleReport()>& oracle) {
  smt::DeadlineScope deadline{std::chrono::milliseconds(deadline_ms)};
  OracleReport rep;
  try {
    rep = oracle();
  } catch (const UserError& e) {
    rep.name = name;
    rep.ran = true;
    rep.inconclusive.push_back(std::string("could not state its queries: ") +
                               user_error_kind_name(e.kind()) + ": " + e.what());
  }
  if (deadline.passed()) {
    rep.inconclusive.push_back("its per-program deadline of " + std::to_string(deadline_ms) +
                               " ms passed before it finished (--oracle-deadline-ms)");
  }
  return rep;
}

// The Z3 oracles on the final products (they need the whole trace, the final graph and the
// run). The first that finds a violation decides; otherwise an undecided query makes the verdict
// inconclusive instead of a pass.
void run_solver_oracles(const program::Program& p, const PipelineOptions& opts, PipelineResult& r) {
  if (!r.trace) return;
  const ShapeEnv& env = *r.trace->env;
  const graph::Graph* final_graph = r.final_graph ? &*r.final_graph : nullptr;
  const OracleSet& set = opts.oracles;
  if (set.has(OracleKind::kBinding)) {
    if (final_graph && r.run) {
      r.reports.push_back(guarded("binding", opts.oracle_deadline_ms, [&] {
        return check_binding(env, *final_graph, *r.run, opts.smt);
      }));
    } else {
      r.reports.push_back(OracleReport{"binding"});
    }
  }
  if (set.has(OracleKind::kRename)) {
    // Judged before lowering already (run_pipeline); again only if lowering renamed since.
    r.reports.push_back(env.events().size() == r.renames_judged_at
                            ? std::move(r.early_rename)
                            : guarded("rename", opts.oracle_deadline_ms,
                                      [&] { return check_renames(env, opts.smt); }));
  }
  if (set.has(OracleKind::kMemo)) {
    MemoInputs in;
    in.env = &env;
    in.traced = opts.repropagate ? &r.trace->graph : final_graph;
    in.final_graph = final_graph;
    in.plan = r.plan ? &*r.plan : nullptr;
    in.run = r.run ? &*r.run : nullptr;
    in.inference_mode = p.header.inference_mode;
    if (!in.traced) in.env = nullptr;
    r.reports.push_back(
        guarded("memo", opts.oracle_deadline_ms, [&] { return check_memo(in, opts.smt); }));
  }
  if (set.has(OracleKind::kTv)) {
    r.reports.push_back(final_graph ? guarded("tv", opts.oracle_deadline_ms,
                                              [&] {
                                                return check_translation(env, *final_graph,
                                                                         opts.smt, r.constantified);
                                              })
                                    : OracleReport{"tv"});
  }
  for (const OracleReport& rep : r.reports) {
    if (rep.outcome() == OracleReport::Outcome::kFail) {
      r.verdict =
          Verdict::fail("oracles", "the " + rep.name + " oracle found a violation", rep.violations);
      return;
    }
  }
  if (r.verdict.kind != Verdict::Kind::kPass) return;
  for (const OracleReport& rep : r.reports) {
    if (rep.outcome() == OracleReport::Outcome::kInconclusive) {
      r.verdict = Verdict::inconclusive(rep.name, rep.inconclusive.front());
      return;
    }
  }
}

// What the trace's subgraphs assumed, as facts of their caller: a compiled region's deferred
// asserts (invoke_subgraph, also a cond whose predicate is a constant) hold whenever the path to
// it runs, a cond branch's where its predicate selects it; `path` is that condition (null: always).
// Loop, scan and map bodies may run zero times: their asserts are left out.
void add_subgraph_facts(const graph::Graph& g, const ExprRef& path, std::vector<smt::Fact>& out,
                        std::set<const graph::Graph*>& seen) {
  auto add_graph = [&](const graph::Graph& sub, const ExprRef& when, const std::string& where) {
    if (!seen.insert(&sub).second) return;
    for (const RuntimeAssert& a : sub.scoped_asserts) {
      ExprRef fact = when ? sym::or_(sym::not_(when), a.expr) : a.expr;
      out.push_back(smt::Fact{fact, "assert in " + where + ": " + a.msg});
    }
    add_subgraph_facts(sub, when, out, seen);
  };
  for (const graph::Node* n : g.nodes()) {
    if (n->kind == graph::NodeKind::kInvokeSubgraph && !n->subgraphs.empty()) {
      add_graph(*n->subgraphs[0], path, "region %" + n->name);
    }
    if (n->kind != graph::NodeKind::kCond || n->subgraphs.size() != 2) continue;
    const graph::NodeArg& pred = n->args.at(0);
    if (pred.kind != graph::NodeArg::Kind::kNode || pred.node->value.kind() != Value::Kind::kBool)
      continue;
    ExprRef p = pred.node->value.expr();
    ExprRef taken[2] = {p, sym::not_(p)};
    for (int b = 0; b < 2; ++b) {
      ExprRef when = path ? sym::and_(path, taken[b]) : taken[b];
      add_graph(*n->subgraphs[b], when, std::string(b ? "else" : "then") + " of %" + n->name);
    }
  }
}

// Re-propagation evaluates every node with the facts of the whole trace, checks after the node
// included, so it can decide what the trace could not: a later check can empty a nonzero's input
// (its value becomes the constant 0) or settle a broadcast the other way, and an assumption the
// trace made about that node is then statically false. PyTorch's AOT retrace raises there too.
// That is a rejection when these inputs fail the program anyway (eager raises) or when no input
// can satisfy everything the trace assumed (the ShapeEnv's facts are unsatisfiable: the compiled
// program would fail a runtime assert on every input; a subgraph's asserts count where it runs).
// Otherwise re-propagation contradicts a trace that some run satisfies: no verdict here, the
// caller calls it a FAIL.
std::optional<Verdict> repropagation_rejection(const StageError& e, const PipelineResult& r,
                                               const smt::Options& smt_opts) {
  std::string stage = compile::stage_name(e.stage);
  if (!r.eager) return Verdict::rejected(*e.user_kind, stage, e.message);
  if (!r.trace) return std::nullopt;
  smt::Result facts;
  try {
    smt::Session& session = smt::Session::shared(smt_opts);
    smt::Session::Scope scope(session);
    std::vector<smt::Fact> all = smt::env_facts(*r.trace->env);
    std::set<const graph::Graph*> seen;
    add_subgraph_facts(r.trace->graph, nullptr, all, seen);
    smt::assume_all(session, all);
    facts = session.check();
  } catch (const UserError& ue) {
    facts.status = smt::Status::kError;
    facts.reason = ue.what();
  }
  switch (facts.status) {
    case smt::Status::kUnsat: {
      std::string core;
      for (const std::string& c : facts.core) core += (core.empty() ? "" : "; ") + c;
      return Verdict::rejected(
          *e.user_kind, stage,
          e.message + " (the trace's assumptions contradict each other: " + core + ")");
    }
    case smt::Status::kSat:
      return std::nullopt;
    case smt::Status::kUnknown:
    case smt::Status::kError:
      return Verdict::inconclusive(stage, "re-propagation raised (" + e.user_error().str() +
                                              ") and whether the trace's facts are satisfiable "
                                              "is undecided: " +
                                              facts.reason);
  }
  return std::nullopt;
}

// The verdict from the pipeline's outcome, before the solver oracles.
Verdict decide(const program::Program& p, const PipelineOptions& opts,
               const compile::PipelineOutcome& o, PipelineResult& r, OracleReport& diff_report) {
  if (o.error) {
    if (o.error->stage == Stage::kRepropagate && o.error->channel == StageError::Channel::kUser) {
      if (std::optional<Verdict> v = repropagation_rejection(*o.error, r, opts.smt)) return *v;
    }
    if (std::optional<Verdict> v = verdict_for_error(*o.error)) {
      if (v->kind != Verdict::Kind::kRejected || o.error->stage != Stage::kTrace || !r.eager) {
        return *v;
      }
      // The trace claimed invalid a program eager just ran: wrong unless a rule explains it.
      RejectionJudgement j = judge_trace_rejection(o.error->user_error(), r.eager->trail,
                                                   o.products.rejected_trace.get());
      if (j.kind == RejectionJudgement::Kind::kWrong) {
        return Verdict::fail("trace", o.error->message,
                             {Violation{"wrong-rejection", j.why + ": " + o.error->message}});
      }
      if (j.kind == RejectionJudgement::Kind::kExplained)
        v->message += " [explained: " + j.why + "]";
      // (A resource limit, too_complex, is the tracer's to set lower than eager's: not wrong.)
      if (p.header.valid_by_construction && v->error_kind != UserErrorKind::kTooComplex) {
        return Verdict::wrong_rejection(v->error_kind, v->stage, v->message);
      }
      return *v;
    }
    r.run_error = o.error->user_error();
  }
  if (opts.backend) {
    if (!opts.oracles.has(OracleKind::kDifferential)) {
      if (r.run_error)
        return Verdict::rejected(r.run_error->kind, opts.backend->name(), r.run_error->message);
      return Verdict::pass();
    }
    auto start = std::chrono::steady_clock::now();
    Verdict v = differential(r, opts.backend->name());
    diff_report.ran = true;
    diff_report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (v.kind == Verdict::Kind::kFail)
      diff_report.violations.push_back({"differential", v.message});
    return v;
  }
  if (!r.eager) {
    // The trace accepted the program but eager raised: without a backend run we cannot check
    // that the compiled program raises too; the program is rejected either way.
    return Verdict::rejected(r.eager_error->kind, "eager", r.eager_error->message);
  }
  return Verdict::pass();
}

}  // namespace

PipelineResult run_pipeline(const program::Program& p, const PipelineOptions& opts) {
  ScopedFaultList zoo_faults(p.header.faults);  // a zoo reproducer's "# faults:" header
  PipelineResult r;
  if (opts.eager_reference) {
    r.eager = *opts.eager_reference;
  } else {
    try {
      r.eager = eager::run_eager(p);
    } catch (const UserError& e) {
      r.eager_error = UserErrorInfo{e.kind(), e.what()};
    }
  }
  compile::PipelineConfig config;
  config.settings = opts.settings;
  config.repropagate = opts.repropagate;
  config.backend = opts.backend;
  config.last = opts.backend ? Stage::kRun : Stage::kDce;
  compile::Pipeline pl(config);
  // Client observers read products; only the oracles decide to stop (and set the verdict).
  for (const auto& [stage, f] : opts.observers) {
    pl.observe(stage, [f = f](const StageProducts& s) {
      f(s);
      return Next::kContinue;
    });
  }
  if (opts.repropagate) {
    pl.observe(Stage::kRepropagate, [&r](const StageProducts& s) {
      r.constantified = constantified_symbols(s.trace->graph, *s.graph, s.env());
      return Next::kContinue;
    });
  }
  OracleReport structural_report, diff_report{"differential"};
  StructuralOracles oracles(r.verdict, structural_report, r.constantified);
  if (opts.oracles.has(OracleKind::kStructural)) oracles.register_with(pl);
  if (opts.oracles.has(OracleKind::kRename)) {
    // The renames of tracing and re-propagation are judged before lowering: a broken one is this
    // oracle's FAIL, not an abort of lowering's closure check (INV-19) on the names it left.
    pl.observe(Stage::kDce, [&](const StageProducts& s) {
      r.early_rename = guarded("rename", opts.oracle_deadline_ms,
                               [&] { return check_renames(s.env(), opts.smt); });
      r.renames_judged_at = s.env().events().size();
      if (r.early_rename.outcome() != OracleReport::Outcome::kFail) return Next::kContinue;
      r.verdict = Verdict::fail("oracles", "the rename oracle found a violation before lowering",
                                r.early_rename.violations);
      return Next::kStop;
    });
  }

  compile::PipelineOutcome o = pl.run(p);
  StageProducts& s = o.products;
  r.trace = std::move(s.trace);
  if (o.reached(Stage::kDce)) {
    r.final_graph = std::move(s.graph);
    r.asserts = std::move(s.asserts);
  }
  r.plan = std::move(s.plan);
  r.inputs = std::move(s.inputs);
  r.run = std::move(s.run);
  if (opts.oracles.has(OracleKind::kStructural)) r.reports.push_back(structural_report);
  if (o.stopped_at) {  // an oracle set the verdict
    if (r.early_rename.outcome() == OracleReport::Outcome::kFail) {
      r.reports.push_back(std::move(r.early_rename));
    }
    return r;
  }
  r.verdict = decide(p, opts, o, r, diff_report);
  if (opts.oracles.has(OracleKind::kDifferential)) r.reports.push_back(diff_report);
  if (r.verdict.kind == Verdict::Kind::kFail || r.verdict.kind == Verdict::Kind::kWrongRejection) {
    return r;
  }
  run_solver_oracles(p, opts, r);
  return r;
}

}  // namespace sf::oracles
