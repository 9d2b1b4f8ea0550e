// The campaign loop: a forked worker runs seeds and reports each verdict over a pipe; the parent
// records verdicts, replaces a worker that crashed, hung, ran out of memory or vanished, and stops
// at the deadline. The worker's stderr goes to a temporary file, so a crash is recorded with its
// SF_CHECK line (the file is emptied before each program).
#include "fuzz/campaign.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <new>
#include <set>
#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "fuzz/gen/program_gen.h"
#include "fuzz/isolated.h"

namespace sf::fuzz {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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
      program::Program p = program_for_seed(seed);
      oracles::PipelineOptions opts = o.pipeline;
      opts.backend = cpu.get();
      Outcome outcome = outcome_of(oracles::run_pipeline(p, opts).verdict);
      bool plain = outcome.bucket == "pass" || outcome.bucket.rfind("rejected:", 0) == 0;
      if (outcome.detail.size() > 4000) outcome.detail.resize(4000);  // one line of the pipe
      std::fprintf(out, "done\t%llu\t%s\t%s\n", static_cast<unsigned long long>(seed),
                   outcome.bucket.c_str(), plain ? "" : outcome.detail.c_str());
      std::fflush(out);
    }
    std::fclose(out);
  } catch (const std::bad_alloc&) {
    _exit(kOomExitCode);
  }
  _exit(0);
}

}  // namespace

program::Program program_for_seed(uint64_t seed) {
  SeedSource src(seed);
  program::Program p = generate_program(src);
  p.header.found_by = "campaign seed=" + std::to_string(seed);
  return p;
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
    if (bucket == "pass" || bucket.rfind("rejected:", 0) == 0) return false;
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
  int err_fd = make_stderr_file();
  while (now_seconds() < deadline && !r.stopped_early) {
    int fds[2];
    if (pipe(fds) != 0) throw_user_error(UserErrorKind::kUnsupported, "pipe() failed");
    pid_t pid = fork();
    if (pid < 0) throw_user_error(UserErrorKind::kUnsupported, "fork() failed");
    if (pid == 0) {
      close(fds[0]);
      worker(fds[1], err_fd, seed, deadline, opts);
    }
    close(fds[1]);
    if (opts.on_worker_start) opts.on_worker_start(pid);
    FILE* in = fdopen(fds[0], "r");
    char line[1 << 16];
    uint64_t current = seed;
    bool in_flight = false, timed_out = false;
    // A watchdog: a program that makes no progress for `timeout` seconds is a hang.
    auto wait_for_line = [&]() {
      struct pollfd pfd {
        fds[0], POLLIN, 0
      };
      if (poll(&pfd, 1, static_cast<int>(opts.timeout * 1000)) == 0) {
        timed_out = true;
        kill(pid, SIGKILL);
        return false;
      }
      return std::fgets(line, sizeof(line), in) != nullptr;
    };
    while (wait_for_line()) {
      std::string s(line);
      if (s.empty() || s.back() != '\n') break;  // a line cut short: the worker died writing it
      s.pop_back();
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
        kill(pid, SIGKILL);
        break;
      }
      if (opts.on_progress && now_seconds() >= next_report) {
        opts.on_progress(now_seconds() - start, r.programs, r.buckets);
        next_report = now_seconds() + 1.0;
      }
    }
    std::fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
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
    std::string report = timed_out ? "no progress for " + std::to_string(opts.timeout) + " s"
                                   : crash_report_line(read_stderr_file(err_fd));
    for (char& c : report) {
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    }
    r.stopped_early = record(crash_bucket(status, timed_out), current, report);
    seed = current + 1;
  }
  if (err_fd >= 0) close(err_fd);
  r.seconds = now_seconds() - start;
  return r;
}

}  // namespace sf::fuzz
