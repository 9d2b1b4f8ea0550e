// The pipeline stages, each guarded so that user errors become rejections and engine bugs that
// surface as exceptions become failures (SF_CHECK aborts stay crashes for the fuzzers).
#include "oracles/pipeline.h"

#include "engine/base/errors.h"
#include "engine/fake/meta/meta.h"
#include "engine/graph/passes/dce.h"
#include "engine/graph/passes/repropagate.h"
#include "engine/lower/lowering.h"
#include "engine/program/input_data.h"
#include "oracles/differential.h"
#include "oracles/invariants/graph_invariants.h"

namespace sf::oracles {

namespace {

void append(std::vector<Violation>& out, std::vector<Violation> more) {
  out.insert(out.end(), more.begin(), more.end());
}

// Lowering, a backend run on the program's inputs, and the differential against eager: the
// compiled program must raise exactly when eager does, and otherwise agree on every output.
PipelineResult& run_compiled(PipelineResult& r, const program::Program& p, backend::Backend& b) {
  graph::Trace& t = *r.trace;
  try {
    r.plan = lower::lower_graph(*r.final_graph, t);
    r.run = b.run(*r.plan, *t.env, program::make_input_values(p));
  } catch (const backend::GuardFailed& e) {
    r.verdict = Verdict::fail(
        "run", std::string("a guard fails on the very inputs it was traced for: ") + e.what());
    return r;
  } catch (const UserError& e) {
    r.run_error_kind = user_error_kind_name(e.kind());
    r.run_error = e.what();
  } catch (const EngineBug& e) {
    r.verdict = Verdict::fail("run", e.what());
    return r;
  }
  if (!r.eager && !r.run) {
    r.verdict = Verdict::rejected(r.eager_error_kind, "eager+" + b.name(),
                                  r.eager_error + " | compiled: " + r.run_error);
  } else if (!r.eager) {
    r.verdict = Verdict::fail("differential", "eager raised (" + r.eager_error_kind + ": " +
                                                  r.eager_error + ") but the compiled program on " +
                                                  b.name() + " returned normally");
  } else if (!r.run &&
             r.run_error_kind == user_error_kind_name(UserErrorKind::kRuntimeAssertFailed) &&
             r.run_error.find(fake::kImplicitAssertTag) != std::string::npos) {
    // An assumption of unbacked semantics (e.g. no broadcasting of an unbacked size) that these
    // inputs violate: like PyTorch, the compiled program raises where eager does not.
    r.verdict = Verdict::rejected(r.run_error_kind, b.name(), r.run_error);
  } else if (!r.run) {
    r.verdict = Verdict::fail("differential", "the compiled program on " + b.name() + " raised (" +
                                                  r.run_error_kind + ": " + r.run_error +
                                                  ") but eager returned normally");
  } else if (auto diff = compare_values(r.eager->outputs, r.run->outputs)) {
    r.verdict = Verdict::fail("differential", "eager vs " + b.name() + ": " + *diff);
  } else {
    r.verdict = Verdict::pass();
  }
  return r;
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
      g = std::move(t.graph);  // lowered as traced (the printed trace was kept above)
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
  if (opts.backend) {
    run_compiled(r, p, *opts.backend);
    return r;
  }
  if (!r.eager) {
    // The trace accepted the program but eager raised: without a backend run we cannot check
    // that the compiled program raises too; the program is rejected either way.
    r.verdict = Verdict::rejected(r.eager_error_kind, "eager", r.eager_error);
    return r;
  }
  r.verdict = Verdict::pass();
  return r;
}

}  // namespace sf::oracles
