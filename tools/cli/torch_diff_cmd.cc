// `shapefuzz torch-diff [DIR] [--seeds N]`: our pipeline and PyTorch's on the same programs. A
// first PyTorch worker is started (and so PyTorch found) before anything else; then each program
// runs through our pipeline here, is exported (export-torch) and sent to persistent PyTorch
// workers (fuzz/torch/torch_worker.py, one per job); each backend's verdict is judged against ours
// (fuzz/torch/torch_diff.h) and counted by class. Exit 0 when everything agrees.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "fuzz/campaign.h"
#include "fuzz/files.h"
#include "fuzz/shrink_program.h"
#include "fuzz/torch/export_torch.h"
#include "fuzz/torch/torch_case.h"
#include "fuzz/torch/torch_diff.h"
#include "fuzz/torch/torch_process.h"
#include "fuzz/torch/torch_shrink.h"
#include "fuzz/torch/worker_text.h"
#include "tools/cli/backends.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

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

std::string safe_name(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  }
  return s;
}

std::string python_of(const TorchDiffFlags& flags) {
  if (!flags.python.empty()) return flags.python;
  const char* env = std::getenv("SHAPEFUZZ_PYTHON");
  return env ? env : "python3";
}

// The worker script, written once for a run and removed with it.
class WorkerScript {
 public:
  WorkerScript() {
    int fd = mkstemp(path_);
    ok_ = fd >= 0 && write(fd, torch_ref::kTorchWorker, std::strlen(torch_ref::kTorchWorker)) ==
                         static_cast<ssize_t>(std::strlen(torch_ref::kTorchWorker));
    if (fd >= 0) close(fd);
  }
  ~WorkerScript() { std::remove(path_); }
  bool ok() const { return ok_; }
  const char* path() const { return path_; }

 private:
  char path_[40] = "/tmp/shapefuzz-torch-worker-XXXXXX";
  bool ok_ = false;
};

using Workers = std::vector<std::unique_ptr<torch_ref::TorchProcess>>;

