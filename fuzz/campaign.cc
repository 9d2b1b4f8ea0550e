// The campaign loop: forked workers (--jobs of them) run seeds and report each verdict over a
// pipe; the parent polls them all, records verdicts, replaces a worker that crashed, hung, ran out
// of memory or vanished, and stops at the deadline. The worker's stderr goes to a temporary file,
// so a crash is recorded with its SF_CHECK line (the file is emptied before each program).
#include "fuzz/campaign.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "fuzz/gen/program_gen.h"
#include "fuzz/isolated.h"
#include "fuzz/line_reader.h"
#include "fuzz/outcome.h"

namespace sf::fuzz {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The worker's stderr: one temporary file for the whole campaign.
struct StderrFile {
  int fd = make_stderr_file();
  ~StderrFile() {
    if (fd >= 0) close(fd);
  }
};

// A forked worker and the read end of its pipe. Killed and reaped when it goes out of scope, so
// an exception in the parent (a report that cannot be written) leaves no orphan behind.
struct Worker {
  pid_t pid = -1;
  LineReader lines;
  bool reaped = false;

  template <typename Body>
  void start(Body body) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw_user_error(UserErrorKind::kUnsupported, "pipe() failed");
    pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      throw_user_error(UserErrorKind::kUnsupported, "fork() failed");
    }
    if (pid == 0) {
      close(fds[0]);
      body(fds[1]);
      _exit(0);
    }
    close(fds[1]);
    lines.fd = fds[0];
  }
  void kill() {
    if (pid > 0 && !reaped) ::kill(pid, SIGKILL);
  }
  int reap() {
    int status = 0;
    if (pid > 0 && !reaped) {
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      reaped = true;
    }
    return status;
  }
  ~Worker() {
    kill();
    reap();
    if (lines.fd >= 0) close(lines.fd);
  }
};

// Worker: runs seeds first, first + stride, ... until `deadline`, writing "start\tSEED" before each
// program and "done\tSEED\tBUCKET\tDETAIL" after it, so the parent knows which seed was in flight
// at a crash.
[[noreturn]] void worker(int fd, int err_fd, uint64_t first, uint64_t stride, double deadline,
                         const CampaignOptions& o) {
  if (o.quiet_workers) {
    silence_stderr();
    err_fd = -1;
  } else if (err_fd >= 0) {
    dup2(err_fd, 2);
  }
  limit_memory(o.memory_mb);
  signal(SIGPIPE, SIG_DFL);  // the parent gone: die quietly
  try {
    auto cpu = backend::make_cpu_backend();
    FILE* out = fdopen(fd, "w");
    for (uint64_t seed = first; now_seconds() < deadline; seed += stride) {
      if (err_fd >= 0) {  // the file keeps only this program's reports (offset shared with fd 2)
        if (ftruncate(err_fd, 0) != 0 || lseek(err_fd, 0, SEEK_SET) != 0) err_fd = -1;
      }
      std::fprintf(out, "start\t%llu\n", static_cast<unsigned long long>(seed));
      std::fflush(out);
      GeneratedProgram g = generated_for_seed(seed);
      oracles::PipelineOptions opts = o.pipeline;
      opts.backend = cpu.get();
      opts.eager_reference = &g.eager;
      Outcome outcome = outcome_of(oracles::run_pipeline(g.program, opts).verdict);
      outcome.detail = printable(utf8_prefix(outcome.detail, 4000));  // one pipe line
      std::fprintf(out, "done\t%llu\t%s\t%s\n", static_cast<unsigned long long>(seed),
                   outcome.bucket.c_str(),
                   is_plain_bucket(outcome.bucket) ? "" : outcome.detail.c_str());
      std::fflush(out);
    }
    std::fclose(out);
  } catch (const std::bad_alloc&) {
    _exit(kOomExitCode);
  }
  _exit(0);
}

}  // namespace

program::Program program_for_seed(uint64_t seed) { return generated_for_seed(seed).program; }

GeneratedProgram generated_for_seed(uint64_t seed) {
  SeedSource src(seed);
  GeneratedProgram g = generate_program_with_result(src);
  g.program.header.found_by = "campaign seed=" + std::to_string(seed);
  return g;
}

bool is_finding_bucket(const std::string& bucket) {
  return bucket.rfind("fail:", 0) == 0 || bucket.rfind("crash:", 0) == 0;
}

