// Launching generated kernels through the driver API: one module per distinct source (compiled
// through the NVRTC cache), the launch sequence that orders device errors, and their decoding.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/backend/cuda/codegen.h"
#include "engine/backend/cuda/driver.h"
#include "engine/backend/cuda/launch_params.h"
#include "engine/backend/cuda/nvrtc.h"

namespace sf::backend::cuda {

class KernelLauncher {
 public:
  // `memory` holds the parameter values of kernels whose SfArgs keeps them in device memory.
  KernelLauncher(const Driver& driver, NvrtcCache& cache, DeviceArena& memory);
  ~KernelLauncher();
  KernelLauncher(const KernelLauncher&) = delete;
  KernelLauncher& operator=(const KernelLauncher&) = delete;

  // Starts a plan run: launch sequence numbers restart (the error record must be cleared too).
  void reset() { launches_.clear(); }
  // Launches `k` on the legacy default stream (nothing when there is nothing to compute). `err`
  // is the device error record.
  void launch(const lower::Kernel& k, const KernelCode& code, const ConcreteKernel& ck,
              const std::vector<DeviceBuffer>& inputs, const DeviceBuffer& output, void* err);
  // Throws what the launch that wrote `rec` would have raised on the CPU (no-op when code 0).
  void raise(const ErrorRecord& rec) const { raise_device_error(rec, launches_); }
  int64_t modules_loaded() const { return static_cast<int64_t>(modules_.size()); }

 private:
  struct Module {
    CUmodule module = nullptr;
    CUfunction f64 = nullptr, f32 = nullptr;
  };
  const Module& module_for(const std::string& source);

  const Driver& driver_;
  NvrtcCache& cache_;
  DeviceArena& memory_;
  std::unordered_map<std::string, Module> modules_;  // by source text
  std::vector<LaunchInfo> launches_;                 // by sequence number
};

}  // namespace sf::backend::cuda
