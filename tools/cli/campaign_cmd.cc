// `shapefuzz campaign`: a time-boxed fuzz campaign on the CPU backend. Programs come from the
// generator (one per seed); each runs through the whole pipeline (trace, re-propagation, asserts,
// lowering, CPU run, oracles, differential vs eager). A worker process runs the programs and
// reports each verdict over a pipe, so an aborting engine bug (SF_CHECK) is recorded as a crash
// of that seed and the campaign continues in a fresh worker. Failures are written as reproducers.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/base/sha256.h"
#include "engine/program/printer.h"
#include "fuzz/gen/program_gen.h"
#include "oracles/pipeline.h"
#include "tools/cli/commands.h"

namespace sf::cli {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

program::Program program_for_seed(uint64_t seed) {
  fuzz::SeedSource src(seed);
  program::Program p = fuzz::generate_program(src);
  p.header.found_by = "campaign seed=" + std::to_string(seed);
  return p;
}

// A reproducer file: the program's text with the bucket it fell in as a comment right after the
// version line, so that the file still starts with "# sfz 1" and runs as-is with `run`.
std::string reproducer_text(const std::string& bucket_note, const program::Program& p) {
  std::string text = program::print_program(p);
  size_t body = text.find('\n') + 1;
  return text.substr(0, body) + "# " + bucket_note + "\n" + text.substr(body);
}

// Worker: runs seeds from `first` until `deadline`, writing "seed<TAB>bucket<TAB>detail\n" lines.
[[noreturn]] void worker(int fd, uint64_t first, double deadline,
                         const oracles::PipelineOptions& base) {
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

// Writes `text` to `path` atomically (temp file + rename), so a report is never half-written.
void write_atomically(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary);
    o << text;
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace

int campaign_command(const Args& args) {
  double seconds = args.get_double("seconds", 60);
  uint64_t seed = args.get_u64("seed", 1);
  double timeout = args.get_double("timeout", 10);
  std::filesystem::path out_dir = args.get("out", "report");
  std::string oracle_error;
  std::optional<oracles::OracleSet> oracle_set =
      oracles::OracleSet::parse(args.get("oracles", "all"), &oracle_error);
  if (!oracle_set) {
    std::fprintf(stderr, "%s\n", oracle_error.c_str());
    return 2;
  }
  oracles::PipelineOptions base;
  base.oracles = *oracle_set;
  base.smt.timeout_ms = static_cast<unsigned>(args.get_u64("oracle-timeout-ms", 1000));
  base.smt.cross_check_unsat = args.flag("cross-check");
  double start = now_seconds(), deadline = start + seconds;
  std::map<std::string, uint64_t> buckets;
  std::map<std::string, uint64_t> first_seed_of_failure;
  uint64_t programs = 0, crashes = 0;
  double next_report = start + 1.0;
  while (now_seconds() < deadline) {
    int fds[2];
    if (pipe(fds) != 0) throw_user_error(UserErrorKind::kUnsupported, "pipe() failed");
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      worker(fds[1], seed, deadline, base);
    }
    close(fds[1]);
    FILE* in = fdopen(fds[0], "r");
    char line[1 << 16];
    uint64_t current = seed;
    bool in_flight = false;
    bool timed_out = false;
    // A watchdog: a program that makes no progress for `timeout` seconds is a hang.
    auto wait_for_line = [&]() {
      struct pollfd pfd {
        fds[0], POLLIN, 0
      };
      int ready = poll(&pfd, 1, static_cast<int>(timeout * 1000));
      if (ready == 0) {
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
      std::string tag = s.substr(0, t1);
      if (tag == "start") {
        current = std::stoull(s.substr(t1 + 1));
        in_flight = true;
        continue;
      }
      size_t t2 = s.find('\t', t1 + 1), t3 = s.find('\t', t2 + 1);
      std::string bucket = s.substr(t2 + 1, t3 - t2 - 1), detail = s.substr(t3 + 1);
      in_flight = false;
      ++programs;
      ++buckets[bucket];
      // Failures, and for triage wrong rejections and undecided oracles: one reproducer each.
      bool is_fail = bucket.rfind("fail:", 0) == 0;
      bool is_triage = bucket.rfind("wrong-rejection:", 0) == 0 || bucket.rfind("unknown:", 0) == 0;
      if ((is_fail || is_triage) && !first_seed_of_failure.count(bucket)) {
        first_seed_of_failure[bucket] = current;
        std::string text = reproducer_text(bucket + ": " + detail, program_for_seed(current));
        std::string name = bucket.substr(bucket.find(':') + 1);
        write_atomically(out_dir / (is_fail ? "failures" : "triage") /
                             (name + "-seed" + std::to_string(current) + ".sfz"),
                         text);
        std::fprintf(stderr, "%s seed=%llu %s\n", is_fail ? "FAIL" : "TRIAGE",
                     static_cast<unsigned long long>(current), detail.c_str());
      }
      if (now_seconds() >= next_report) {
        double el = now_seconds() - start;
        std::fprintf(
            stderr,
            "[%5.1fs] programs=%llu (%.0f/s) pass=%llu rejected=%llu fail=%llu crash=%llu\n", el,
            static_cast<unsigned long long>(programs), programs / el,
            static_cast<unsigned long long>(buckets["pass"]), static_cast<unsigned long long>([&] {
              uint64_t r = 0;
              for (auto& [k, n] : buckets) r += k.rfind("rejected:", 0) == 0 ? n : 0;
              return r;
            }()),
            static_cast<unsigned long long>([&] {
              uint64_t r = 0;
              for (auto& [k, n] : buckets) r += k.rfind("fail:", 0) == 0 ? n : 0;
              return r;
            }()),
            static_cast<unsigned long long>(crashes));
        next_report += 1.0;
      }
    }
    std::fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
    if (in_flight) {  // the worker died inside a program: an aborting engine bug, or a hang
      ++crashes;
      ++programs;
      std::string bucket =
          timed_out ? "crash:timeout"
                    : "crash:signal" + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
      ++buckets[bucket];
      if (!first_seed_of_failure.count(bucket)) {
        first_seed_of_failure[bucket] = current;
        std::string text = reproducer_text(bucket, program_for_seed(current));
        write_atomically(out_dir / "crashes" / ("seed" + std::to_string(current) + ".sfz"), text);
        std::fprintf(stderr, "CRASH seed=%llu (%s)\n", static_cast<unsigned long long>(current),
                     bucket.c_str());
      }
      seed = current + 1;
    } else {
      break;  // the worker reached the deadline
    }
  }
  double el = now_seconds() - start;
  std::string json =
      "{\n  \"seconds\": " + std::to_string(el) + ",\n  \"programs\": " + std::to_string(programs) +
      ",\n  \"programs_per_second\": " + std::to_string(programs / el) + ",\n  \"buckets\": {";
  bool first = true;
  for (const auto& [k, n] : buckets) {
    json += std::string(first ? "\n" : ",\n") + "    \"" + k + "\": " + std::to_string(n);
    first = false;
  }
  json += "\n  },\n  \"first_seeds\": {";
  first = true;
  for (const auto& [k, s] : first_seed_of_failure) {
    json += std::string(first ? "\n" : ",\n") + "    \"" + k + "\": " + std::to_string(s);
    first = false;
  }
  json += "\n  }\n}\n";
  write_atomically(out_dir / "report.json", json);
  std::printf("campaign: %llu programs in %.1fs (%.0f/s), report in %s\n",
              static_cast<unsigned long long>(programs), el, programs / el,
              (out_dir / "report.json").c_str());
  for (const auto& [k, n] : buckets)
    std::printf("  %-40s %llu\n", k.c_str(), static_cast<unsigned long long>(n));
  bool failed = false;
  for (const auto& [k, n] : buckets)
    failed = failed || k.rfind("fail:", 0) == 0 || k.rfind("crash:", 0) == 0;
  return failed ? 1 : 0;
}

}  // namespace sf::cli
