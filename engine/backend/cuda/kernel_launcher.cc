// Module loading and driver-API launches of generated kernels.
#include "engine/backend/cuda/kernel_launcher.h"

namespace sf::backend::cuda {

KernelLauncher::KernelLauncher(const Driver& driver, NvrtcCache& cache, DeviceArena& memory)
    : driver_(driver), cache_(cache), memory_(memory) {}

KernelLauncher::~KernelLauncher() {
  for (auto& [src, m] : modules_) driver_.api().module_unload(m.module);
}

const KernelLauncher::Module& KernelLauncher::module_for(const std::string& source) {
  auto it = modules_.find(source);
  if (it != modules_.end()) return it->second;
  std::string cubin = cache_.cubin(source, driver_.arch(), default_nvrtc_options());
  Module m;
  driver_.check(driver_.api().module_load_data(&m.module, cubin.data()), "cuModuleLoadData");
  try {
    driver_.check(driver_.api().module_get_function(&m.f64, m.module, kEntry64),
                  "cuModuleGetFunction");
    driver_.check(driver_.api().module_get_function(&m.f32, m.module, kEntry32),
                  "cuModuleGetFunction");
    return modules_.emplace(source, m).first->second;
  } catch (...) {
    driver_.api().module_unload(m.module);
    throw;
  }
}

void KernelLauncher::launch(const lower::Kernel& k, const KernelCode& code,
                            const ConcreteKernel& ck, const std::vector<DeviceBuffer>& inputs,
                            const DeviceBuffer& output, void* err) {
  LaunchGeometry g = launch_geometry(k, code, ck, inputs, output, driver_.sm_count());
  if (g.blocks == 0) return;
  // Device memory released as soon as the launches are queued: the caching allocator only hands
  // a block out again to later work on this stream.
  struct Held {
    DeviceArena& memory;
    void* p = nullptr;
    ~Held() { memory.release(p); }
  };
  Held scratch{memory_};
  if (g.partials > 0) scratch.p = memory_.alloc(static_cast<size_t>(g.scratch_bytes()));
  const Module& m = module_for(code.source);
  for (const LaunchStep& step : g.steps) {
    int seq = static_cast<int>(launches_.size());
    std::vector<int64_t> values = param_values(k, code, ck, g, inputs, output, seq, &step);
    // Values past the parameter limit go through device memory.
    Held at{memory_};
    if (code.values_in_memory) {
      size_t bytes = values.size() * sizeof(int64_t);
      at.p = memory_.alloc(bytes);
      driver_.check(
          driver_.api().memcpy_htod(reinterpret_cast<CUdeviceptr>(at.p), values.data(), bytes),
          "cuMemcpyHtoD(" + k.name + " parameters)");
    }
    std::vector<uint64_t> block = param_block(code, inputs, output, err, values, at.p, scratch.p);
    void* params[] = {block.data()};
    driver_.check(
        driver_.api().launch_kernel(g.narrow ? m.f32 : m.f64, static_cast<unsigned>(step.blocks), 1,
                                    1, kBlockThreads, 1, 1, 0, nullptr, params, nullptr),
        "cuLaunchKernel(" + k.name + ")");
    launches_.push_back(launch_info(k, code, ck, inputs, output));
  }
}

}  // namespace sf::backend::cuda
