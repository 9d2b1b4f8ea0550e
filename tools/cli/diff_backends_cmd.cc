// `shapefuzz diff-backends DIR`: the CPU <-> CUDA differential (oracles/backend_differential.h)
// over every .sfz under DIR. Prints one line per file; exit 0 when all agree, 1 otherwise, 4
// without CUDA.
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
#include "oracles/backend_differential.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

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
  std::vector<std::filesystem::path> files = fuzz::sfz_files_under(flags.dir, &ec);
  if (ec) {
    std::fprintf(stderr, "cannot read %s: %s\n", flags.dir.c_str(), ec.message().c_str());
    return kExitUsage;
  }
  std::unique_ptr<backend::Backend> cpu = backend::make_cpu_backend();
  int agree = 0, differ = 0, skipped = 0;
  for (const std::filesystem::path& path : files) {
    const std::string f = path.string();
    std::optional<std::string> text = fuzz::read_text_file(f);
    if (!text) {  // an OS error, not a user error in the program
      std::printf("skip    %s (cannot read: %s)\n", f.c_str(), std::strerror(errno));
      ++skipped;
      continue;
    }
    oracles::BackendDiff d;
    try {
      d = oracles::diff_backends(program::parse_program(*text), *cpu, *cuda,
                                 oracles::Tolerance{flags.rtol, flags.atol});
    } catch (const UserError& e) {
      d = {oracles::BackendDiff::Kind::kSkipped, e.what()};
    }
    switch (d.kind) {
      case oracles::BackendDiff::Kind::kAgree:
        std::printf("agree   %s%s\n", f.c_str(),
                    d.detail.empty() ? "" : (" (both raise " + d.detail + ")").c_str());
        ++agree;
        break;
      case oracles::BackendDiff::Kind::kDiffer:
        std::printf("DIFFER  %s: %s\n", f.c_str(), d.detail.c_str());
        ++differ;
        break;
      case oracles::BackendDiff::Kind::kSkipped:
        std::printf("skip    %s (%s)\n", f.c_str(), d.detail.c_str());
        ++skipped;
        break;
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
