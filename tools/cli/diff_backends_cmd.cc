// `shapefuzz diff-backends DIR`: the CPU <-> CUDA differential as a command. Every .sfz under DIR
// is lowered once and its plan run on both backends; the outcomes (outputs, σ, errors with their
// messages) must agree, and an engine bug on either side is a difference. Prints one line per
// file; exit 0 when all agree, 1 otherwise, 4 without CUDA.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cuda/cuda_backend.h"
#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "fuzz/files.h"
#include "oracles/differential.h"
#include "oracles/pipeline.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct Outcome {
  std::optional<backend::RunResult> run;
  std::string error_kind, error;
  bool engine_bug = false;  // never an agreement, even when both backends raise one
};

Outcome run_on(backend::Backend& b, const lower::Plan& plan, const ShapeEnv& env,
               const std::map<std::string, program::HostValue>& inputs) {
  Outcome o;
  try {
    o.run = b.run(plan, env, inputs);
  } catch (const UserError& e) {  // GuardFailed included
    o.error_kind = user_error_kind_name(e.kind());
    o.error = e.what();
  } catch (const Unavailable& e) {
    o.error_kind = "unavailable";
    o.error = e.what();
    o.engine_bug = true;  // the backend said it was available: never an agreement
  } catch (const EngineBug& e) {
    o.error_kind = "engine_bug";
    o.error = e.what();
    o.engine_bug = true;
  }
  return o;
}

// Empty when the outcomes agree; otherwise what differs.
std::string compare(const Outcome& cpu, const Outcome& cuda, const oracles::Tolerance& tol) {
  if (cpu.engine_bug || cuda.engine_bug) {
    std::string out;
    if (cpu.engine_bug) out = "cpu raised an engine bug: " + cpu.error;
    if (cuda.engine_bug)
      out += (out.empty() ? "" : "; ") + ("cuda raised an engine bug: " + cuda.error);
    return out;
  }
  if (cpu.run && cuda.run) {
    if (cpu.run->bindings != cuda.run->bindings) return "sigma differs";
    if (auto d = oracles::compare_values(cpu.run->outputs, cuda.run->outputs, tol)) return *d;
    return "";
  }
  if (!cpu.run && !cuda.run) {
    if (cpu.error_kind != cuda.error_kind) {
      return "cpu raised " + cpu.error_kind + ", cuda raised " + cuda.error_kind + ": " +
             cuda.error;
    }
    if (cpu.error != cuda.error) {
      return "both raised " + cpu.error_kind + " with different messages: cpu: " + cpu.error +
             " | cuda: " + cuda.error;
    }
    return "";
  }
  return cpu.run ? "cuda raised (" + cuda.error_kind + ": " + cuda.error + "), cpu did not"
                 : "cpu raised (" + cpu.error_kind + ": " + cpu.error + "), cuda did not";
}

struct DiffFlags {
  std::string dir;
  double rtol = 1e-5, atol = 1e-6;
};

int diff_backends(const DiffFlags& flags) {
  std::unique_ptr<backend::Backend> cuda = backend::make_cuda_backend();
  std::string why;
  if (!cuda->available(&why)) {
    std::printf("backend cuda unavailable: %s\n", why.c_str());
    return kExitUnavailable;
  }
  std::error_code ec;
  std::vector<std::string> files;
  for (const std::filesystem::path& f : fuzz::sfz_files_under(flags.dir, &ec)) {
    files.push_back(f.string());
  }
  if (ec) {
    std::fprintf(stderr, "cannot read %s: %s\n", flags.dir.c_str(), ec.message().c_str());
    return kExitUsage;
  }
  oracles::Tolerance tol{flags.rtol, flags.atol};
  std::unique_ptr<backend::Backend> cpu = backend::make_cpu_backend();
  int agree = 0, differ = 0, skipped = 0;
  for (const std::string& f : files) {
    std::optional<std::string> text = fuzz::read_text_file(f);
    program::Program p;
    if (!text) {  // an OS error, not a user error in the program
      std::printf("skip    %s (cannot read: %s)\n", f.c_str(), std::strerror(errno));
      ++skipped;
      continue;
    }
    try {
      p = program::parse_program(*text);
    } catch (const UserError& e) {
      std::printf("skip    %s (%s)\n", f.c_str(), e.what());
      ++skipped;
      continue;
    }
    oracles::PipelineOptions opts;
    opts.backend = cpu.get();
    oracles::PipelineResult r = oracles::run_pipeline(p, opts);
    if (!r.plan) {
      std::printf("skip    %s (no plan: %s)\n", f.c_str(), r.verdict.str().c_str());
      ++skipped;
      continue;
    }
    const auto& inputs = r.inputs;  // the program's inputs, as the pipeline's CPU run made them
    Outcome a = run_on(*cpu, *r.plan, *r.trace->env, inputs);
    Outcome b = run_on(*cuda, *r.plan, *r.trace->env, inputs);
    std::string diff = compare(a, b, tol);
    if (diff.empty()) {
      std::printf("agree   %s%s\n", f.c_str(),
                  a.run ? "" : (" (both raise " + a.error_kind + ")").c_str());
      ++agree;
    } else {
      std::printf("DIFFER  %s: %s\n", f.c_str(), diff.c_str());
      ++differ;
    }
  }
  std::printf("%d agree, %d differ, %d skipped (%zu files)\n", agree, differ, skipped,
              files.size());
  return differ == 0 ? kExitOk : kExitFindings;
}

}  // namespace

void add_diff_backends_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<DiffFlags>();
  CLI::App* cmd = app.add_subcommand(
      "diff-backends",
      "the CPU <-> CUDA differential: lowers every .sfz under DIR once and runs the plan on both "
      "backends; prints agree/DIFFER per file");
  cmd->add_option("DIR", f->dir, "directory of .sfz programs")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--rtol", f->rtol, "relative tolerance")
      ->capture_default_str()
      ->check(non_negative_number());
  cmd->add_option("--atol", f->atol, "absolute tolerance")
      ->capture_default_str()
      ->check(non_negative_number());
  cmd->callback([=] { *action = [=] { return diff_backends(*f); }; });
}

}  // namespace sf::cli
