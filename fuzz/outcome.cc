// Outcomes; the isolated replay sends its fields over the child's pipe, NUL-separated (the
// verdict's text, which may span lines, last).
#include "fuzz/outcome.h"

#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/program/parser.h"

namespace sf::fuzz {

namespace {

constexpr char kSep = '\0';

// The first n - 1 fields up to a NUL each, then the rest.
std::vector<std::string> split_fields(const std::string& s, size_t n) {
  std::vector<std::string> out;
  size_t at = 0;
  while (out.size() + 1 < n) {
    size_t sep = s.find(kSep, at);
    if (sep == std::string::npos) break;
    out.push_back(s.substr(at, sep - at));
    at = sep + 1;
  }
  out.push_back(s.substr(at));
  return out;
}

}  // namespace

Outcome outcome_of(const oracles::Verdict& v) {
  return {v.bucket(), v.kind == oracles::Verdict::Kind::kPass ? "" : printable(v.str())};
}

Replay replay_isolated(const std::string& text, const oracles::PipelineOptions& base,
                       const IsolationLimits& limits) {
  auto fields = [](const std::string& bucket, bool parsed, bool matches, const std::string& expect,
                   const std::string& detail, const std::string& verdict) {
    std::string out = bucket;
    for (const std::string& f : {std::string(parsed ? "1" : "0"), std::string(matches ? "1" : "0"),
                                 expect, detail, verdict}) {
      out += kSep + f;
    }
    return out;
  };
  IsolatedResult r = run_isolated(
      [&]() -> std::string {
        clear_faults();  // only the header's faults (run_pipeline applies them)
        program::Program p;
        try {
          p = program::parse_program(text);
        } catch (const UserError& e) {
          return fields("invalid", false, false, "", printable(e.what()), e.what());
        }
        auto cpu = backend::make_cpu_backend();
        oracles::PipelineOptions opts = base;
        opts.backend = cpu.get();
        oracles::Verdict v = oracles::run_pipeline(p, opts).verdict;
        Outcome o = outcome_of(v);
        return fields(o.bucket, true, oracles::matches_expectation(v, p.header.expect),
                      p.header.expect, o.detail, v.str());
      },
      limits);
  Replay out;
  if (!r.crash.empty()) {
    out.outcome = {r.crash, printable(r.report)};  // (NULs included)
    out.report = r.report;
    return out;
  }
  std::vector<std::string> f = split_fields(r.output, 6);
  if (f.size() != 6) {
    out.outcome = {"crash:exit0", "the child exited without a result"};
    return out;
  }
  out.outcome = {f[0], f[4]};
  out.parsed = f[1] == "1";
  out.matches = f[2] == "1";
  out.expect = f[3];
  out.verdict = f[5];
  return out;
}

Outcome run_program_isolated(const std::string& text, const oracles::PipelineOptions& base,
                             const IsolationLimits& limits) {
  return replay_isolated(text, base, limits).outcome;
}

}  // namespace sf::fuzz