// Runs `task(worker, i)` for i in [0, n) on one thread per worker. Stops early, with
// `*unavailable` set, when a worker cannot start.
void on_workers(size_t n, Workers& workers,
                const std::function<torch_ref::TorchProcess::Status(torch_ref::TorchProcess&,
                                                                    size_t, std::string*)>& task,
                std::string* unavailable) {
  std::atomic<size_t> next{0};
  std::mutex lock;
  auto work = [&](torch_ref::TorchProcess& worker) {
    for (size_t i; (i = next++) < n;) {
      std::string error;
      if (task(worker, i, &error) == torch_ref::TorchProcess::Status::kNotStarted) {
        std::lock_guard<std::mutex> guard(lock);
        *unavailable = error;
        next = n;
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::unique_ptr<torch_ref::TorchProcess>& w : workers) {
    threads.emplace_back(work, std::ref(*w));
  }
  for (std::thread& t : threads) t.join();
}

// Progress on stderr for long runs: a line every 5% (at most every 100 programs).
class Progress {
 public:
  explicit Progress(size_t total) : total_(total), step_(std::clamp<size_t>(total / 20, 1, 100)) {}
  void one_done() {
    size_t done = ++done_;
    if (done % step_ != 0 && done != total_) return;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "torch-diff: %zu/%zu programs through PyTorch (%.2f/s)\n", done, total_,
                 done / std::max(s, 1e-9));
  }

 private:
  size_t total_, step_;
  std::atomic<size_t> done_{0};
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// `text` with the comment `line` after its "# sfz" version line (the format's first line).
std::string with_comment(const std::string& text, const std::string& line) {
  size_t at = text.rfind("# sfz", 0) == 0 ? text.find('\n') : std::string::npos;
  if (at == std::string::npos) return line + text;
  return text.substr(0, at + 1) + line + text.substr(at + 1);
}

// Our pipeline runs each program in a child (an engine crash is that program's ours-failed).
constexpr double kOurSideSeconds = 30;
// Programs whose our side runs in one child (a CUDA context is made once per child).
constexpr size_t kOurSideBatch = 32;

// At most this many generated programs in one run (gen --count's bound): every program is kept
// in memory until the report.
constexpr uint64_t kMaxSeeds = uint64_t{1} << 20;

// A shrunk candidate can loop forever in PyTorch (a while_loop whose condition lost its counter;
// ours stops at 10,000 iterations): unless the disagreement is a hang, a candidate gets 20 s.
double candidate_timeout(const TorchDiffFlags& flags, const std::string& key) {
  return key.find("timeout") != std::string::npos ? flags.timeout : std::min(flags.timeout, 20.0);
}

// One disagreement to minimize: the first programs of each backend and key.
struct ToMinimize {
  const torch_ref::TorchCase* from;
  std::string backend, cls, key;
  fs::path dir;
  std::string stem;
};

int torch_diff(const TorchDiffFlags& flags) {
  std::vector<std::string> backends = split(flags.backends);
  std::vector<torch_ref::TorchCase> cases;
  oracles::PipelineOptions opts = flags.oracles.options();
  // Our backend is made in each child that runs our side, never here: a CUDA context made in
  // this process would not survive the fork (the children's cuInit fails). Asked in a child too.
  torch_ref::BackendMaker ours = [name = flags.ours_backend] { return make_backend(name); };
  if (std::string why = torch_ref::our_backend_unavailable(ours); !why.empty()) {
    std::fprintf(stderr, "torch-diff: our %s backend is unavailable: %s\n",
                 flags.ours_backend.c_str(), why.c_str());
    return kExitUnavailable;
  }

  // PyTorch first: without it nothing below is worth running.
  std::string python = python_of(flags);
  if (!flags.device.empty()) setenv("SHAPEFUZZ_TORCH_DEVICE", flags.device.c_str(), 1);
  WorkerScript script;
  if (!script.ok()) {
    std::fprintf(stderr, "torch-diff: cannot write the worker script\n");
    return kExitUsage;
  }
  auto unavailable_exit = [](const std::string& error) {
    std::fprintf(stderr,
                 "torch-diff: PyTorch is unavailable: %s\n(set --python or "
                 "SHAPEFUZZ_PYTHON to a python3 with torch; tools/setup-torch.sh makes one)\n",
                 error.c_str());
    return kExitUnavailable;
  };
  torch_ref::WorkerLimits worker_limits;
  worker_limits.start_seconds = flags.start_timeout;
  worker_limits.max_line_bytes = flags.max_reply_mb << 20;
  Workers workers;
  for (int j = 0; j < std::max(1, flags.jobs); ++j) {
    workers.push_back(
        std::make_unique<torch_ref::TorchProcess>(python, script.path(), worker_limits));
  }
  std::string unavailable;
  if (!workers[0]->start(&unavailable)) return unavailable_exit(unavailable);

  auto t0 = std::chrono::steady_clock::now();
  std::vector<program::Program> programs;
  if (!flags.dir.empty()) {
    std::error_code ec;
    for (const fs::path& f : fuzz::sfz_files_under(flags.dir, &ec)) {
      std::optional<std::string> text = fuzz::read_text_file(f);
      if (!text) continue;
      torch_ref::TorchCase c;
      c.name = f.string();
      c.sfz = *text;
      try {
        programs.push_back(program::parse_program(*text));
      } catch (const UserError& e) {
        continue;  // not a program (a parse error): nothing to compare
      }
      cases.push_back(std::move(c));
    }
  }
  // Seeds count modulo 2^64, as gen's do: the last ones are followed by 0, 1, ...
  for (uint64_t k = 0; k < flags.seeds; ++k) {
    uint64_t s = flags.seed + k;
    torch_ref::TorchCase c;
    c.name = "seed-" + std::to_string(s);
    programs.push_back(fuzz::generated_for_seed(s).program);
    c.sfz = program::print_program(programs.back());
    cases.push_back(std::move(c));
  }
  for (size_t first = 0; first < cases.size(); first += kOurSideBatch) {
    std::vector<torch_ref::TorchCase*> batch;
    std::vector<const program::Program*> batch_programs;
    for (size_t i = first; i < std::min(cases.size(), first + kOurSideBatch); ++i) {
      batch.push_back(&cases[i]);
      batch_programs.push_back(&programs[i]);
    }
    torch_ref::run_our_side_batch(batch, batch_programs, opts, kOurSideSeconds, ours);
  }
  double ours_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  auto t1 = std::chrono::steady_clock::now();
  // With a time box, a program starts only while time is left, with at most that time to answer;
  // one cut short by the box is not run (not judged) rather than a hang of PyTorch's. What ran is
  // judged and reported either way, so a campaign's window never loses a whole run.
  auto box_end = t1 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          std::chrono::duration<double>(flags.seconds));
  auto time_left = [&] {
    return std::chrono::duration<double>(box_end - std::chrono::steady_clock::now()).count();
  };
  Progress progress(cases.size());
  on_workers(
      cases.size(), workers,
      [&](torch_ref::TorchProcess& worker, size_t i, std::string* error) {
        torch_ref::TorchCase& c = cases[i];
        torch_ref::TorchProcess::Status status = torch_ref::TorchProcess::Status::kAnswer;
        if (c.ours.own_failure.empty()) {
          double timeout = flags.timeout;
          if (flags.seconds > 0) timeout = std::min(timeout, time_left());
          if (timeout <= 0) {
            c.not_run = true;
            return status;
          }
          status = torch_ref::run_torch_side(c, worker, backends, timeout, error);
          if (status == torch_ref::TorchProcess::Status::kTimeout && timeout < flags.timeout) {
            c.not_run = true;
          }
        }
        progress.one_done();
        return status;
      },
      &unavailable);
  if (!unavailable.empty()) return unavailable_exit(unavailable);
  double torch_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();

  // Judge, print, count; keep examples, and pick the first program of each key to minimize.
  std::map<std::string, std::map<std::string, int>> counts;  // backend -> class -> programs
  std::map<std::string, std::map<std::string, int>> keys;    // backend -> key -> programs
  json report = {{"backends", backends}, {"programs", json::array()}};
  std::map<std::string, int> kept;
  std::vector<ToMinimize> to_minimize;
  bool all_agree = true;
  size_t judged = 0;
  json not_run = json::array();
  for (const torch_ref::TorchCase& c : cases) {
    if (c.not_run) {
      not_run.push_back(c.name);
      continue;
    }
    ++judged;
    json entry = {{"name", c.name}, {"ours", c.our_verdict}, {"backends", json::object()}};
    for (size_t b = 0; b < backends.size(); ++b) {
      torch_ref::Judgement j = torch_ref::judge_backend(c, b);
      std::string cls = torch_ref::diff_class_name(j.cls);
      ++counts[backends[b]][cls];
      entry["backends"][backends[b]] = {{"class", cls}, {"key", j.key}, {"detail", j.detail}};
      if (j.cls == torch_ref::DiffClass::kAgree) continue;
      all_agree = false;
      int seen = keys[backends[b]][j.key]++;
      std::printf("%-26s %-9s %s: %s\n", cls.c_str(), backends[b].c_str(), c.name.c_str(),
                  j.detail.c_str());
      if (flags.out.empty()) continue;
      fs::path dir = fs::path(flags.out) / backends[b] / cls;
      std::string stem = safe_name(fs::path(c.name).stem().string());
      if (seen < flags.minimize && j.cls != torch_ref::DiffClass::kOursFailed) {
        to_minimize.push_back({&c, backends[b], cls, j.key, dir, stem});
      }
      if (kept[backends[b] + "/" + cls]++ >= flags.examples) continue;
      fs::create_directories(dir);
      fuzz::write_atomically(dir / (stem + ".sfz"), c.sfz);
      if (!c.python.empty()) fuzz::write_atomically(dir / (stem + ".py"), c.python);
    }
    report["programs"].push_back(entry);
  }
  std::printf("\n%zu programs: ours %.2f s, PyTorch %.1f s with %d job(s) (%.2f programs/s)\n",
              judged, ours_seconds, torch_seconds, flags.jobs,
              judged / std::max(torch_seconds, 1e-9));
  if (!not_run.empty()) {
    std::printf("%zu programs not run: the --seconds %.0f time box ended first\n", not_run.size(),
                flags.seconds);
  }
  for (const auto& [backend, classes] : counts) {
    std::printf("%s:\n", backend.c_str());
    for (const auto& [cls, n] : classes) {
      std::printf("  %-26s %6d  (%.1f%%)\n", cls.c_str(), n,
                  100.0 * n / std::max<size_t>(judged, 1));
      for (const auto& [key, m] : keys[backend]) {
        if (key.rfind(cls + " ", 0) == 0 || key == cls) {
          std::printf("      %6d  %s\n", m, key.c_str());
        }
      }
    }
  }
  if (flags.out.empty()) return all_agree ? kExitOk : kExitFindings;
  report["not_run"] = not_run;
  report["counts"] = counts;
  report["keys"] = keys;
  report["seconds"] = {{"ours", ours_seconds}, {"torch", torch_seconds}};
  fs::create_directories(flags.out);
  fuzz::write_atomically(fs::path(flags.out) / "report.json", report.dump(1));

  // Minimize after the report is safe: each candidate runs through our pipeline and PyTorch's.
  json minimized = json::array();
  std::mutex lock;
  if (flags.seconds > 0 && time_left() <= 0 && !to_minimize.empty()) {
    std::printf("\nnot minimizing %zu disagreements: the time box has ended\n", to_minimize.size());
    to_minimize.clear();
  }
  if (!to_minimize.empty()) {
    std::printf("\nminimizing %zu disagreements (the first %d per backend and key, %.0f s each)\n",
                to_minimize.size(), flags.minimize, flags.shrink_seconds);
  }
  fuzz::ShrinkLimits limits;
  limits.seconds = flags.shrink_seconds;
  if (flags.seconds > 0) limits.seconds = std::min(limits.seconds, std::max(1.0, time_left()));
  on_workers(
      to_minimize.size(), workers,
      [&](torch_ref::TorchProcess& worker, size_t i, std::string*) {
        const ToMinimize& m = to_minimize[i];
        torch_ref::DisagreementShrink shrink =
            torch_ref::shrink_disagreement(m.from->sfz, m.backend, m.key, worker, opts,
                                           candidate_timeout(flags, m.key), limits, ours);
        const fuzz::ShrinkResult& r = shrink.shrunk;
        json entry = {{"backend", m.backend},
                      {"key", m.key},
                      {"from", m.from->name},
                      {"reproduced", r.reproduced},
                      {"attempts", r.attempts},
                      {"stopped_by", r.stopped_by},
                      {"lines_before", fuzz::program_text_lines(m.from->sfz)},
                      {"lines_after", fuzz::program_text_lines(r.text)}};
        if (r.reproduced) {
          fs::create_directories(m.dir);
          fs::path file = m.dir / (m.stem + ".min.sfz");
          fuzz::write_atomically(
              file, with_comment(r.text, "# torch-diff " + m.backend + ": " + m.key +
                                             " (minimized from " + m.from->name + ")\n"));
          entry["file"] = file.string();
          try {
            fuzz::write_atomically(
                m.dir / (m.stem + ".min.py"),
                torch_ref::export_torch(program::parse_program(r.text), file.string()));
          } catch (const UserError&) {
          }
        }
        if (!shrink.our_crash.empty()) {
          // Not this disagreement, but a crash of ours: kept for `minimize` and `repro`.
          fs::path dir = fs::path(flags.out) / "ours-crashed";
          fs::create_directories(dir);
          fs::path file = dir / (m.stem + "." + safe_name(m.backend) + ".sfz");
          fuzz::write_atomically(
              file, with_comment(shrink.our_crash_program, "# our pipeline: " + shrink.our_crash +
                                                               " (a candidate while minimizing " +
                                                               m.from->name + ")\n"));
          entry["our_crash"] = {{"file", file.string()}, {"crash", shrink.our_crash}};
        }
        std::lock_guard<std::mutex> guard(lock);
        std::printf("%-9s %s: %s %d -> %d lines (%d runs, %s)\n", m.backend.c_str(), m.key.c_str(),
                    m.from->name.c_str(), entry["lines_before"].get<int>(),
                    entry["lines_after"].get<int>(), r.attempts,
                    r.reproduced ? r.stopped_by.c_str() : "did not reproduce");
        if (!shrink.our_crash.empty()) {
          std::printf("          our pipeline crashed on a candidate (%s): %s\n",
                      shrink.our_crash.c_str(),
                      entry["our_crash"]["file"].get<std::string>().c_str());
        }
        std::fflush(stdout);
        minimized.push_back(entry);
        return torch_ref::TorchProcess::Status::kAnswer;
      },
      &unavailable);
  if (!to_minimize.empty()) {
    report["minimized"] = minimized;
    fuzz::write_atomically(fs::path(flags.out) / "report.json", report.dump(1));
  }
  return all_agree ? kExitOk : kExitFindings;
}

}  // namespace

void add_torch_diff_command(CLI::App& app, Action* action) {
  auto f = std::make_shared<TorchDiffFlags>();
  CLI::App* cmd = app.add_subcommand(
      "torch-diff",
      "our pipeline and PyTorch's on the same programs (every .sfz under DIR, and/or --seeds "
      "generated ones): each backend's verdict is judged against ours and counted by class "
      "(agree, both-reject-differently, we-reject-torch-accepts, torch-rejects-we-accept, "
      "different-outputs, torch-crashes, ours-failed); exit 0 when all agree, 1 otherwise, 4 "
      "without PyTorch");
  cmd->add_option("DIR", f->dir, "directory of .sfz programs")->check(CLI::ExistingDirectory);
  cmd->add_option("--seeds", f->seeds,
                  "also this many generated programs (seeds S..S+N-1, modulo 2^64; at most "
                  "1048576)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{0}, kMaxSeeds));
  cmd->add_option("--seed", f->seed, "the first generated program's seed")
      ->capture_default_str()
      ->check(seed_number());
  cmd->add_option("--jobs", f->jobs, "PyTorch workers (processes) at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--backends", f->backends,
                  "comma list of eager, aot_eager, inductor, export (inductor compiles for "
                  "seconds per program)")
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
