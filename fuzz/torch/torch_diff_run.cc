// torch-diff's run: a first PyTorch worker is started (and so PyTorch found) before anything
// else; our side runs in crash-isolated batches on a thread of its own while the PyTorch workers
// (one per job) take each program as soon as ours is done; then judging, the report, examples
// and the minimization of new keys.
#include "fuzz/torch/torch_diff_run.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "fuzz/campaign.h"
#include "fuzz/files.h"
#include "fuzz/shrink_program.h"
#include "fuzz/torch/export_torch.h"
#include "fuzz/torch/torch_process.h"
#include "fuzz/torch/torch_shrink.h"
#include "fuzz/torch/worker_text.h"
#include "oracles/torch_graph/invariants.h"

namespace sf::torch_ref {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string safe_name(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  }
  return s;
}

// Counts in the report's nested objects ({} or null when nothing was counted yet).
int count_in(const json& counts, const std::string& key) {
  return counts.is_object() ? counts.value(key, 0) : 0;
}
int bump(json& counts, const std::string& key) {
  int before = count_in(counts, key);
  counts[key] = before + 1;
  return before;
}

// The worker script, written once for a run and removed with it.
class WorkerScript {
 public:
  WorkerScript() {
    int fd = mkstemp(path_);
    ok_ = fd >= 0 && write(fd, kTorchWorker, std::strlen(kTorchWorker)) ==
                         static_cast<ssize_t>(std::strlen(kTorchWorker));
    if (fd >= 0) close(fd);
  }
  ~WorkerScript() { std::remove(path_); }
  bool ok() const { return ok_; }
  const char* path() const { return path_; }

 private:
  char path_[40] = "/tmp/shapefuzz-torch-worker-XXXXXX";
  bool ok_ = false;
};

using Workers = std::vector<std::unique_ptr<TorchProcess>>;

