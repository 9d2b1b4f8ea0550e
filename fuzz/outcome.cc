// Outcomes; the isolated run sends "bucket\tdetail" over the child's pipe.
#include "fuzz/outcome.h"

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/program/parser.h"

namespace sf::fuzz {

Outcome outcome_of(const oracles::Verdict& v) {
  return {v.bucket(), v.kind == oracles::Verdict::Kind::kPass ? "" : printable(v.str())};
}

Outcome run_program_isolated(const std::string& text, const oracles::PipelineOptions& base,
                             const IsolationLimits& limits) {
  IsolatedResult r = run_isolated(
      [&]() -> std::string {
        clear_faults();  // only the header's faults (run_pipeline applies them)
        program::Program p;
        try {
          p = program::parse_program(text);
        } catch (const UserError& e) {
          return "invalid\t" + printable(e.what());
        }
        auto cpu = backend::make_cpu_backend();
        oracles::PipelineOptions opts = base;
        opts.backend = cpu.get();
        Outcome o = outcome_of(oracles::run_pipeline(p, opts).verdict);
        return o.bucket + "\t" + o.detail;
      },
      limits);
  if (!r.crash.empty()) return {r.crash, printable(r.report)};  // (NULs included)
  size_t tab = r.output.find('\t');
  if (tab == std::string::npos) return {"crash:exit0", "the child exited without a result"};
  return {r.output.substr(0, tab), r.output.substr(tab + 1)};
}

}  // namespace sf::fuzz
