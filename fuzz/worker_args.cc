// Formatting and parsing a worker's command line (every value is one argument: paths may hold
// spaces, and nothing goes through a shell).
#include "fuzz/worker_args.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>

namespace sf::fuzz {

namespace {

bool parse_u64(const std::string& s, uint64_t* out) {
  if (s.empty() || s[0] == '-') return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

bool parse_i64(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

bool parse_double(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (*end) return false;
  *out = v;
  return true;
}

}  // namespace

std::vector<std::string> WorkerArgs::to_argv(const std::string& exe) const {
  char deadline[64];
  std::snprintf(deadline, sizeof deadline, "%.6f", plan.deadline);
  std::vector<std::string> out = {exe,
                                  kWorkerSubcommand,
                                  "--first",
                                  std::to_string(plan.first),
                                  "--stride",
                                  std::to_string(plan.stride),
                                  "--end",
                                  std::to_string(plan.end),
                                  "--deadline",
                                  deadline,
                                  "--replay-share",
                                  std::to_string(plan.replay_share),
                                  "--restart",
                                  std::to_string(plan.restart),
                                  "--jobs",
                                  std::to_string(jobs),
                                  "--backend",
                                  backend,
                                  "--oracles",
                                  pipeline.oracles.str(),
                                  "--oracle-timeout-ms",
                                  std::to_string(pipeline.smt.timeout_ms),
                                  "--oracle-deadline-ms",
                                  std::to_string(pipeline.oracle_deadline_ms),
                                  "--memory-mb",
                                  std::to_string(memory_mb)};
  if (plan.swarm) {
    out.push_back("--swarm-origin");
    out.push_back(std::to_string(plan.swarm_origin));
  }
  if (pipeline.smt.cross_check_unsat) out.push_back("--cross-check");
  if (!corpus.empty()) {
    out.push_back("--corpus");
    out.push_back(corpus);
  }
  if (quiet) out.push_back("--quiet");
  return out;
}

std::optional<WorkerArgs> WorkerArgs::parse(const std::vector<std::string>& args,
                                            std::string* error) {
  WorkerArgs w;
  bool first = false, stride = false, deadline = false;
  auto u64 = [](uint64_t* out, bool* seen = nullptr) {
    return [=](const std::string& v) {
      if (seen) *seen = true;
      return parse_u64(v, out);
    };
  };
  uint64_t memory_mb = w.memory_mb, jobs = 1, timeout_ms = w.pipeline.smt.timeout_ms,
           deadline_ms = w.pipeline.oracle_deadline_ms;
  // Options with a value.
  const std::map<std::string, std::function<bool(const std::string&)>> valued = {
      {"--first", u64(&w.plan.first, &first)},
      {"--stride", u64(&w.plan.stride, &stride)},
      {"--end", u64(&w.plan.end)},
      {"--deadline",
       [&](const std::string& v) {
         deadline = true;
         return parse_double(v, &w.plan.deadline);
       }},
      {"--replay-share", [&](const std::string& v) { return parse_i64(v, &w.plan.replay_share); }},
      {"--restart", u64(&w.plan.restart)},
      {"--swarm-origin", u64(&w.plan.swarm_origin, &w.plan.swarm)},
      {"--jobs", u64(&jobs)},
      {"--backend",
       [&](const std::string& v) {
         w.backend = v;
         return v == "cpu" || v == "cuda";
       }},
      {"--oracles",
       [&](const std::string& v) {
         std::optional<oracles::OracleSet> set = oracles::OracleSet::parse(v, nullptr);
         if (set) w.pipeline.oracles = *set;
         return set.has_value();
       }},
      {"--oracle-timeout-ms", u64(&timeout_ms)},
      {"--oracle-deadline-ms", u64(&deadline_ms)},
      {"--memory-mb", u64(&memory_mb)},
      {"--corpus",
       [&](const std::string& v) {
         w.corpus = v;
         return true;
       }},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--quiet") {
      w.quiet = true;
      continue;
    }
    if (a == "--cross-check") {
      w.pipeline.smt.cross_check_unsat = true;
      continue;
    }
    auto it = valued.find(a);
    if (it == valued.end()) {
      if (error) *error = "unknown worker argument '" + a + "'";
      return std::nullopt;
    }
    if (i + 1 >= args.size() || !it->second(args[i + 1])) {
      if (error) {
        *error = i + 1 >= args.size() ? a + " needs a value"
                                      : "bad value '" + args[i + 1] + "' for " + a;
      }
      return std::nullopt;
    }
    ++i;
  }
  if (!first || !stride || !deadline) {
    if (error) *error = "a worker needs --first, --stride and --deadline";
    return std::nullopt;
  }
  if (jobs < 1 || jobs > 1024 || timeout_ms < 1 || deadline_ms < 1 || memory_mb < 1) {
    if (error) *error = "a worker's --jobs, --oracle-*-ms and --memory-mb must be positive";
    return std::nullopt;
  }
  w.jobs = static_cast<int>(jobs);
  w.memory_mb = static_cast<size_t>(memory_mb);
  w.pipeline.smt.timeout_ms = static_cast<unsigned>(timeout_ms);
  w.pipeline.oracle_deadline_ms = static_cast<unsigned>(deadline_ms);
  return w;
}

}  // namespace sf::fuzz
