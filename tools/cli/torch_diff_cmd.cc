// `shapefuzz torch-diff [DIR] [--seeds N]`: our pipeline and PyTorch's on the same programs. Each
// program runs through our pipeline here, is exported (export-torch) and sent to persistent
// PyTorch workers (fuzz/torch/torch_worker.py, one per job); each backend's verdict is judged
// against ours (fuzz/torch/torch_diff.h) and counted by class. Exit 0 when everything agrees.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
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
#include "fuzz/torch/export_torch.h"
#include "fuzz/torch/torch_diff.h"
#include "fuzz/torch/torch_process.h"
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
  std::string out;
  int examples = 5;
  OracleFlags oracles;
};

struct Item {
  std::string name, sfz, python;
  torch_ref::OurOutcome ours;
  std::string our_verdict;
  std::vector<std::string> results;  // one verdict JSON per backend, in --backends order
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

// Our side: the pipeline (on `be`, with the selected oracles), then the export.
void run_ours(Item& item, const program::Program& p, const oracles::PipelineOptions& base,
              backend::Backend* be) {
  oracles::PipelineOptions opts = base;
  opts.backend = be;
  oracles::PipelineResult r = oracles::run_pipeline(p, opts);
  item.ours = torch_ref::our_outcome(r);
  item.our_verdict = r.verdict.str();
  try {
    item.python = torch_ref::export_torch(p, item.name);
  } catch (const UserError& e) {
    item.ours.own_failure = std::string("cannot export: ") + e.what();
  }
}

int torch_diff(const TorchDiffFlags& flags) {
  std::vector<std::string> backends = split(flags.backends);
  std::vector<Item> items;
  oracles::PipelineOptions base = flags.oracles.options();
  std::unique_ptr<backend::Backend> ours = make_backend(flags.ours_backend);
  std::string why;
  if (!ours || !ours->available(&why)) {
    std::fprintf(stderr, "torch-diff: our %s backend is unavailable: %s\n",
                 flags.ours_backend.c_str(), why.c_str());
    return kExitUnavailable;
  }
  auto t0 = std::chrono::steady_clock::now();
  if (!flags.dir.empty()) {
    std::error_code ec;
    for (const fs::path& f : fuzz::sfz_files_under(flags.dir, &ec)) {
      std::optional<std::string> text = fuzz::read_text_file(f);
      if (!text) continue;
      Item item;
      item.name = f.string();
      item.sfz = *text;
      try {
        run_ours(item, program::parse_program(*text), base, ours.get());
      } catch (const UserError& e) {
        continue;  // not a program (a parse error): nothing to compare
      }
      items.push_back(std::move(item));
    }
  }
  for (uint64_t s = flags.seed; s < flags.seed + flags.seeds; ++s) {
    Item item;
    item.name = "seed-" + std::to_string(s);
    program::Program p = fuzz::generated_for_seed(s).program;
    item.sfz = program::print_program(p);
    run_ours(item, p, base, ours.get());
    items.push_back(std::move(item));
  }
  double ours_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // The worker script, written once for this run.
  std::string python = flags.python;
  if (python.empty())
    python = std::getenv("SHAPEFUZZ_PYTHON") ? std::getenv("SHAPEFUZZ_PYTHON") : "python3";
  if (!flags.device.empty()) setenv("SHAPEFUZZ_TORCH_DEVICE", flags.device.c_str(), 1);
  char script[] = "/tmp/shapefuzz-torch-worker-XXXXXX";
  int fd = mkstemp(script);
  if (fd < 0 || write(fd, torch_ref::kTorchWorker, std::strlen(torch_ref::kTorchWorker)) < 0) {
    std::fprintf(stderr, "torch-diff: cannot write the worker script\n");
    return kExitUsage;
  }
  close(fd);

  std::atomic<size_t> next{0};
  std::mutex unavailable_lock;
  std::string unavailable;
  auto t1 = std::chrono::steady_clock::now();
  auto work = [&] {
    torch_ref::TorchProcess worker(python, script);
    for (size_t i; (i = next++) < items.size();) {
      Item& item = items[i];
      if (!item.ours.own_failure.empty()) continue;
      json request = {{"id", item.name}, {"code", item.python}, {"backends", backends}};
      std::string answer, error;
      torch_ref::TorchProcess::Status status =
          worker.ask(request.dump(), flags.timeout, &answer, &error);
      switch (status) {
        case torch_ref::TorchProcess::Status::kAnswer: {
          json a = json::parse(answer, nullptr, false);
          for (size_t b = 0; b < backends.size(); ++b) {
            item.results.push_back(a.is_discarded() || !a.contains("results") ||
                                           a["results"].size() <= b
                                       ? std::string("malformed answer")
                                       : a["results"][b].dump());
          }
          break;
        }
        case torch_ref::TorchProcess::Status::kNotStarted: {
          std::lock_guard<std::mutex> lock(unavailable_lock);
          unavailable = error;
          next = items.size();
          return;
        }
        case torch_ref::TorchProcess::Status::kTimeout:
        case torch_ref::TorchProcess::Status::kDied: {
          bool hung = status == torch_ref::TorchProcess::Status::kTimeout;
          for (const std::string& b : backends) {
            item.results.push_back(json{{"backend", b},
                                        {"verdict", "error"},
                                        {"kind", "crash"},
                                        {"type", hung ? "timeout" : "worker died"},
                                        {"message", hung ? "no answer in time" : error}}
                                       .dump());
          }
          break;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < std::max(1, flags.jobs); ++j) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  std::remove(script);
  if (!unavailable.empty()) {
    std::fprintf(stderr,
                 "torch-diff: PyTorch is unavailable: %s\n(set --python or "
                 "SHAPEFUZZ_PYTHON to a python3 with torch; tools/setup-torch.sh makes one)\n",
                 unavailable.c_str());
    return kExitUnavailable;
  }
  double torch_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();

  // Judge, print, count; keep examples.
  std::map<std::string, std::map<std::string, int>> counts;  // backend -> class -> programs
  json report = {{"backends", backends}, {"programs", json::array()}};
  std::map<std::string, int> kept;
  bool all_agree = true;
  for (const Item& item : items) {
    json entry = {{"name", item.name}, {"ours", item.our_verdict}, {"backends", json::object()}};
    for (size_t b = 0; b < backends.size(); ++b) {
      torch_ref::Judgement j =
          item.ours.own_failure.empty()
              ? torch_ref::judge(item.ours, b < item.results.size() ? item.results[b] : "")
              : torch_ref::Judgement{torch_ref::DiffClass::kOursFailed, item.ours.own_failure};
      std::string cls = torch_ref::diff_class_name(j.cls);
      ++counts[backends[b]][cls];
      entry["backends"][backends[b]] = {{"class", cls}, {"detail", j.detail}};
      if (j.cls == torch_ref::DiffClass::kAgree) continue;
      all_agree = false;
      std::printf("%-26s %-9s %s: %s\n", cls.c_str(), backends[b].c_str(), item.name.c_str(),
                  j.detail.c_str());
      if (!flags.out.empty() && kept[backends[b] + "/" + cls]++ < flags.examples) {
        fs::path dir = fs::path(flags.out) / backends[b] / cls;
        fs::create_directories(dir);
        std::string stem = safe_name(fs::path(item.name).stem().string());
        fuzz::write_atomically(dir / (stem + ".sfz"), item.sfz);
        if (!item.python.empty()) fuzz::write_atomically(dir / (stem + ".py"), item.python);
      }
    }
    report["programs"].push_back(entry);
  }
  std::printf("\n%zu programs: ours %.2f s, PyTorch %.1f s with %d job(s) (%.2f programs/s)\n",
              items.size(), ours_seconds, torch_seconds, flags.jobs,
              items.size() / std::max(torch_seconds, 1e-9));
  for (const auto& [backend, classes] : counts) {
    std::printf("%s:\n", backend.c_str());
    for (const auto& [cls, n] : classes) {
      std::printf("  %-26s %6d  (%.1f%%)\n", cls.c_str(), n, 100.0 * n / items.size());
    }
  }
  if (!flags.out.empty()) {
    report["counts"] = counts;
    report["seconds"] = {{"ours", ours_seconds}, {"torch", torch_seconds}};
    fs::create_directories(flags.out);
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
  cmd->add_option("--seeds", f->seeds, "also this many generated programs")->capture_default_str();
  cmd->add_option("--seed", f->seed, "the first generated program's seed")->capture_default_str();
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
  cmd->add_option("--timeout", f->timeout, "seconds per program before its worker is killed")
      ->capture_default_str()
      ->check(positive_number());
  cmd->add_option("--out", f->out, "write report.json and up to --examples programs per class");
  cmd->add_option("--examples", f->examples, "programs kept per backend and class")
      ->capture_default_str();
  f->oracles.oracles = "structural,differential";
  f->oracles.add_to(cmd);
  cmd->callback([=] {
    if (f->dir.empty() && f->seeds == 0) throw CLI::ValidationError("give DIR or --seeds N");
    *action = [=] { return torch_diff(*f); };
  });
}

}  // namespace sf::cli
