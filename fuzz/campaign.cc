// The campaign loop: a forked worker runs seeds and reports each verdict over a pipe; the parent
// records verdicts, replaces a worker that crashed, hung, ran out of memory or vanished, and stops
// at the deadline. The worker's stderr goes to a temporary file, so a crash is recorded with its
// SF_CHECK line (the file is emptied before each program).
#include "fuzz/campaign.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <new>
#include <set>
#include <string>

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

// Worker: runs seeds from `first` until `deadline`, writing "start\tSEED" before each program and
// "done\tSEED\tBUCKET\tDETAIL" after it, so the parent knows which seed was in flight at a crash.
[[noreturn]] void worker(int fd, int err_fd, uint64_t first, double deadline,
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
    for (uint64_t seed = first; now_seconds() < deadline; ++seed) {
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
  uint64_t seed = opts.first_seed;
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
  StderrFile err;
  while (now_seconds() < deadline && !r.stopped_early) {
    Worker w;
    w.start([&](int out_fd) { worker(out_fd, err.fd, seed, deadline, opts); });
    if (opts.on_worker_start) opts.on_worker_start(w.pid);
    uint64_t current = seed;
    bool in_flight = false, timed_out = false;
    std::string s;
    // A watchdog: a program that makes no progress for `timeout` seconds is a hang.
    for (;;) {
      LineStatus st = w.lines.next(&s, opts.timeout);
      if (st == LineStatus::kTimeout) {
        timed_out = true;
        w.kill();
      }
      if (st != LineStatus::kLine) break;
      size_t t1 = s.find('\t');
      if (s.substr(0, t1) == "start") {
        current = std::stoull(s.substr(t1 + 1));
        in_flight = true;
        continue;
      }
      size_t t2 = s.find('\t', t1 + 1), t3 = s.find('\t', t2 + 1);
      in_flight = false;
      seed = current + 1;
      if (record(s.substr(t2 + 1, t3 - t2 - 1), current, s.substr(t3 + 1))) {
        r.stopped_early = true;
        w.kill();
        break;
      }
      if (opts.on_progress && now_seconds() >= next_report) {
        opts.on_progress(now_seconds() - start, r.programs, r.buckets);
        next_report = now_seconds() + 1.0;
      }
    }
    int status = w.reap();
    if (r.stopped_early) break;
    bool clean_exit = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!in_flight) {
      // Between programs: a clean exit is the deadline; anything else lost the worker, which
      // had no program to blame. Either way a fresh worker goes on (if there is time left).
      if (!clean_exit) ++r.workers_lost;
      continue;
    }
    // The worker died inside a program: an aborting engine bug, a hang, out of memory, or an
    // exit (an exception that escaped the pipeline).
    std::string report = timed_out ? "" : crash_report_line(read_stderr_file(err.fd));
    r.stopped_early = record(crash_bucket(status, timed_out), current, printable(report));
    seed = current + 1;
  }
  r.seconds = now_seconds() - start;
  return r;
}

}  // namespace sf::fuzz
