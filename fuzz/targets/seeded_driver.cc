// The seeded-loop driver: a main() for the fuzz targets when they are built without libFuzzer
// (gcc, the default build). It takes the libFuzzer flags a user already knows (-runs=, -seed=,
// -max_total_time=, -max_len=, -timeout=, -artifact_prefix=), replays files, replays and mutates
// corpus directories, and writes crash-<hash> / timeout-<hash> files that both drivers replay.
// Built with libFuzzer (SF_LIBFUZZER), this file is empty and libFuzzer's own main is used.
#ifndef SF_LIBFUZZER

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace {

using Bytes = std::vector<uint8_t>;

struct Flags {
  int64_t runs = -1;  // -1: until max_total_time (or forever), like libFuzzer
  uint64_t seed = 0;  // 0: from the clock, printed so the run can be repeated
  double max_total_time = 0;
  size_t max_len = 4096;
  unsigned timeout = 1200;
  std::string artifact_prefix = "./";
  std::vector<std::string> paths;
};

// The input being run, for the signal handler (written with async-signal-safe calls only).
const uint8_t* g_current = nullptr;
size_t g_current_size = 0;
std::string g_prefix = "./";

// "<prefix><kind>-<16 hex digits>" into buf, without allocating (it runs in a signal handler).
void artifact_name(const char* kind, char* buf, size_t cap) {
  uint64_t h = sf::fuzz::fnv1a(g_current, g_current_size);
  size_t n = 0;
  for (const char* p = g_prefix.c_str(); *p && n + 1 < cap; ++p) buf[n++] = *p;
  for (const char* p = kind; *p && n + 1 < cap; ++p) buf[n++] = *p;
  if (n + 1 < cap) buf[n++] = '-';
  for (int i = 15; i >= 0 && n + 1 < cap; --i) buf[n++] = "0123456789abcdef"[(h >> (4 * i)) & 15];
  buf[n] = '\0';
}

void write_artifact(const char* kind) {
  if (!g_current) return;
  char name[4096];
  artifact_name(kind, name, sizeof name);
  int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    size_t off = 0;
    while (off < g_current_size) {
      ssize_t w = write(fd, g_current + off, g_current_size - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(fd);
  }
  const char* head = "==shapefuzz-driver== input written to ";
  (void)!write(2, head, strlen(head));
  (void)!write(2, name, strlen(name));
  (void)!write(2, "\n", 1);
}

void on_deadly_signal(int sig) {
  write_artifact("crash");
  signal(sig, SIG_DFL);
  raise(sig);
}

void on_alarm(int) {
  const char* msg = "==shapefuzz-driver== ERROR: timeout on one input\n";
  (void)!write(2, msg, strlen(msg));
  write_artifact("timeout");
  _exit(70);  // libFuzzer's exit code for a timeout
}

void install_handlers() {
  // An alternate stack, so a stack overflow (SIGSEGV with no stack left) still writes its file.
  static std::vector<char> alt_stack(1 << 16);
  stack_t ss{};
  ss.ss_sp = alt_stack.data();
  ss.ss_size = alt_stack.size();
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_deadly_signal;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &sa, nullptr);
  signal(SIGALRM, on_alarm);
}

bool read_file(const std::string& path, Bytes* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

bool is_dir(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Regular files directly under dir, sorted by name (a deterministic replay order).
std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string p = dir + "/" + e->d_name;
      struct stat st;
      if (e->d_name[0] != '.' && stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) out.push_back(p);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void run_one(const Bytes& input, unsigned timeout) {
  // libFuzzer hands the target a heap copy of exactly `size` bytes, so reads past it are caught.
  uint8_t* copy = new uint8_t[input.size() ? input.size() : 1];
  std::copy(input.begin(), input.end(), copy);
  g_current = copy;
  g_current_size = input.size();
  alarm(timeout);
  LLVMFuzzerTestOneInput(copy, input.size());
  alarm(0);
  g_current = nullptr;
  delete[] copy;
}

// A libFuzzer-style byte mutation of a corpus entry: flip, insert, erase, overwrite or splice.
Bytes mutate(const Bytes& base, const std::vector<Bytes>& corpus, sf::fuzz::FuzzSource& rng,
             size_t max_len) {
  Bytes b = base;
  int edits = 1 + static_cast<int>(rng.range(0, 3));
  for (int k = 0; k < edits; ++k) {
    size_t pos = b.empty() ? 0 : rng.pick(b.size());
    switch (rng.range(0, 4)) {
      case 0:
        if (!b.empty()) b[pos] ^= static_cast<uint8_t>(1u << rng.range(0, 7));
        break;
      case 1:
        b.insert(b.begin() + pos, static_cast<uint8_t>(rng.range(0, 255)));
        break;
      case 2:
        if (!b.empty()) b.erase(b.begin() + pos);
        break;
      case 3:
        if (!b.empty()) b[pos] = static_cast<uint8_t>(rng.range(0, 255));
        break;
      case 4: {  // splice: our prefix, another entry's suffix
        const Bytes& other = corpus[rng.pick(corpus.size())];
        size_t cut = other.empty() ? 0 : rng.pick(other.size());
        b.resize(pos);
        b.insert(b.end(), other.begin() + cut, other.end());
        break;
      }
    }
  }
  if (b.size() > max_len) b.resize(max_len);
  return b;
}

bool parse_flag(const char* arg, const char* name, std::string* value) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [-runs=N] [-seed=S] [-max_total_time=SECONDS] [-max_len=BYTES]\n"
               "          [-timeout=SECONDS] [-artifact_prefix=PATH] [FILE|DIR]...\n"
               "Files are replayed once each. Directories are a corpus: replayed, then mutated\n"
               "(with random inputs) for -runs inputs or -max_total_time seconds. An input that\n"
               "crashes is written to <artifact_prefix>crash-<hash>. The libFuzzer build of this\n"
               "target takes the same flags.\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    const char* a = argv[i];
    if (parse_flag(a, "-runs", &v)) {
      f.runs = std::strtoll(v.c_str(), nullptr, 10);
    } else if (parse_flag(a, "-seed", &v)) {
      f.seed = std::strtoull(v.c_str(), nullptr, 10);
    } else if (parse_flag(a, "-max_total_time", &v)) {
      f.max_total_time = std::strtod(v.c_str(), nullptr);
    } else if (parse_flag(a, "-max_len", &v)) {
      f.max_len = std::strtoull(v.c_str(), nullptr, 10);
    } else if (parse_flag(a, "-timeout", &v)) {
      f.timeout = static_cast<unsigned>(std::strtoul(v.c_str(), nullptr, 10));
    } else if (parse_flag(a, "-artifact_prefix", &v)) {
      f.artifact_prefix = v;
    } else if (!strcmp(a, "-help=1") || !strcmp(a, "--help") || !strcmp(a, "-h")) {
      return usage(argv[0]), 0;
    } else if (a[0] == '-') {
      std::fprintf(stderr, "WARNING: unknown flag %s ignored (libFuzzer-only?)\n", a);
    } else {
      f.paths.push_back(a);
    }
  }
  if (f.max_len == 0) f.max_len = 1;
  g_prefix = f.artifact_prefix;
  if (f.seed == 0) {
    f.seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count() &
                                   0x7fffffff);
  }
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  install_handlers();

  std::vector<std::string> dirs;
  std::vector<std::string> files;
  for (const std::string& p : f.paths) (is_dir(p) ? dirs : files).push_back(p);
  if (!files.empty() && dirs.empty()) {  // libFuzzer's reproduce mode: run each file once
    for (const std::string& path : files) {
      Bytes input;
      if (!read_file(path, &input)) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        return 2;
      }
      std::fprintf(stderr, "Running: %s\n", path.c_str());
      auto t0 = std::chrono::steady_clock::now();
      run_one(input, f.timeout);
      double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "Executed %s in %.0f ms\n", path.c_str(), ms);
    }
    return 0;
  }

  std::fprintf(stderr, "INFO: Seed: %llu\n", static_cast<unsigned long long>(f.seed));
  // Files named beside directories join the corpus (replayed first, then mutated).
  std::vector<Bytes> corpus;
  std::vector<std::string> inputs = files;
  for (const std::string& d : dirs) {
    for (const std::string& path : list_dir(d)) inputs.push_back(path);
  }
  for (const std::string& path : inputs) {
    Bytes input;
    if (read_file(path, &input)) corpus.push_back(std::move(input));
  }
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  int64_t execs = 0;
  for (const Bytes& input : corpus) {
    run_one(input, f.timeout);
    ++execs;
  }
  std::fprintf(stderr, "#%lld INITED corpus: %zu inputs (%.2f s)\n", static_cast<long long>(execs),
               corpus.size(), elapsed());

  sf::fuzz::SeedSource rng(f.seed);
  int64_t runs = 0;
  int64_t next_pulse = 2;
  while (f.runs < 0 || runs < f.runs) {
    if (f.max_total_time > 0 && elapsed() >= f.max_total_time) break;
    Bytes input;
    if (!corpus.empty() && rng.chance(3, 4)) {
      input = mutate(corpus[rng.pick(corpus.size())], corpus, rng, f.max_len);
    } else {
      input.resize(rng.pick(f.max_len) + 1);
      for (uint8_t& b : input) b = static_cast<uint8_t>(rng.next_u64());
    }
    run_one(input, f.timeout);
    ++runs;
    ++execs;
    if (execs >= next_pulse) {
      std::fprintf(stderr, "#%lld pulse exec/s: %.0f\n", static_cast<long long>(execs),
                   execs / std::max(elapsed(), 1e-9));
      next_pulse *= 2;
    }
  }
  double t = elapsed();
  std::fprintf(stderr, "#%lld DONE exec/s: %.0f time: %.2fs\n", static_cast<long long>(execs),
               execs / std::max(t, 1e-9), t);
  std::fprintf(stderr, "Done %lld runs in %.0f second(s)\n", static_cast<long long>(execs), t);
  return 0;
}

#endif  // SF_LIBFUZZER
