// torch.compile's cache, in small: a program is traced and lowered for the inputs it is first
// run with; later inputs reuse a plan whose guards they satisfy, or trigger a retrace (a plan is
// never run for inputs its guards reject).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/base/check.h"
#include "engine/compile/pipeline.h"
#include "engine/graph/tracer.h"
#include "engine/lower/plan.h"
#include "engine/program/ast.h"
#include "engine/program/host_value.h"

namespace sf::compile {

// One trace + plan, specialized to the guards recorded while tracing.
struct CompiledEntry {
  std::unique_ptr<graph::Trace> trace;
  std::unique_ptr<graph::Graph> graph;  // final graph (re-propagated, asserts, DCE)
  lower::Plan plan;
};

// `p` with each input's declared sizes and data replaced by the given concrete value (modes kept),
// so that tracing it specializes to these inputs. A missing input or one of another kind or rank
// is a user error (kInvalidProgram).
program::Program with_inputs(const program::Program& p,
                             const std::map<std::string, program::HostValue>& inputs);

class CompiledProgram {
 public:
  CompiledProgram(program::Program p, backend::Backend& b, ShapeEnvSettings settings = {})
      : program_(std::move(p)), backend_(b), settings_(settings) {}

  // Runs on `inputs`, reusing the first cached plan whose guards hold, else compiling anew
  // through the pipeline (whose user errors, engine bugs and unavailability are rethrown).
  backend::RunResult run(const std::map<std::string, program::HostValue>& inputs);
  int compiles() const { return static_cast<int>(entries_.size()); }
  const CompiledEntry& entry(int i) const {
    SF_CHECK(i >= 0 && i < compiles()) << "no compiled entry " << i;
    return *entries_[i];
  }

 private:
  program::Program program_;
  backend::Backend& backend_;
  ShapeEnvSettings settings_;
  std::vector<std::unique_ptr<CompiledEntry>> entries_;
};

}  // namespace sf::compile
