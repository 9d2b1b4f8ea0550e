// Host compilation of generated kernels: each source goes into its own namespace of one
// translation unit, after a shim that maps the CUDA builtins onto sequential host code (fibers
// for the threads of kernels with barriers).
#include "tests/backend/host_kernels.h"

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/backend/cuda/launch_params.h"

namespace sf::backend::testing {

namespace {

const char* kShim = R"(// CUDA builtins for sequential host execution of generated kernels.
#include <ucontext.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(n)
#define __shared__ static
struct SfDim3 { unsigned x = 0, y = 1, z = 1; };
static SfDim3 gridDim, blockDim, blockIdx, threadIdx;
// Kernels with barriers run each block's threads as fibers: a thread runs until its next
// __syncthreads() or its end, then the next thread runs; a round over the block passes one
// barrier. A round in which the threads stopped at different barriers, or some ended while others
// wait, is barrier divergence (undefined on a GPU): the emulation aborts with the block and lines.
static ucontext_t sf_scheduler;
static ucontext_t* sf_running = nullptr;
struct SfFiber {
  ucontext_t context;
  std::vector<char> stack;
  bool done = false;
  int barrier = 0;  // the source line of the barrier it waits at, 0 when running or done
};
static std::vector<SfFiber> sf_fibers;
static inline void sf_syncthreads(int line) {
  if (!sf_running) return;
  sf_fibers[threadIdx.x].barrier = line;
  swapcontext(sf_running, &sf_scheduler);
}
#define __syncthreads() sf_syncthreads(__LINE__)
static void (*sf_fiber_fn)(const void*, int) = nullptr;
static const void* sf_fiber_args = nullptr;
static int sf_fiber_wide = 0;
static void sf_fiber_main() {
  const unsigned me = threadIdx.x;
  sf_fiber_fn(sf_fiber_args, sf_fiber_wide);
  sf_fibers[me].done = true;  // returns to uc_link: the scheduler
}
static void sf_run_fibers(void (*fn)(const void*, int), const void* args, unsigned grid,
                          int wide) {
  sf_fiber_fn = fn;
  sf_fiber_args = args;
  sf_fiber_wide = wide;
  sf_fibers.resize(blockDim.x);
  for (blockIdx.x = 0; blockIdx.x < grid; ++blockIdx.x) {
    for (SfFiber& f : sf_fibers) {
      f.stack.resize(1 << 18);
      f.done = false;
      getcontext(&f.context);
      f.context.uc_stack.ss_sp = f.stack.data();
      f.context.uc_stack.ss_size = f.stack.size();
      f.context.uc_link = &sf_scheduler;
      makecontext(&f.context, sf_fiber_main, 0);
    }
    for (bool running = true; running;) {
      running = false;
      int waiting_at = 0, ended = 0;
      for (threadIdx.x = 0; threadIdx.x < blockDim.x; ++threadIdx.x) {
        SfFiber& f = sf_fibers[threadIdx.x];
        if (f.done) continue;
        f.barrier = 0;
        sf_running = &f.context;
        swapcontext(&sf_scheduler, &f.context);
        sf_running = nullptr;
        running = true;
        if (f.done) {
          ++ended;
        } else if (waiting_at == 0) {
          waiting_at = f.barrier;
        } else if (f.barrier != waiting_at) {
          std::fprintf(stderr, "barrier divergence in block %u: threads wait at lines %d and %d\n",
                       blockIdx.x, waiting_at, f.barrier);
          std::abort();
        }
      }
      if (waiting_at != 0 && ended != 0) {
        std::fprintf(stderr,
                     "barrier divergence in block %u: %d threads ended while others wait at line "
                     "%d\n",
                     blockIdx.x, ended, waiting_at);
        std::abort();
      }
    }
  }
}
static inline unsigned atomicCAS(unsigned* p, unsigned expected, unsigned desired) {
  unsigned old = *p;
  if (old == expected) *p = desired;
  return old;
}
static inline unsigned atomicExch(unsigned* p, unsigned v) {
  unsigned old = *p;
  *p = v;
  return old;
}
static inline void __threadfence() {}
template <typename T>
static inline T __ldg(const T* p) { return *p; }
static inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned x; std::memcpy(&x, &f, 4); return x; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
)";

std::string strip_extern_c(std::string src) {
  const std::string from = "extern \"C\" __global__";
  for (size_t p; (p = src.find(from)) != std::string::npos;)
    src.replace(p, from.size(), "__global__");
  return src;
}

}  // namespace

HostKernels::~HostKernels() {
  if (handle_) dlclose(handle_);
}

void HostKernels::add(const std::string& source) {
  index_.emplace(source, static_cast<int>(index_.size()));
}

bool HostKernels::build(const std::string& dir, std::string* log) {
  std::string cc = dir + "/host_kernels.cc", so = dir + "/host_kernels.so", out = dir + "/cc.log";
  {
    std::ofstream f(cc);
    f << kShim;
    for (const auto& [src, i] : index_) {
      std::string ns = "sfk" + std::to_string(i);
      f << "\nnamespace " << ns << " {\n"
        << strip_extern_c(src) << "}  // namespace " << ns << "\n";
      f << "static void sf_thread_" << i << "(const void* args, int wide) {\n"
        << "  const " << ns << "::SfArgs& a = *static_cast<const " << ns << "::SfArgs*>(args);\n"
        << "  if (wide) " << ns << "::sf_kernel(a); else " << ns << "::sf_kernel_i32(a);\n}\n";
      f << "extern \"C\" void sf_run_" << i << "(const void* args, unsigned grid, int wide) {\n"
        << "  gridDim.x = grid;\n  blockDim.x = " << cuda::kBlockThreads << ";\n";
      if (src.find("__syncthreads") != std::string::npos) {
        f << "  sf_run_fibers(sf_thread_" << i << ", args, grid, wide);\n}\n";
      } else {
        // Without barriers each thread runs to its end in turn (no context switches).
        f << "  for (blockIdx.x = 0; blockIdx.x < grid; ++blockIdx.x) {\n"
          << "    for (threadIdx.x = 0; threadIdx.x < blockDim.x; ++threadIdx.x) {\n"
          << "      sf_thread_" << i << "(args, wide);\n"
          << "    }\n  }\n}\n";
      }
    }
  }
  std::string cmd =
      "g++ -std=c++17 -O0 -w -shared -fPIC -o " + so + " " + cc + " > " + out + " 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  *log = ss.str();
  if (rc != 0) return false;
  handle_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    *log += dlerror();
    return false;
  }
  fns_.assign(index_.size(), nullptr);
  for (const auto& [src, i] : index_) {
    fns_[i] = reinterpret_cast<Fn>(dlsym(handle_, ("sf_run_" + std::to_string(i)).c_str()));
  }
  return true;
}

HostKernels::Fn HostKernels::fn(const std::string& source) const {
  auto it = index_.find(source);
  return it == index_.end() || fns_.empty() ? nullptr : fns_[it->second];
}

}  // namespace sf::backend::testing
