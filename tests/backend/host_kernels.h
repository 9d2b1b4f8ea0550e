// Generated CUDA kernels compiled for the host: a shim defines the CUDA builtins the sources use
// (thread indices, atomics, IEEE intrinsics, shared memory, barriers) and every (block, thread) of
// the grid runs in turn; a kernel with barriers runs each block's threads as fibers that switch at
// __syncthreads().
// Lets tests execute codegen's output without a GPU.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace sf::backend::testing {

class HostKernels {
 public:
  // Runs the kernel with parameter block `args` over `grid` blocks of cuda::kBlockThreads
  // threads, through the 64-bit entry point when `wide`, else the 32-bit one.
  using Fn = void (*)(const void* args, unsigned grid, int wide);

  ~HostKernels();
  // Registers a source (duplicates are merged).
  void add(const std::string& source);
  // Compiles every registered source into one shared object under `dir` with the system C++
  // compiler and loads it; false with the compiler's output in *log on failure.
  bool build(const std::string& dir, std::string* log);
  Fn fn(const std::string& source) const;
  size_t size() const { return index_.size(); }

 private:
  std::map<std::string, int> index_;
  std::vector<Fn> fns_;
  void* handle_ = nullptr;
};

}  // namespace sf::backend::testing
