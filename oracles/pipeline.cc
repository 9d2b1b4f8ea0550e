// The structural oracles as stage observers (they stop the pipeline on a violation), and the
// verdict: user errors become rejections, engine bugs and violations failures, and a completed
// run is compared with eager (the compiled program must raise exactly when eager does).
#include "oracles/pipeline.h"

#include "engine/fake/meta/meta.h"
#include "oracles/differential.h"
#include "oracles/invariants/graph_invariants.h"

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
  explicit StructuralOracles(Verdict& verdict) : verdict_(verdict) {}

  void register_with(compile::Pipeline& pl) {
    pl.observe(Stage::kTrace, [this](const StageProducts& s) { return after_trace(s); });
    pl.observe(Stage::kRepropagate,
               [this](const StageProducts& s) { return after_repropagate(s); });
    pl.observe(Stage::kDce, [this](const StageProducts& s) { return after_dce(s); });
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
    append(vs_, check_state(s.env()));
    return Next::kContinue;
  }

  Next after_dce(const StageProducts& s) {
    append(vs_, check_def_before_use(*s.graph, s.env()));
    append(vs_, check_replay(s.env()));
    for (const RuntimeAssert& ra : s.asserts.unplaced) {
      vs_.push_back({"INV-6", "deferred assert " + ra.expr->str() + " (" + ra.msg +
                                  ") mentions a symbol no node binds; it would never be checked"});
    }
    return stop_if_violated("invariants violated");
  }

  Next stop_if_violated(const std::string& what) {
    if (vs_.empty()) return Next::kContinue;
    verdict_ = Verdict::fail("oracles", what, vs_);
    return Next::kStop;
  }

  Verdict& verdict_;
  SymbolWindow traced_;
  std::vector<Violation> vs_;
};

// The verdict for a stage that raised, or none when the differential decides (a user error of the
// run). Only tracing and running may reject a program: a user error while re-propagating,
// inserting asserts or lowering a graph the trace accepted is a bug.
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

// The compiled program must raise exactly when eager does, and otherwise agree on every output.
Verdict differential(const PipelineResult& r, const std::string& backend) {
  if (!r.eager && !r.run) {
    return Verdict::rejected(r.eager_error->kind, "eager+" + backend,
                             r.eager_error->message + " | compiled: " + r.run_error->message);
  }
  if (!r.eager) {
    return Verdict::fail("differential", "eager raised (" + r.eager_error->str() +
                                             ") but the compiled program on " + backend +
                                             " returned normally");
  }
  if (!r.run && r.run_error->kind == UserErrorKind::kRuntimeAssertFailed &&
      r.run_error->message.find(fake::kImplicitAssertTag) != std::string::npos) {
    // An assumption of unbacked semantics (e.g. no broadcasting of an unbacked size) that these
    // inputs violate: like PyTorch, the compiled program raises where eager does not.
    return Verdict::rejected(r.run_error->kind, backend, r.run_error->message);
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

}  // namespace

PipelineResult run_pipeline(const program::Program& p, const PipelineOptions& opts) {
  PipelineResult r;
  try {
    r.eager = eager::run_eager(p);
  } catch (const UserError& e) {
    r.eager_error = UserErrorInfo{e.kind(), e.what()};
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
  StructuralOracles oracles(r.verdict);
  oracles.register_with(pl);

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
  if (o.stopped_at) return r;  // an oracle set the verdict
  if (o.error) {
    if (std::optional<Verdict> v = verdict_for_error(*o.error)) {
      r.verdict = *v;
      return r;
    }
    r.run_error = o.error->user_error();
  }
  if (opts.backend) {
    r.verdict = differential(r, opts.backend->name());
    return r;
  }
  if (!r.eager) {
    // The trace accepted the program but eager raised: without a backend run we cannot check
    // that the compiled program raises too; the program is rejected either way.
    r.verdict = Verdict::rejected(r.eager_error->kind, "eager", r.eager_error->message);
    return r;
  }
  r.verdict = Verdict::pass();
  return r;
}

}  // namespace sf::oracles