CampaignResult run_campaign(const CampaignOptions& opts) {
  CampaignResult r;
  double start = now_seconds(), deadline = start + opts.seconds;
  double next_report = start + 1.0;
  const uint64_t jobs = std::max(1, opts.jobs);
  std::set<std::string> signatures;
  // Records one verdict; returns true when the caller asked to stop.
  auto record = [&](const std::string& bucket, uint64_t s, const std::string& detail) {
    ++r.programs;
    ++r.buckets[bucket];
    if (opts.on_verdict) opts.on_verdict(s, bucket);
    if (is_plain_bucket(bucket)) return false;
    Finding f;
    f.bucket = bucket;
    f.seed = s;
    f.detail = detail;
    f.signature = signature({bucket, detail});
    f.elapsed = now_seconds() - start;
    f.first_of_bucket = !r.first_seed_of.count(bucket);
    f.first_of_signature = signatures.insert(f.signature).second;
    if (f.first_of_bucket) r.first_seed_of[bucket] = s;
    return opts.on_finding && opts.on_finding(f);
  };

  // Worker slot j runs seeds first_seed + j, + jobs, + 2 jobs, ...; a replacement worker goes on
  // from the seed after the last one the slot finished or lost.
  struct Slot {
    std::unique_ptr<Worker> w;
    StderrFile err;
    uint64_t next_seed = 0, current = 0;
    bool in_flight = false, timed_out = false;
    double last_line = 0;  // for the watchdog: a program making no progress is a hang
  };
  std::vector<Slot> slots(jobs);
  for (uint64_t j = 0; j < jobs; ++j) slots[j].next_seed = opts.first_seed + j;

  // A worker's pipe ended (it exited, crashed, or was killed): record what it was doing.
  auto finish_worker = [&](Slot& slot) {
    int status = slot.w->reap();
    bool clean_exit = !slot.timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!slot.in_flight) {
      // Between programs: a clean exit is the deadline; anything else lost the worker, which
      // had no program to blame. Either way a fresh worker goes on (if there is time left).
      if (!clean_exit) ++r.workers_lost;
    } else if (!r.stopped_early) {
      // The worker died inside a program: an aborting engine bug, a hang, out of memory, or an
      // exit (an exception that escaped the pipeline).
      std::string report = slot.timed_out ? "" : crash_report_line(read_stderr_file(slot.err.fd));
      r.stopped_early =
          record(crash_bucket(status, slot.timed_out), slot.current, printable(report));
      slot.next_seed = slot.current + jobs;
    }
    slot.w.reset();
    slot.in_flight = slot.timed_out = false;
  };
  // One line from a worker; false when the campaign stops early.
  auto handle_line = [&](Slot& slot, const std::string& s) {
    size_t t1 = s.find('\t');
    if (s.substr(0, t1) == "start") {
      slot.current = std::stoull(s.substr(t1 + 1));
      slot.in_flight = true;
      return true;
    }
    size_t t2 = s.find('\t', t1 + 1), t3 = s.find('\t', t2 + 1);
    slot.in_flight = false;
    slot.next_seed = slot.current + jobs;
    if (record(s.substr(t2 + 1, t3 - t2 - 1), slot.current, s.substr(t3 + 1))) {
      r.stopped_early = true;
      return false;
    }
    return true;
  };

  for (;;) {
    double now = now_seconds();
    bool running = false;
    for (Slot& slot : slots) {
      if (!slot.w && now < deadline && !r.stopped_early) {
        slot.w = std::make_unique<Worker>();
        uint64_t first = slot.next_seed;
        int err_fd = slot.err.fd;
        slot.w->start([&](int out_fd) { worker(out_fd, err_fd, first, jobs, deadline, opts); });
        slot.last_line = now;
        if (opts.on_worker_start) opts.on_worker_start(slot.w->pid);
      }
      running = running || slot.w;
    }
    if (!running) break;

    std::vector<pollfd> fds;
    std::vector<Slot*> polled;
    for (Slot& slot : slots) {
      if (!slot.w) continue;
      fds.push_back({slot.w->lines.fd, POLLIN, 0});
      polled.push_back(&slot);
    }
    int ready = poll(fds.data(), fds.size(), 200);
    if (ready < 0 && errno != EINTR) break;
    now = now_seconds();
    for (size_t i = 0; i < polled.size(); ++i) {
      Slot& slot = *polled[i];
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        bool open = slot.w->lines.read_some();
        std::string line;
        while (!r.stopped_early && slot.w->lines.take_line(&line)) {
          slot.last_line = now;
          if (!handle_line(slot, line)) break;
        }
        if (!open) {
          finish_worker(slot);
          continue;
        }
      }
      if (r.stopped_early) continue;
      if (now - slot.last_line > opts.timeout) {
        slot.timed_out = true;
        slot.w->kill();  // its pipe ends next; finish_worker records the hang
      }
    }
    if (r.stopped_early) {
      for (Slot& slot : slots) {
        if (slot.w) {
          slot.w->kill();
          slot.w->reap();
          slot.w.reset();
        }
      }
      break;
    }
    if (opts.on_progress && now >= next_report) {
      opts.on_progress(now - start, r.programs, r.buckets);
      next_report = now + 1.0;
    }
  }
  r.seconds = now_seconds() - start;
  return r;
}

}  // namespace sf::fuzz
