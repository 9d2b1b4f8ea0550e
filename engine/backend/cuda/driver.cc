// Driver API loading, initialization and the primary context of device 0.
#include "engine/backend/cuda/driver.h"

#include <dlfcn.h>

#include <type_traits>

#include "engine/base/errors.h"

namespace sf::backend::cuda {

Driver::Driver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    why_ = std::string("libcuda.so.1 not found: no NVIDIA driver on this machine (") +
           (e ? e : "dlopen failed") + ")";
    return;
  }
  bool loaded = true;
  auto load = [&](auto& fn, const char* sym) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, sym));
    if (!fn && loaded) {
      loaded = false;
      why_ = std::string("libcuda.so.1 lacks ") + sym + ": the NVIDIA driver is too old";
    }
  };
  load(api_.init, "cuInit");
  load(api_.driver_get_version, "cuDriverGetVersion");
  load(api_.get_error_string, "cuGetErrorString");
  load(api_.get_error_name, "cuGetErrorName");
  load(api_.device_get_count, "cuDeviceGetCount");
  load(api_.device_get, "cuDeviceGet");
  load(api_.device_get_attribute, "cuDeviceGetAttribute");
  load(api_.device_get_name, "cuDeviceGetName");
  load(api_.primary_ctx_retain, "cuDevicePrimaryCtxRetain");
  load(api_.ctx_set_current, "cuCtxSetCurrent");
  load(api_.ctx_synchronize, "cuCtxSynchronize");
  load(api_.module_load_data, "cuModuleLoadData");
  load(api_.module_unload, "cuModuleUnload");
  load(api_.module_get_function, "cuModuleGetFunction");
  load(api_.launch_kernel, "cuLaunchKernel");
  load(api_.mem_alloc, "cuMemAlloc_v2");
  load(api_.mem_free, "cuMemFree_v2");
  load(api_.memcpy_htod, "cuMemcpyHtoD_v2");
  load(api_.memcpy_dtoh, "cuMemcpyDtoH_v2");
  load(api_.memcpy_dtod, "cuMemcpyDtoD_v2");
  load(api_.memset_d8, "cuMemsetD8_v2");
  if (!loaded) return;
  CUresult r = api_.init(0);
  if (r != CUDA_SUCCESS) {
    why_ = "cuInit failed: " + error_string(r);
    return;
  }
  api_.driver_get_version(&driver_version_);
  int count = 0;
  r = api_.device_get_count(&count);
  if (r != CUDA_SUCCESS || count == 0) {
    why_ = r != CUDA_SUCCESS ? "cuDeviceGetCount failed: " + error_string(r) : "no CUDA device";
    return;
  }
  if ((r = api_.device_get(&device_, 0)) != CUDA_SUCCESS ||
      (r = api_.device_get_attribute(&cc_major_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                     device_)) != CUDA_SUCCESS ||
      (r = api_.device_get_attribute(&cc_minor_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                     device_)) != CUDA_SUCCESS ||
      (r = api_.device_get_attribute(&sm_count_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                     device_)) != CUDA_SUCCESS) {
    why_ = "querying CUDA device 0 failed: " + error_string(r);
    return;
  }
  char name[256] = {0};
  api_.device_get_name(name, sizeof name - 1, device_);
  name_ = name;
  // The CUB externs are built for 7.5 and newer (BUILD.bazel): CUDA 13 has no sm_70.
  if (cc_major_ * 10 + cc_minor_ < 75) {
    why_ = "CUDA device 0 (" + name_ + ") has compute capability " + std::to_string(cc_major_) +
           "." + std::to_string(cc_minor_) +
           "; the CUDA backend needs compute capability 7.5 or newer";
    return;
  }
  if ((r = api_.primary_ctx_retain(&ctx_, device_)) != CUDA_SUCCESS) {
    why_ = "cuDevicePrimaryCtxRetain failed: " + error_string(r);
    return;
  }
  ok_ = true;
}

Driver& Driver::get() {
  static Driver* instance = new Driver();  // never destroyed: the context lives to exit
  return *instance;
}

bool Driver::available(std::string* why) const {
  if (ok_) return true;
  if (why) *why = why_;
  return false;
}

std::string Driver::error_string(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api_.get_error_name && api_.get_error_name(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (api_.get_error_string && api_.get_error_string(r, &text) != CUDA_SUCCESS) text = nullptr;
  if (!name) {
    // The toolkit's stub libcuda cannot name its own errors; these are the ones that say why
    // CUDA is unavailable. CUresult is the toolkit's open C enum (its list grows with each CUDA
    // release and drivers may return newer codes), so this switch keeps its default: label.
    switch (r) {
      case CUDA_ERROR_STUB_LIBRARY:
        return "CUDA_ERROR_STUB_LIBRARY (libcuda.so.1 is the toolkit's stub, not an NVIDIA driver)";
      case CUDA_ERROR_NO_DEVICE:
        return "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)";
      case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
        return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (the kernel driver and libcuda versions differ)";
      default:
        return "CUDA error " + std::to_string(static_cast<int>(r));
    }
  }
  return std::string(name) + (text ? std::string(" (") + text + ")" : "");
}

void Driver::check(CUresult r, const std::string& what) const {
  if (r != CUDA_SUCCESS) throw EngineBug(what + " failed: " + error_string(r));
}

void Driver::make_current() const {
  if (!ok_) throw Unavailable("CUDA unavailable: " + why_);
  check(api_.ctx_set_current(ctx_), "cuCtxSetCurrent");
}

std::string Driver::arch() const {
  return "sm_" + std::to_string(cc_major_) + std::to_string(cc_minor_);
}

}  // namespace sf::backend::cuda
