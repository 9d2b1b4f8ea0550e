// `shapefuzz export-torch FILE.sfz [-o OUT.py]`: the program as a self-contained PyTorch program
// (fuzz/torch/export_torch.h) that runs it eagerly, under torch.compile and torch.export and
// prints one JSON verdict per backend.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "engine/base/errors.h"
#include "fuzz/files.h"
#include "fuzz/torch/export_torch.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct ExportFlags {
  std::string file, out;
};

int export_torch(const ExportFlags& flags) {
  if (!flags.out.empty()) {  // checked first, as every command's output
    if (std::optional<std::string> why = fuzz::check_writable_file(flags.out)) {
      std::fprintf(stderr, "export-torch: cannot write %s: %s\n", flags.out.c_str(), why->c_str());
      return kExitUsage;
    }
  }
  std::string text;
  program::Program p = parse_program_file(flags.file, &text);
  std::string python = torch_ref::export_torch(p, flags.file);
  if (flags.out.empty()) {
    std::fwrite(python.data(), 1, python.size(), stdout);
    return kExitOk;
  }
  try {
    fuzz::write_atomically(flags.out, python);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "export-torch: cannot write %s: %s\n", flags.out.c_str(), e.what());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

void add_export_torch_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<ExportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "export-torch",
      "print FILE as a self-contained PyTorch program: the same input data, dynamic/unbacked dims "
      "marked, each op as its torch call, checks as torch._check; run it with python3 to get one "
      "JSON verdict per backend (eager, aot_eager, inductor, export)");
  cmd->add_option("FILE", f->file, "the .sfz program")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--out", f->out, "write the program here instead of standard output");
  cmd->callback([=] { *action = [=] { return export_torch(*f); }; });
}

}  // namespace sf::cli
