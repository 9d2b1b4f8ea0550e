// The one compilation pipeline: trace -> re-propagate -> runtime asserts -> DCE -> lower -> run.
// Each stage hands its product to the observers registered for it; oracles, printers, the
// differential and the compiled-program cache are all clients of this sequence.
#pragma once

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/base/errors.h"
#include "engine/graph/passes/runtime_asserts.h"
#include "engine/graph/tracer.h"
#include "engine/lower/plan.h"
#include "engine/program/ast.h"
#include "engine/program/host_value.h"

namespace sf::compile {

// SF_STAGE(Enum, "name"), in execution order.
#define SF_PIPELINE_STAGES(X)           \
  X(kTrace, "trace")                    \
  X(kRepropagate, "repropagate")        \
  X(kRuntimeAsserts, "runtime_asserts") \
  X(kDce, "dce")                        \
  X(kLower, "lower")                    \
  X(kRun, "run")

enum class Stage {
#define SF_STAGE_ENUM(e, name) e,
  SF_PIPELINE_STAGES(SF_STAGE_ENUM)
#undef SF_STAGE_ENUM
};
const char* stage_name(Stage s);

// What the stages produced so far. `graph` is the working graph: the re-propagated graph, then
// edited in place by asserts and DCE; `trace->graph` keeps the graph as traced. With
// re-propagation off the traced graph itself is moved into `graph` (trace->graph is then empty).
struct StageProducts {
  const program::Program* program = nullptr;
  std::unique_ptr<graph::Trace> trace;
  // When tracing raised a user error: the trace as far as it got (`trace` is then null).
  std::unique_ptr<graph::Trace> rejected_trace;
  std::optional<graph::Graph> graph;
  graph::RuntimeAssertReport asserts;
  std::optional<lower::Plan> plan;
  std::map<std::string, program::HostValue> inputs;  // what the run stage ran on
  std::optional<backend::RunResult> run;
  ShapeEnv& env() const { return *trace->env; }
};

// How a stage ended, when it raised through one of the three error channels (errors.h).
struct StageError {
  enum class Channel { kUser, kEngineBug, kUnavailable };
  Stage stage;
  Channel channel;
  std::optional<UserErrorKind> user_kind;  // kUser only
  std::string message;
  std::exception_ptr exception;  // to rethrow to callers that want the exception
  UserErrorInfo user_error() const { return {*user_kind, message}; }
};

// An observer reads a stage's product and may stop the pipeline (an oracle that found a bug).
enum class Next { kContinue, kStop };
using StageObserver = std::function<Next(const StageProducts&)>;

struct PipelineConfig {
  ShapeEnvSettings settings;
  bool repropagate = true;
  Stage last = Stage::kRun;             // stop after this stage
  backend::Backend* backend = nullptr;  // required to reach kRun; without one, stop after kLower
  // Inputs of the run stage; null: the program's declared inputs (make_input_values).
  const std::map<std::string, program::HostValue>* inputs = nullptr;
};

struct PipelineOutcome {
  StageProducts products;
  std::optional<Stage> completed;   // the last stage that completed (and was observed)
  std::optional<StageError> error;  // the stage that raised, if one did
  std::optional<Stage> stopped_at;  // an observer of this stage stopped the pipeline
  bool reached(Stage s) const { return completed && *completed >= s; }
};

class Pipeline {
 public:
  explicit Pipeline(PipelineConfig config) : config_(std::move(config)) {}
  // Observers run after their stage completes, in the order they were added.
  void observe(Stage s, StageObserver f) { observers_[s].push_back(std::move(f)); }
  // Runs the stages in order. UserError, EngineBug and Unavailable raised by a stage or by one of
  // its observers end the pipeline and are recorded in `error` (against that stage); anything
  // else (an SF_CHECK abort) is a crash.
  PipelineOutcome run(const program::Program& p) const;

 private:
  // Calls the stage's observers; true when one of them stops the pipeline.
  bool notify(Stage stage, const StageProducts& products) const;

  PipelineConfig config_;
  std::map<Stage, std::vector<StageObserver>> observers_;
};

}  // namespace sf::compile
