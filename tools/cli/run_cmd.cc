// `shapefuzz run FILE.sfz`: parses a program, runs the pipeline and prints every stage: the
// program, then each stage's product as the pipeline's observers see it (traced graph with
// bindings, final graph with runtime asserts, plan), the ShapeEnv, run, eager and the verdict.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "fuzz/outcome.h"
#include "oracles/pipeline.h"
#include "tools/cli/backends.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

void section(const char* title) { std::printf("== %s ==\n", title); }

// The ShapeEnv once the pipeline is done (re-propagation renames and replaces symbols).
void print_shape_env(const ShapeEnv& env) {
  section("guards");
  for (const ShapeGuard& g : env.guards()) std::printf("  %s\n", g.expr->str().c_str());
  section("deferred runtime asserts (bucket: expr)");
  for (const auto& [key, ras] : env.deferred_runtime_asserts()) {
    for (const RuntimeAssert& ra : ras) {
      std::printf("  %s: %s  # %s\n", key ? key->str().c_str() : "None", ra.expr->str().c_str(),
                  ra.msg.c_str());
    }
  }
  section("symbols");
  for (const auto& [s, vr] : env.var_to_range()) {
    ExprRef rep = env.replace(s);
    std::printf("  %s: %s%s%s\n", s->str().c_str(), vr.str().c_str(),
                env.is_size_like(s) ? " size-like" : "",
                rep != s ? (" -> " + rep->str()).c_str() : "");
  }
}

struct RunFlags {
  std::string file;
  std::string backend = "cpu";
  OracleFlags oracles;
};

int run(const RunFlags& flags) {
  std::string text = read_program_file(flags.file);
  program::Program p;
  try {
    p = program::parse_program(text);
  } catch (const UserError& e) {
    oracles::Verdict v = oracles::Verdict::rejected(e.kind(), "parse", e.what());
    section("verdict");
    std::printf("%s\n", v.str().c_str());
    return kExitUsage;  // a file that does not parse is an input error
  }
  section("program");
  std::printf("%s", program::print_program(p).c_str());
  const std::string& backend_name = flags.backend;
  std::unique_ptr<backend::Backend> b = make_backend(backend_name);
  std::string why;
  if (b && !b->available(&why)) {
    std::printf("backend %s unavailable: %s\n", backend_name.c_str(), why.c_str());
    return kExitUnavailable;
  }
  // Stage products are printed as each stage completes, so a crash later still shows them.
  oracles::PipelineOptions opts = flags.oracles.options();
  opts.backend = b.get();
  opts.observers.emplace_back(compile::Stage::kTrace, [](const compile::StageProducts& s) {
    section("traced graph");
    std::printf("%s", s.trace->graph.print().c_str());
    std::fflush(stdout);
    return compile::Next::kContinue;
  });
  opts.observers.emplace_back(compile::Stage::kDce, [](const compile::StageProducts& s) {
    section("final graph (re-propagated, runtime asserts, DCE)");
    std::printf("%s", s.graph->print().c_str());
    std::fflush(stdout);
    return compile::Next::kContinue;
  });
  opts.observers.emplace_back(compile::Stage::kLower, [](const compile::StageProducts& s) {
    section("plan");
    std::printf("%s", s.plan->print().c_str());
    std::fflush(stdout);
    return compile::Next::kContinue;
  });
  oracles::PipelineResult r = oracles::run_pipeline(p, opts);
  if (r.trace) print_shape_env(*r.trace->env);
  if (r.run) {
    section(("run on " + backend_name + ": sigma").c_str());
    for (const std::string& line : r.run->bindings) std::printf("  %s\n", line.c_str());
    section(("run on " + backend_name + ": outputs").c_str());
    for (const program::HostValue& v : r.run->outputs) std::printf("  %s\n", v.str().c_str());
  } else if (r.run_error) {
    section(("run on " + backend_name).c_str());
    std::printf("  error (%s)\n", r.run_error->str().c_str());
  }
  section("eager");
  if (r.eager) {
    for (const program::HostValue& v : r.eager->outputs) std::printf("  %s\n", v.str().c_str());
  } else {
    std::printf("  error (%s)\n", r.eager_error->str().c_str());
  }
  section(("oracles (" + opts.oracles.str() + ")").c_str());
  for (const oracles::OracleReport& rep : r.reports) std::printf("  %s\n", rep.str().c_str());
  section("verdict");
  std::printf("%s\n", r.verdict.str().c_str());
  std::printf("bucket: %s\n", r.verdict.bucket().c_str());
  bool matches = oracles::matches_expectation(r.verdict, p.header.expect);
  std::printf("expectation: %s (%s)\n", p.header.expect.c_str(), matches ? "matches" : "MISMATCH");
  if (!p.header.reproduces.empty()) {
    std::string sig = fuzz::signature(fuzz::outcome_of(r.verdict));
    std::printf("reproduces: %s (%s)\n", p.header.reproduces.c_str(),
                sig == p.header.reproduces ? "reproduced" : ("now " + sig).c_str());
  }
  if (r.verdict.kind == oracles::Verdict::Kind::kFail ||
      r.verdict.kind == oracles::Verdict::Kind::kWrongRejection) {
    return kExitFindings;
  }
  if (r.verdict.kind == oracles::Verdict::Kind::kInconclusive) return kExitInconclusive;
  return matches ? kExitOk : kExitMismatch;
}

}  // namespace

void add_run_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<RunFlags>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "one program: parse, trace, re-propagate, insert runtime asserts, lower, run on the backend "
      "and compare with eager; prints every stage's product, each oracle's verdict, the verdict "
      "and its bucket. Exit 0 when the verdict matches the file's '# expect:', 1 on a failure, 3 "
      "on a mismatch, 4 when the backend is unavailable, 5 when an oracle is undecided");
  cmd->add_option("FILE", f->file, "the .sfz program")->required();
  cmd->add_option("--backend", f->backend, "cpu, cuda, or none (stop before lowering)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "none"}));
  f->oracles.add_to(cmd);
  cmd->callback([=] { *action = [=] { return run(*f); }; });
}

}  // namespace sf::cli
