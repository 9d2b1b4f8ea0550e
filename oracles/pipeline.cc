// The pipeline stages, each guarded so that user errors become rejections and engine bugs that
// surface as exceptions become failures (SF_CHECK aborts stay crashes for the fuzzers).
#include "oracles/pipeline.h"

#include "engine/base/errors.h"
#include "engine/graph/passes/dce.h"
#include "engine/graph/passes/repropagate.h"
#include "oracles/invariants/graph_invariants.h"

namespace sf::oracles {

namespace {

void append(std::vector<Violation>& out, std::vector<Violation> more) {
  out.insert(out.end(), more.begin(), more.end());
}

}  // namespace

PipelineResult run_pipeline(const program::Program& p, const PipelineOptions& opts) {
  PipelineResult r;
  try {
    r.eager = eager::run_eager(p);
  } catch (const UserError& e) {
    r.eager_error_kind = user_error_kind_name(e.kind());
    r.eager_error = e.what();
  }
  try {
    graph::TraceOptions topts;
    topts.settings = opts.settings;
    r.trace = std::make_unique<graph::Trace>(graph::trace_program(p, topts));
  } catch (const UserError& e) {
    r.verdict = Verdict::rejected(user_error_kind_name(e.kind()), "trace", e.what());
    return r;
  } catch (const EngineBug& e) {
    r.verdict = Verdict::fail("trace", e.what());
    return r;
  }
  graph::Trace& t = *r.trace;
  r.traced_graph = t.graph.print();
  std::vector<Violation> vs;
  SymbolWindow traced = SymbolWindow::all(*t.env);
  append(vs, check_state(*t.env));
  append(vs, check_bindings(t.graph, *t.env, traced));
  append(vs, check_def_before_use(t.graph, *t.env));
  if (!vs.empty()) {
    r.verdict = Verdict::fail("oracles", "invariants violated after tracing", vs);
    return r;
  }
  try {
    graph::Graph g;
    if (opts.repropagate) {
      g = graph::repropagate(t);
      SymbolWindow fresh = SymbolWindow::all(*t.env);
      fresh.first_int = traced.end_int;
      fresh.first_float = traced.end_float;
      append(vs, check_bindings(g, *t.env, fresh));
      append(vs, check_retrace_rebinding(t.graph, g, *t.env));
      append(vs, check_state(*t.env));
    } else {
      g = graph::repropagate(t, graph::RepropagateOptions{false, false});
    }
    r.asserts = graph::insert_runtime_asserts(g, *t.env);
    graph::eliminate_dead_code(g, *t.env);
    append(vs, check_def_before_use(g, *t.env));
    append(vs, check_replay(*t.env));
    for (const RuntimeAssert& ra : r.asserts.unplaced) {
      vs.push_back({"INV-6", "deferred assert " + ra.expr->str() + " (" + ra.msg +
                                 ") mentions a symbol no node binds; it would never be checked"});
    }
    r.final_graph = std::move(g);
  } catch (const UserError& e) {
    // A re-propagation must reproduce the trace: a user error here is an engine bug.
    r.verdict =
        Verdict::fail("repropagate", std::string("user error on re-propagation: ") + e.what());
    return r;
  } catch (const EngineBug& e) {
    r.verdict = Verdict::fail("repropagate", e.what());
    return r;
  }
  if (!vs.empty()) {
    r.verdict = Verdict::fail("oracles", "invariants violated", vs);
    return r;
  }
  if (!r.eager) {
    // The trace accepted the program but eager raised: the compiled program must raise too at
    // run time (checked once a backend executes the plan); the program is rejected either way.
    r.verdict = Verdict::rejected(r.eager_error_kind, "eager", r.eager_error);
    return r;
  }
  r.verdict = Verdict::pass();
  return r;
}

}  // namespace sf::oracles
