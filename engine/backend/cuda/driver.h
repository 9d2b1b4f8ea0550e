// The CUDA driver API loaded with dlopen("libcuda.so.1") at run time: no binary links libcuda,
// so every binary builds and runs on machines without a GPU and reports why CUDA is unavailable.
#pragma once

#include <cuda.h>

#include <string>

namespace sf::backend::cuda {

// The driver entry points we use (dlsym'd by their versioned names, e.g. cuMemAlloc_v2).
struct DriverApi {
  decltype(&::cuInit) init;
  decltype(&::cuDriverGetVersion) driver_get_version;
  decltype(&::cuGetErrorString) get_error_string;
  decltype(&::cuGetErrorName) get_error_name;
  decltype(&::cuDeviceGetCount) device_get_count;
  decltype(&::cuDeviceGet) device_get;
  decltype(&::cuDeviceGetAttribute) device_get_attribute;
  decltype(&::cuDeviceGetName) device_get_name;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain;
  decltype(&::cuCtxSetCurrent) ctx_set_current;
  decltype(&::cuCtxSynchronize) ctx_synchronize;
  decltype(&::cuModuleLoadData) module_load_data;
  decltype(&::cuModuleUnload) module_unload;
  decltype(&::cuModuleGetFunction) module_get_function;
  decltype(&::cuLaunchKernel) launch_kernel;
  decltype(&::cuMemAlloc) mem_alloc;
  decltype(&::cuMemFree) mem_free;
  decltype(&::cuMemcpyHtoD) memcpy_htod;
  decltype(&::cuMemcpyDtoH) memcpy_dtoh;
  decltype(&::cuMemcpyDtoD) memcpy_dtod;
  decltype(&::cuMemsetD8) memset_d8;
};

// Device 0's primary context (the one the CUDA runtime, and so CUB, uses too).
class Driver {
 public:
  // The process-wide instance; loading and cuInit happen once, on first use.
  static Driver& get();
  // False with a precise reason: no libcuda.so.1, cuInit failed, no device, ...
  bool available(std::string* why) const;
  const DriverApi& api() const { return api_; }
  // Makes the primary context current on the calling thread.
  void make_current() const;
  // Throws EngineBug naming `what` and the driver's error string when r is not CUDA_SUCCESS.
  void check(CUresult r, const std::string& what) const;

  std::string arch() const;  // "sm_90" for compute capability 9.0
  int sm_count() const { return sm_count_; }
  const std::string& device_name() const { return name_; }
  int driver_version() const { return driver_version_; }  // 13000 for CUDA 13.0

 private:
  Driver();
  std::string error_string(CUresult r) const;

  DriverApi api_{};
  bool ok_ = false;
  std::string why_;
  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
  int cc_major_ = 0, cc_minor_ = 0, sm_count_ = 0, driver_version_ = 0;
  std::string name_;
};

}  // namespace sf::backend::cuda
