// Guard-based plan reuse over the one pipeline: a new specialization is the pipeline run to
// completion on the new inputs; later inputs try the cached plans first.
#include "engine/compile/compiled_program.h"

#include "engine/base/errors.h"

namespace sf::compile {

namespace {

[[noreturn]] void bad_input(const std::string& name, const std::string& what) {
  throw_user_error(UserErrorKind::kInvalidProgram, "input '" + name + "': " + what);
}

}  // namespace

program::Program with_inputs(const program::Program& p,
                             const std::map<std::string, program::HostValue>& inputs) {
  program::Program out = p;
  for (program::InputDecl& in : out.inputs) {
    auto it = inputs.find(in.name);
    if (it == inputs.end()) bad_input(in.name, "no value given; pass every program input");
    const program::HostValue& v = it->second;
    in.data = program::DataSpec();
    in.data.kind = program::DataSpec::Kind::kLiteral;
    if (in.is_tensor) {
      std::string why = program::tensor_input_mismatch(v, in.dtype, in.sizes.size());
      if (!why.empty()) bad_input(in.name, why);
      in.sizes = v.tensor.sizes;
      for (int64_t k = 0; k < v.tensor.numel(); ++k)
        in.data.literal.push_back(v.tensor.at_double(k));
    } else {
      switch (v.kind) {
        case program::HostValue::Kind::kInt:
          in.data.literal = {double(v.i)};
          break;
        case program::HostValue::Kind::kFloat:
          in.data.literal = {v.f};
          break;
        case program::HostValue::Kind::kBool:
          in.data.literal = {double(v.b)};
          break;
        case program::HostValue::Kind::kTensor:
        case program::HostValue::Kind::kTuple:
        case program::HostValue::Kind::kNone:
          bad_input(in.name, "expected a scalar");
      }
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
  program::Program specialized = with_inputs(program_, inputs);
  PipelineConfig config;
  config.settings = settings_;
  config.backend = &backend_;
  config.inputs = &inputs;
  PipelineOutcome o = Pipeline(config).run(specialized);
  // A plan that was built is kept even when its first run raises (a runtime assert, an index
  // error): later inputs that satisfy its guards reuse it instead of retracing.
  if (o.reached(Stage::kLower)) {
    auto e = std::make_unique<CompiledEntry>();
    e->trace = std::move(o.products.trace);
    e->graph = std::make_unique<graph::Graph>(std::move(*o.products.graph));
    e->plan = std::move(*o.products.plan);
    entries_.push_back(std::move(e));
  }
  if (o.error) std::rethrow_exception(o.error->exception);
  return std::move(*o.products.run);
}

}  // namespace sf::compile
