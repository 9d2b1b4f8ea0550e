// Compilation (trace -> re-propagate -> asserts -> DCE -> lower) and guard-based plan reuse.
#include "engine/compile/compiled_program.h"

#include "engine/base/check.h"
#include "engine/graph/passes/dce.h"
#include "engine/graph/passes/repropagate.h"
#include "engine/graph/passes/runtime_asserts.h"
#include "engine/lower/lowering.h"
#include "engine/program/input_data.h"

namespace sf::compile {

CompiledEntry compile_program(const program::Program& p, const ShapeEnvSettings& settings) {
  CompiledEntry e;
  graph::TraceOptions opts;
  opts.settings = settings;
  e.trace = std::make_unique<graph::Trace>(graph::trace_program(p, opts));
  e.graph = std::make_unique<graph::Graph>(graph::repropagate(*e.trace));
  graph::insert_runtime_asserts(*e.graph, *e.trace->env);
  graph::eliminate_dead_code(*e.graph, *e.trace->env);
  e.plan = lower::lower_graph(*e.graph, *e.trace);
  return e;
}

program::Program with_inputs(const program::Program& p,
                             const std::map<std::string, program::HostValue>& inputs) {
  program::Program out = p;
  for (program::InputDecl& in : out.inputs) {
    auto it = inputs.find(in.name);
    SF_CHECK(it != inputs.end()) << "no value for input " << in.name;
    const program::HostValue& v = it->second;
    in.data = program::DataSpec();
    in.data.kind = program::DataSpec::Kind::kLiteral;
    if (in.is_tensor) {
      SF_CHECK(v.kind == program::HostValue::Kind::kTensor) << "input " << in.name << " is a tensor";
      SF_CHECK(v.tensor.sizes.size() == in.sizes.size()) << "input " << in.name << " changed rank";
      in.sizes = v.tensor.sizes;
      for (int64_t k = 0; k < v.tensor.numel(); ++k) in.data.literal.push_back(v.tensor.at_double(k));
    } else {
      in.data.literal = {v.kind == program::HostValue::Kind::kFloat ? v.f
                         : v.kind == program::HostValue::Kind::kBool ? double(v.b)
                                                                     : double(v.i)};
    }
  }
  return out;
}

backend::RunResult CompiledProgram::run(const std::map<std::string, program::HostValue>& inputs) {
  for (const auto& e : entries_) {
    try {
      return backend_.run(e->plan, *e->trace->env, inputs);
    } catch (const backend::GuardFailed&) {
      // Not this specialization; try the next one.
    }
  }
  auto e = std::make_unique<CompiledEntry>(compile_program(with_inputs(program_, inputs), settings_));
  entries_.push_back(std::move(e));
  return backend_.run(entries_.back()->plan, *entries_.back()->trace->env, inputs);
}

}  // namespace sf::compile