// Runs `task(worker, i)` for i in [0, n) on one thread per worker. Stops early, with
// `*unavailable` set, when a worker cannot start.
void on_workers(
    size_t n, Workers& workers,
    const std::function<TorchProcess::Status(TorchProcess&, size_t, std::string*)>& task,
    std::string* unavailable) {
  std::atomic<size_t> next{0};
  std::mutex lock;
  auto work = [&](TorchProcess& worker) {
    for (size_t i; (i = next++) < n;) {
      std::string error;
      if (task(worker, i, &error) == TorchProcess::Status::kNotStarted) {
        std::lock_guard<std::mutex> guard(lock);
        *unavailable = error;
        next = n;
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::unique_ptr<TorchProcess>& w : workers) threads.emplace_back(work, std::ref(*w));
  for (std::thread& t : threads) t.join();
}

// Progress on stderr for long runs: a line every 5% (at most every 100 programs).
class Progress {
 public:
  explicit Progress(size_t total) : total_(total), step_(std::clamp<size_t>(total / 20, 1, 100)) {}
  void one_done() {
    size_t done = ++done_;
    if (done % step_ != 0 && done != total_) return;
    std::fprintf(stderr, "torch-diff: %zu/%zu programs through PyTorch (%.2f/s)\n", done, total_,
                 done / std::max(seconds_since(start_), 1e-9));
  }

 private:
  size_t total_, step_;
  std::atomic<size_t> done_{0};
  Clock::time_point start_ = Clock::now();
};

// How far our side has got: PyTorch's workers wait for a program's outcome before sending it.
class OurSideProgress {
 public:
  void done_up_to(size_t n) {
    std::lock_guard<std::mutex> guard(lock_);
    done_ = n;
    ready_.notify_all();
  }
  void wait_for(size_t i) {
    std::unique_lock<std::mutex> guard(lock_);
    ready_.wait(guard, [&] { return done_ > i; });
  }

 private:
  std::mutex lock_;
  std::condition_variable ready_;
  size_t done_ = 0;
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

// A shrunk candidate can loop forever in PyTorch (a while_loop whose condition lost its counter;
// ours stops at 10,000 iterations): unless the disagreement is a hang, a candidate gets 20 s.
double candidate_timeout(const TorchDiffOptions& o, const std::string& key) {
  return key.find("timeout") != std::string::npos ? o.timeout : std::min(o.timeout, 20.0);
}

// One disagreement to minimize: the first programs of each backend and new key.
struct ToMinimize {
  const TorchCase* from;
  std::string backend, cls, key;
  fs::path dir;
  std::string stem;
  std::string detail, torch_version;
};

// The exported program, with a header an issue can quote when PyTorch broke an invariant.
std::string reproducer_python(const ToMinimize& m, const std::string& sfz,
                              const std::string& file) {
  std::string py = export_torch(program::parse_program(sfz), file);
  const std::string prefix = std::string(diff_class_name(DiffClass::kTorchInvariant)) + " ";
  if (m.key.rfind(prefix, 0) != 0) return py;
  std::string invariant =
      m.key.substr(prefix.size(), m.key.find(' ', prefix.size()) - prefix.size());
  // A message PyTorch wrapped over several lines stays one comment line.
  std::string seen = m.detail;
  for (char& c : seen) c = (c == '\n' || c == '\r') ? ' ' : c;
  std::string py_file = fs::path(file).replace_extension(".py").filename().string();
  const char* graph = m.backend == "capture"          ? "the graph after AOTAutograd"
                      : m.backend == "capture_export" ? "torch.export's graph (the unlifted module)"
                                                      : "PyTorch's graph";
  std::string header = "# PyTorch " + (m.torch_version.empty() ? "?" : m.torch_version) +
                       " breaks: " + torch_graph::describe_invariant(invariant) +
                       ".\n# Seen (before minimizing): " + seen + "\n# `python3 " + py_file +
                       " " + m.backend + "` prints " + graph +
                       ", its ShapeEnv and each node's real value as JSON;\n# `python3 " + py_file +
                       (invariant == "eager-raised" ? " eager " + m.backend +
                                                          "` shows eager raising and the graph "
                                                          "running to the end.\n"
                                                    : " eager " + m.backend + "` runs it.\n");
  return header + py;
}

// The programs to compare: every parsable .sfz under the directory, then the generated seeds
// (modulo 2^64, as gen's).
void collect_programs(const TorchDiffOptions& o, std::vector<TorchCase>* cases,
                      std::vector<program::Program>* programs) {
  if (!o.dir.empty()) {
    std::error_code ec;
    for (const fs::path& f : fuzz::sfz_files_under(o.dir, &ec)) {
      std::optional<std::string> text = fuzz::read_text_file(f);
      if (!text) continue;
      try {
        programs->push_back(program::parse_program(*text));
      } catch (const UserError&) {
        continue;  // not a program (a parse error): nothing to compare
      }
      TorchCase c;
      c.name = f.string();
      c.sfz = *text;
      cases->push_back(std::move(c));
    }
  }
  for (uint64_t k = 0; k < o.seeds; ++k) {
    TorchCase c;
    c.name = "seed-" + std::to_string(o.seed + k);
    programs->push_back(fuzz::generated_for_seed(o.seed + k).program);
    c.sfz = program::print_program(programs->back());
    cases->push_back(std::move(c));
  }
}

void print_summary(std::FILE* log, const json& report, size_t judged) {
  for (const auto& [backend, classes] : report["counts"].items()) {
    std::fprintf(log, "%s:\n", backend.c_str());
    for (const auto& [cls, n] : classes.items()) {
      std::fprintf(log, "  %-26s %6d  (%.1f%%)\n", cls.c_str(), n.get<int>(),
                   100.0 * n.get<int>() / std::max<size_t>(judged, 1));
      for (const auto& [key, m] : report["keys"][backend].items()) {
        if (key.rfind(cls + " ", 0) != 0 && key != cls) continue;
        int known = report["known_keys"].contains(backend)
                        ? count_in(report["known_keys"][backend], key)
                        : 0;
        std::fprintf(log, "      %6d  %s%s\n", m.get<int>(), key.c_str(),
                     known == 0              ? "  [new]"
                     : known == m.get<int>() ? "  [known]"
                                             : "  [partly known]");
      }
    }
  }
}

}  // namespace

TorchDiffResult run_torch_diff(const TorchDiffOptions& o, std::FILE* log) {
  TorchDiffResult result;
  if (std::string why = o.ours ? our_backend_unavailable(o.ours) : ""; !why.empty()) {
    result.status = TorchDiffStatus::kOursUnavailable;
    result.error = "our " + o.ours_name + " backend is unavailable: " + why;
    return result;
  }
  // PyTorch first: without it nothing below is worth running.
  if (!o.device.empty()) setenv("SHAPEFUZZ_TORCH_DEVICE", o.device.c_str(), 1);
  WorkerScript script;
  if (!script.ok()) {
    result.status = TorchDiffStatus::kSetupFailed;
    result.error = "cannot write the worker script";
    return result;
  }
  WorkerLimits worker_limits;
  worker_limits.start_seconds = o.start_timeout;
  worker_limits.max_line_bytes = o.max_reply_mb << 20;
  Workers workers;
  for (int j = 0; j < std::max(1, o.jobs); ++j) {
    workers.push_back(std::make_unique<TorchProcess>(o.python, script.path(), worker_limits));
  }
  auto unavailable = [&](const std::string& error) {
    result.status = TorchDiffStatus::kTorchUnavailable;
    result.error = error;
    return result;
  };
  std::string not_started;
  if (!workers[0]->start(&not_started)) return unavailable(not_started);

  std::vector<TorchCase> cases;
  std::vector<program::Program> programs;
  collect_programs(o, &cases, &programs);

  // Our side on a thread of its own, batch by batch; PyTorch's workers follow it.
  auto t0 = Clock::now();
  OurSideProgress ours_done;
  double ours_seconds = 0;
  std::thread our_side([&] {
    for (size_t first = 0; first < cases.size(); first += kOurSideBatch) {
      size_t end = std::min(cases.size(), first + kOurSideBatch);
      std::vector<TorchCase*> batch;
      std::vector<const program::Program*> batch_programs;
      for (size_t i = first; i < end; ++i) {
        batch.push_back(&cases[i]);
        batch_programs.push_back(&programs[i]);
      }
      run_our_side_batch(batch, batch_programs, o.pipeline, kOurSideSeconds, o.ours);
      ours_done.done_up_to(end);
    }
    ours_seconds = seconds_since(t0);
  });

  // With a time box, a program starts only while time is left, with at most that time to answer;
  // one cut short by the box is not run (not judged) rather than a hang of PyTorch's. What ran is
  // judged and reported either way, so a campaign's window never loses a whole run.
  auto box_end =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  auto time_left = [&] { return std::chrono::duration<double>(box_end - Clock::now()).count(); };
  Progress progress(cases.size());
  std::string torch_unavailable;
  on_workers(
      cases.size(), workers,
      [&](TorchProcess& worker, size_t i, std::string* error) {
        ours_done.wait_for(i);
        TorchCase& c = cases[i];
        TorchProcess::Status status = TorchProcess::Status::kAnswer;
        if (c.ours.own_failure.empty()) {
          double timeout = o.timeout;
          if (o.seconds > 0) timeout = std::min(timeout, time_left());
          if (timeout <= 0) {
            c.not_run = true;
            return status;
          }
          status = run_torch_side(c, worker, o.backends, timeout, error);
          if (status == TorchProcess::Status::kTimeout && timeout < o.timeout) c.not_run = true;
        }
        progress.one_done();
        return status;
      },
      &torch_unavailable);
  our_side.join();
  if (!torch_unavailable.empty()) return unavailable(torch_unavailable);
  double total_seconds = seconds_since(t0);

  // Judge, print, count; keep examples of the new, and pick the first program of each new key.
  json report = {{"backends", o.backends}, {"programs", json::array()}};
  json& counts = report["counts"] = json::object();          // backend -> class -> programs
  json& keys = report["keys"] = json::object();              // backend -> key -> programs
  json& known_keys = report["known_keys"] = json::object();  // backend -> key -> known programs
  json& known_ids = report["known"] = json::object();        // rule id -> programs
  std::map<std::string, int> kept;
  std::vector<ToMinimize> to_minimize;
  size_t judged = 0, disagreements = 0, known = 0;
  json not_run = json::array();
  for (const TorchCase& c : cases) {
    if (c.not_run) {
      not_run.push_back(c.name);
      continue;
    }
    ++judged;
    json entry = {{"name", c.name}, {"ours", c.our_verdict}, {"backends", json::object()}};
    std::vector<Judgement> js = judge_case(c, o.backends);
    for (size_t b = 0; b < o.backends.size(); ++b) {
      const std::string& backend = o.backends[b];
      const Judgement& j = js[b];
      std::string cls = diff_class_name(j.cls);
      bump(counts[backend], cls);
      json verdict = {{"class", cls}, {"key", j.key}, {"detail", j.detail}};
      if (j.facts_checked >= 0) {
        verdict["facts"] = {{"checked", j.facts_checked},
                            {"unknown", j.facts_unknown},
                            {"unreadable", j.unreadable},
                            {"orphan", j.orphan_facts}};
        if (!j.violations.empty()) verdict["violations"] = j.violations;
        json& f = report["facts"][backend];
        bump(f, "programs");
        f["checked"] = count_in(f, "checked") + j.facts_checked;
        f["unknown"] = count_in(f, "unknown") + j.facts_unknown;
        f["unreadable"] = count_in(f, "unreadable") + j.unreadable;
        f["orphan"] = count_in(f, "orphan") + j.orphan_facts;
        for (const std::string& what : j.unreadable_what) bump(f["unreadable_what"], what);
      }
      if (j.cls == DiffClass::kAgree) {
        entry["backends"][backend] = verdict;
        continue;
      }
      ++disagreements;
      int seen = bump(keys[backend], j.key);
      const KnownDivergence* rule = o.known.match(backend, cls, j.detail, c.sfz, c.name);
      if (rule) {
        ++known;
        verdict["known"] = rule->id;
        bump(known_keys[backend], j.key);
        bump(known_ids, rule->id);
      }
      entry["backends"][backend] = verdict;
      std::fprintf(log, "%-26s %-9s %s: %s%s\n", cls.c_str(), backend.c_str(), c.name.c_str(),
                   j.detail.c_str(), rule ? ("  [known: " + rule->id + "]").c_str() : "");
      if (o.out.empty() || rule) continue;
      fs::path dir = fs::path(o.out) / backend / cls;
      std::string stem = safe_name(fs::path(c.name).stem().string());
      if (seen < o.minimize && j.cls != DiffClass::kOursFailed) {
        to_minimize.push_back({&c, backend, cls, j.key, dir, stem, j.detail, j.torch_version});
      }
      if (kept[backend + "/" + cls]++ >= o.examples) continue;
      fs::create_directories(dir);
      fuzz::write_atomically(dir / (stem + ".sfz"), c.sfz);
      if (!c.python.empty()) fuzz::write_atomically(dir / (stem + ".py"), c.python);
    }
    report["programs"].push_back(entry);
  }
  double programs_per_second = judged / std::max(total_seconds, 1e-9);
  std::fprintf(log,
               "\n%zu programs in %.1f s (%.2f programs/s; ours %.2f s, overlapped with "
               "PyTorch's %d job(s))\n",
               judged, total_seconds, programs_per_second, ours_seconds, o.jobs);
  if (!not_run.empty()) {
    std::fprintf(log, "%zu programs not run: the --seconds %.0f time box ended first\n",
                 not_run.size(), o.seconds);
  }
  print_summary(log, report, judged);
  if (report.contains("facts")) {
    for (const auto& [backend, f] : report["facts"].items()) {
      std::fprintf(log,
                   "%s: PyTorch's graph judged on %d programs: %d facts decided, %d undecided, %d "
                   "over symbols of discarded traces, %d expressions unreadable\n",
                   backend.c_str(), count_in(f, "programs"), count_in(f, "checked"),
                   count_in(f, "unknown"), count_in(f, "orphan"), count_in(f, "unreadable"));
      if (f.contains("unreadable_what")) {
        std::fprintf(log, "  unreadable, by what (the expression reader's to-do list):\n");
        for (const auto& [what, n] : f["unreadable_what"].items()) {
          std::fprintf(log, "  %8d  %s\n", n.get<int>(), what.c_str());
        }
      }
    }
  }
  if (!o.known.empty()) {
    std::fprintf(log, "%zu disagreements: %zu known (%s, %zu rules), %zu new\n", disagreements,
                 known, o.known_file.c_str(), o.known.rules().size(), disagreements - known);
  }
  result.status = disagreements == 0       ? TorchDiffStatus::kAllAgree
                  : known == disagreements ? TorchDiffStatus::kOnlyKnown
                                           : TorchDiffStatus::kNew;
  report["not_run"] = not_run;
  report["known_file"] = o.known_file;
  report["new_disagreements"] = disagreements - known;
  report["seconds"] = {{"ours", ours_seconds}, {"total", total_seconds}};
  report["programs_per_second"] = programs_per_second;
  result.report = report;
  if (o.out.empty()) return result;
  fs::create_directories(o.out);
  fuzz::write_atomically(fs::path(o.out) / "report.json", report.dump(1));

  // Minimize after the report is safe: each candidate runs through our pipeline and PyTorch's.
  json minimized = json::array();
  std::mutex lock;
  if (o.seconds > 0 && time_left() <= 0 && !to_minimize.empty()) {
    std::fprintf(log, "\nnot minimizing %zu disagreements: the time box has ended\n",
                 to_minimize.size());
    to_minimize.clear();
  }
  if (!to_minimize.empty()) {
    std::fprintf(log,
                 "\nminimizing %zu disagreements (the first %d per backend and new key, %.0f s "
                 "each)\n",
                 to_minimize.size(), o.minimize, o.shrink_seconds);
  }
  fuzz::ShrinkLimits limits;
  limits.seconds = o.shrink_seconds;
  if (o.seconds > 0) limits.seconds = std::min(limits.seconds, std::max(1.0, time_left()));
  on_workers(
      to_minimize.size(), workers,
      [&](TorchProcess& worker, size_t i, std::string*) {
        const ToMinimize& m = to_minimize[i];
        DisagreementShrink shrink =
            shrink_disagreement(m.from->sfz, m.backend, m.key, worker, o.pipeline,
                                candidate_timeout(o, m.key), limits, o.ours);
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
            fuzz::write_atomically(m.dir / (m.stem + ".min.py"),
                                   reproducer_python(m, r.text, file.string()));
          } catch (const UserError&) {
          }
        }
        if (!shrink.our_crash.empty()) {
          // Not this disagreement, but a crash of ours: kept for `minimize` and `repro`.
          fs::path dir = fs::path(o.out) / "ours-crashed";
          fs::create_directories(dir);
          fs::path file = dir / (m.stem + "." + safe_name(m.backend) + ".sfz");
          fuzz::write_atomically(
              file, with_comment(shrink.our_crash_program, "# our pipeline: " + shrink.our_crash +
                                                               " (a candidate while minimizing " +
                                                               m.from->name + ")\n"));
          entry["our_crash"] = {{"file", file.string()}, {"crash", shrink.our_crash}};
        }
        std::lock_guard<std::mutex> guard(lock);
        std::fprintf(log, "%-9s %s: %s %d -> %d lines (%d runs, %s)\n", m.backend.c_str(),
                     m.key.c_str(), m.from->name.c_str(), entry["lines_before"].get<int>(),
                     entry["lines_after"].get<int>(), r.attempts,
                     r.reproduced ? r.stopped_by.c_str() : "did not reproduce");
        if (!shrink.our_crash.empty()) {
          std::fprintf(log, "          our pipeline crashed on a candidate (%s): %s\n",
                       shrink.our_crash.c_str(),
                       entry["our_crash"]["file"].get<std::string>().c_str());
        }
        std::fflush(log);
        minimized.push_back(entry);
        return TorchProcess::Status::kAnswer;
      },
      &not_started);
  if (!to_minimize.empty()) {
    report["minimized"] = minimized;
    result.report = report;
    fuzz::write_atomically(fs::path(o.out) / "report.json", report.dump(1));
  }
  return result;
}

}  // namespace sf::torch_ref
