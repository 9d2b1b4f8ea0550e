// Runs one plan on two backends and compares what each ended in.
#include "oracles/backend_differential.h"

#include "engine/base/errors.h"
#include "oracles/pipeline.h"

namespace sf::oracles {

BackendOutcome run_plan_on(backend::Backend& b, const lower::Plan& plan, const ShapeEnv& env,
                           const std::map<std::string, program::HostValue>& inputs) {
  BackendOutcome o;
  try {
    o.run = b.run(plan, env, inputs);
  } catch (const UserError& e) {  // GuardFailed included
    o.error_kind = user_error_kind_name(e.kind());
    o.error = e.what();
  } catch (const Unavailable& e) {
    o.error_kind = "unavailable";
    o.error = e.what();
    o.engine_bug = true;  // the backend said it was available
  } catch (const EngineBug& e) {
    o.error_kind = "engine_bug";
    o.error = e.what();
    o.engine_bug = true;
  }
  return o;
}

std::string compare_backend_outcomes(const std::string& a_name, const BackendOutcome& a,
                                     const std::string& b_name, const BackendOutcome& b,
                                     const Tolerance& tol) {
  if (a.engine_bug || b.engine_bug) {
    std::string out;
    if (a.engine_bug) out = a_name + " raised an engine bug: " + a.error;
    if (b.engine_bug)
      out += (out.empty() ? "" : "; ") + b_name + " raised an engine bug: " + b.error;
    return out;
  }
  if (a.run && b.run) {
    if (a.run->bindings != b.run->bindings) return "sigma differs";
    if (auto d = compare_values(a.run->outputs, b.run->outputs, tol)) return *d;
    return "";
  }
  if (!a.run && !b.run) {
    if (a.error_kind != b.error_kind) {
      return a_name + " raised " + a.error_kind + ", " + b_name + " raised " + b.error_kind + ": " +
             b.error;
    }
    if (a.error != b.error) {
      return "both raised " + a.error_kind + " with different messages: " + a_name + ": " +
             a.error + " | " + b_name + ": " + b.error;
    }
    return "";
  }
  return a.run ? b_name + " raised (" + b.error_kind + ": " + b.error + "), " + a_name + " did not"
               : a_name + " raised (" + a.error_kind + ": " + a.error + "), " + b_name + " did not";
}

BackendDiff diff_backends(const program::Program& p, backend::Backend& reference,
                          backend::Backend& other, const Tolerance& tol) {
  PipelineOptions opts;
  opts.backend = &reference;
  PipelineResult r = run_pipeline(p, opts);
  if (!r.plan) return {BackendDiff::Kind::kSkipped, "no plan: " + r.verdict.str()};
  // The program's inputs, as the pipeline's run on the reference made them.
  BackendOutcome a = run_plan_on(reference, *r.plan, *r.trace->env, r.inputs);
  BackendOutcome b = run_plan_on(other, *r.plan, *r.trace->env, r.inputs);
  std::string diff = compare_backend_outcomes(reference.name(), a, other.name(), b, tol);
  if (!diff.empty()) return {BackendDiff::Kind::kDiffer, diff};
  return {BackendDiff::Kind::kAgree, a.run ? "" : a.error_kind};
}

}  // namespace sf::oracles
