// `shapefuzz torch-diff [DIR] [--seeds N]`: our pipeline and PyTorch's on the same programs; the
// run, its judging, report and minimization are fuzz/torch/torch_diff_run.h. This adapter reads
// the flags and the known-divergence file and maps the outcome to an exit code.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "fuzz/torch/known_divergences.h"
#include "fuzz/torch/torch_diff_run.h"
#include "tools/cli/backends.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

struct TorchDiffFlags {
  std::string dir;
  uint64_t seeds = 0, seed = 1;
  int jobs = 1;
  std::string backends = "eager,aot_eager";
  std::string python;
  std::string device;
  std::string ours_backend = "cpu";
  double timeout = 60;
  double seconds = 0;  // the PyTorch side's time box (0: none)
  double start_timeout = 300;
  size_t max_reply_mb = 1;
  std::string out;
  int examples = 5;
  int minimize = 1;
  double shrink_seconds = 60;
  std::string known;
  OracleFlags oracles;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');) {
    if (!x.empty()) out.push_back(x);
  }
  return out;
}

std::string python_of(const TorchDiffFlags& flags) {
  if (!flags.python.empty()) return flags.python;
  const char* env = std::getenv("SHAPEFUZZ_PYTHON");
  return env ? env : "python3";
}

int torch_diff(const TorchDiffFlags& flags) {
  torch_ref::TorchDiffOptions o;
  o.dir = flags.dir;
  o.seeds = flags.seeds;
  o.seed = flags.seed;
  o.jobs = flags.jobs;
  o.backends = split(flags.backends);
  o.python = python_of(flags);
  o.device = flags.device;
  // Our backend is made in each child that runs our side, never here: a CUDA context made in
  // this process would not survive the fork (the children's cuInit fails). Asked in a child too.
  o.ours = [name = flags.ours_backend] { return make_backend(name); };
  o.ours_name = flags.ours_backend;
  o.pipeline = flags.oracles.options();
  o.timeout = flags.timeout;
  o.seconds = flags.seconds;
  o.start_timeout = flags.start_timeout;
  o.max_reply_mb = flags.max_reply_mb;
  o.out = flags.out;
  o.examples = flags.examples;
  o.minimize = flags.minimize;
  o.shrink_seconds = flags.shrink_seconds;
  if (!flags.known.empty()) {
    try {
      o.known = torch_ref::KnownDivergences::load(flags.known);
    } catch (const UserError& e) {
      std::fprintf(stderr, "torch-diff: %s\n", e.what());
      return kExitUsage;
    }
    o.known_file = flags.known;
  }
  torch_ref::TorchDiffResult r = torch_ref::run_torch_diff(o, stdout);
  switch (r.status) {
    case torch_ref::TorchDiffStatus::kAllAgree:
    case torch_ref::TorchDiffStatus::kOnlyKnown:
      return kExitOk;
    case torch_ref::TorchDiffStatus::kNew:
      return kExitFindings;
    case torch_ref::TorchDiffStatus::kOursUnavailable:
      std::fprintf(stderr, "torch-diff: %s\n", r.error.c_str());
      return kExitUnavailable;
    case torch_ref::TorchDiffStatus::kTorchUnavailable:
      std::fprintf(stderr,
                   "torch-diff: PyTorch is unavailable: %s\n(set --python or "
                   "SHAPEFUZZ_PYTHON to a python3 with torch; tools/setup-torch.sh makes one)\n",
                   r.error.c_str());
      return kExitUnavailable;
    case torch_ref::TorchDiffStatus::kSetupFailed:
      std::fprintf(stderr, "torch-diff: %s\n", r.error.c_str());
      return kExitUsage;
  }
  return kExitFindings;
}

}  // namespace

void add_torch_diff_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<TorchDiffFlags>();
  CLI::App* cmd = app.add_subcommand(
      "torch-diff",
      "our pipeline and PyTorch's on the same programs (every .sfz under DIR, and/or --seeds "
      "generated ones): each backend's verdict is judged against ours and counted by class "
      "(agree, both-reject-differently, we-reject-torch-accepts, torch-rejects-we-accept, "
      "different-outputs, torch-crashes, torch-self: PyTorch compiled disagrees with PyTorch eager "
      "while ours agrees with eager, ours-failed); exit 0 when all agree (or, with --known, every "
      "disagreement is a known divergence), 1 otherwise, 4 without PyTorch");
  cmd->add_option("DIR", f->dir, "directory of .sfz programs")->check(CLI::ExistingDirectory);
  cmd->add_option("--seeds", f->seeds,
                  "also this many generated programs (seeds S..S+N-1, modulo 2^64; at most "
                  "1048576)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{0}, torch_ref::kMaxTorchDiffSeeds));
  cmd->add_option("--seed", f->seed, "the first generated program's seed")
      ->capture_default_str()
      ->check(seed_number());
  cmd->add_option("--jobs", f->jobs, "PyTorch workers (processes) at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--backends", f->backends,
                  "comma list of eager, aot_eager, inductor, export (inductor compiles for "
                  "seconds per program), capture / capture_export (aot_eager's / torch.export's "
                  "graph judged by our invariants)")
      ->capture_default_str();
  cmd->add_option("--python", f->python,
                  "a python3 with torch (default $SHAPEFUZZ_PYTHON, else python3)");
  cmd->add_option("--device", f->device,
                  "PyTorch's device for inputs and factories (e.g. cuda; default: cpu)");
  cmd->add_option("--ours-backend", f->ours_backend,
                  "where our compiled programs run: cpu, or cuda (our CUDA backend against "
                  "PyTorch's)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_option("--seconds", f->seconds,
                  "time box for the PyTorch side: programs it cuts off are reported as not run, "
                  "the rest judged and reported as usual (0: none)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--timeout", f->timeout,
                  "seconds per program before its worker is killed (the program counts as "
                  "torch-crashes, a fresh worker takes the next one)")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--start-timeout", f->start_timeout,
                  "seconds a worker may take to start (import torch); its handshake, before the "
                  "import, has at most 10 of them; past either PyTorch is unavailable (exit 4)")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--max-reply-mb", f->max_reply_mb,
                  "longest answer line a worker may write, in MiB; past it the worker is killed "
                  "and the program counts as torch-crashes")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{1024}));
  cmd->add_option("--out", f->out, "write report.json and up to --examples programs per class");
  cmd->add_option("--examples", f->examples, "programs kept per backend and class")
      ->capture_default_str();
  cmd->add_option("--minimize", f->minimize,
                  "with --out: shrink this many programs per backend and disagreement key (the "
                  "class and the error kinds on each side) while the disagreement stays, into "
                  "NAME.min.sfz and NAME.min.py beside the examples (0: none)")
      ->capture_default_str();
  cmd->add_option("--known", f->known,
                  "a known-divergence file (e.g. corpus/pytorch/known-divergences.txt): "
                  "disagreements it matches are reported as known, not minimized and not kept as "
                  "examples, and do not make the exit code 1");
  cmd->add_option("--shrink-seconds", f->shrink_seconds, "wall-clock budget of one minimization")
      ->capture_default_str()
      ->check(positive_number());
  f->oracles.oracles = "structural,differential";
  f->oracles.add_to(cmd);
  cmd->callback([=] {
    if (f->dir.empty() && f->seeds == 0) throw CLI::ValidationError("give DIR or --seeds N");
    *action = [=] { return torch_diff(*f); };
  });
}

}  // namespace sf::cli
