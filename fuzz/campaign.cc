// The campaign loop: a forked worker runs seeds and reports each verdict over a pipe; the parent
// records verdicts, restarts the worker after a crash or hang, and stops at the deadline.
#include "fuzz/campaign.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
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
[[noreturn]] void worker(int fd, uint64_t first, double deadline,
                         const oracles::PipelineOptions& base, bool quiet) {
  if (quiet) silence_stderr();
  auto cpu = backend::make_cpu_backend();
  FILE* out = fdopen(fd, "w");
  for (uint64_t seed = first; now_seconds() < deadline; ++seed) {
    std::fprintf(out, "start\t%llu\n", static_cast<unsigned long long>(seed));
    std::fflush(out);
    program::Program p = program_for_seed(seed);
    oracles::PipelineOptions opts = base;
    opts.backend = cpu.get();
    oracles::Verdict v = oracles::run_pipeline(p, opts).verdict;
    std::string detail =
        v.kind == oracles::Verdict::Kind::kPass || v.kind == oracles::Verdict::Kind::kRejected
            ? ""
            : v.str();
    for (char& c : detail) {
      if (c == '\n' || c == '\t') c = ' ';
    }
    std::fprintf(out, "done\t%llu\t%s\t%s\n", static_cast<unsigned long long>(seed),
                 v.bucket().c_str(), detail.c_str());
    std::fflush(out);
  }
  std::fclose(out);
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
  // Records one verdict; returns true when the caller asked to stop.
  auto record = [&](const std::string& bucket, uint64_t s, const std::string& detail) {
    ++r.programs;
    ++r.buckets[bucket];
    if (bucket == "pass" || bucket.rfind("rejected:", 0) == 0) return false;
    Finding f{bucket, s, detail, now_seconds() - start, !r.first_seed_of.count(bucket)};
    if (f.first_of_bucket) r.first_seed_of[bucket] = s;
    return opts.on_finding && opts.on_finding(f);
  };
  while (now_seconds() < deadline && !r.stopped_early) {
    int fds[2];
    if (pipe(fds) != 0) throw_user_error(UserErrorKind::kUnsupported, "pipe() failed");
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      worker(fds[1], seed, deadline, opts.pipeline, opts.quiet_workers);
    }
    close(fds[1]);
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
      if (!s.empty() && s.back() == '\n') s.pop_back();
      size_t t1 = s.find('\t');
      if (s.substr(0, t1) == "start") {
        current = std::stoull(s.substr(t1 + 1));
        in_flight = true;
        continue;
      }
      size_t t2 = s.find('\t', t1 + 1), t3 = s.find('\t', t2 + 1);
      in_flight = false;
      if (record(s.substr(t2 + 1, t3 - t2 - 1), current, s.substr(t3 + 1))) {
        r.stopped_early = true;
        kill(pid, SIGKILL);
        break;
      }
      if (opts.on_progress && now_seconds() >= next_report) {
        opts.on_progress(now_seconds() - start, r.programs, r.buckets);
        next_report += 1.0;
      }
    }
    std::fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
    if (r.stopped_early) break;
    if (!in_flight) break;  // the worker reached the deadline
    // The worker died inside a program: an aborting engine bug, or a hang.
    // (An exit inside a program is a crash too: an exception that escaped the pipeline.)
    std::string bucket = timed_out             ? "crash:timeout"
                         : WIFSIGNALED(status) ? "crash:signal" + std::to_string(WTERMSIG(status))
                                               : "crash:exit" + std::to_string(WEXITSTATUS(status));
    r.stopped_early = record(bucket, current, "");
    seed = current + 1;
  }
  r.seconds = now_seconds() - start;
  return r;
}

}  // namespace sf::fuzz
