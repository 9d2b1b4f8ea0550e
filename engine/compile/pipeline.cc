// The stages in order, each a small function over the products so far, and the loop that runs
// them, catches the three error channels and calls each stage's observers.
#include "engine/compile/pipeline.h"

#include "engine/graph/passes/dce.h"
#include "engine/graph/passes/repropagate.h"
#include "engine/lower/lowering.h"
#include "engine/program/input_data.h"

namespace sf::compile {

const char* stage_name(Stage s) {
  switch (s) {
#define SF_STAGE_NAME(e, name) \
  case Stage::e:               \
    return name;
    SF_PIPELINE_STAGES(SF_STAGE_NAME)
#undef SF_STAGE_NAME
  }
  return "unknown";
}

namespace {

constexpr Stage kStages[] = {
#define SF_STAGE_VALUE(e, name) Stage::e,
    SF_PIPELINE_STAGES(SF_STAGE_VALUE)
#undef SF_STAGE_VALUE
};

// Runs one stage; returns false when the stage was skipped (its observers are not called).
bool run_stage(Stage stage, const PipelineConfig& c, StageProducts& s) {
  switch (stage) {
    case Stage::kTrace: {
      graph::TraceOptions topts;
      topts.settings = c.settings;
      s.trace = std::make_unique<graph::Trace>();
      graph::trace_program_into(*s.program, topts, *s.trace);
      return true;
    }
    case Stage::kRepropagate:
      if (!c.repropagate) {
        s.graph = std::move(s.trace->graph);  // lowered as traced
        return false;
      }
      // As the backends after dynamo (#113926): a fresh fake mode re-fakifies every input
      // through its stateful symbolic context (the same symbols), then the graph is re-run in
      // it after an epoch bump (PropagateUnbackedSymInts).
      s.graph = graph::repropagate(*s.trace, graph::RepropagateOptions{.fresh_fake_mode = true});
      return true;
    case Stage::kRuntimeAsserts:
      s.asserts = graph::insert_runtime_asserts(*s.graph, s.env());
      return true;
    case Stage::kDce:
      graph::eliminate_dead_code(*s.graph, s.env());
      return true;
    case Stage::kLower:
      // As upstream (spec §5): the runtime asserts were inserted, so lowering may not add any.
      s.env().freeze_runtime_asserts();
      s.plan = lower::lower_graph(*s.graph, *s.trace);
      return true;
    case Stage::kRun:
      s.inputs = c.inputs ? *c.inputs : program::make_input_values(*s.program);
      s.run = c.backend->run(*s.plan, s.env(), s.inputs);
      return true;
  }
  return false;
}

StageError caught(Stage stage, StageError::Channel channel, std::optional<UserErrorKind> kind,
                  const char* what) {
  return StageError{stage, channel, kind, what, std::current_exception()};
}

}  // namespace

PipelineOutcome Pipeline::run(const program::Program& p) const {
  PipelineOutcome out;
  out.products.program = &p;
  Stage last = config_.last;
  if (!config_.backend && last == Stage::kRun) last = Stage::kLower;
  for (Stage stage : kStages) {
    if (stage > last) break;
    bool stop = false;
    try {
      // An observer's exception (an oracle's engine call) counts as its stage's error, too.
      if (run_stage(stage, config_, out.products)) stop = notify(stage, out.products);
    } catch (const UserError& e) {
      out.error = caught(stage, StageError::Channel::kUser, e.kind(), e.what());
      if (stage == Stage::kTrace) out.products.rejected_trace = std::move(out.products.trace);
    } catch (const EngineBug& e) {
      out.error = caught(stage, StageError::Channel::kEngineBug, std::nullopt, e.what());
    } catch (const Unavailable& e) {
      out.error = caught(stage, StageError::Channel::kUnavailable, std::nullopt, e.what());
    }
    if (out.error) return out;
    out.completed = stage;
    if (stop) {
      out.stopped_at = stage;
      return out;
    }
  }
  return out;
}

bool Pipeline::notify(Stage stage, const StageProducts& products) const {
  auto it = observers_.find(stage);
  if (it == observers_.end()) return false;
  for (const StageObserver& f : it->second) {
    if (f(products) == Next::kStop) return true;
  }
  return false;
}

}  // namespace sf::compile
