// The caching device allocator.
#include "engine/backend/cuda/device_memory.h"

#include "engine/base/errors.h"

namespace sf::backend::cuda {

namespace {
constexpr size_t kMaxCachedBytes = size_t{4} << 30;
}  // namespace

DeviceMemory::~DeviceMemory() {
  release_cache();
  for (const auto& [p, size] : live_) {
    driver_.api().mem_free(reinterpret_cast<CUdeviceptr>(p));
  }
}

// 512-byte granules up to 1 MiB, then powers of two: few classes, bounded waste.
size_t DeviceMemory::size_class(size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes <= (size_t{1} << 20)) return (bytes + 511) / 512 * 512;
  size_t c = size_t{1} << 20;
  while (c < bytes) c <<= 1;
  return c;
}

void DeviceMemory::release_cache() {
  for (const auto& [size, p] : cached_) driver_.api().mem_free(reinterpret_cast<CUdeviceptr>(p));
  cached_.clear();
  cached_bytes_ = 0;
}

void DeviceMemory::settle() {
  if (bad_release_) {
    bad_release_ = false;
    throw EngineBug("freeing device memory that is not allocated");
  }
  if (cached_bytes_ > kMaxCachedBytes) {  // bound what idle blocks hold across many programs
    driver_.check(driver_.api().ctx_synchronize(), "cuCtxSynchronize");
    release_cache();
  }
}

void* DeviceMemory::alloc(size_t bytes) {
  settle();
  size_t c = size_class(bytes);
  void* p = nullptr;
  auto it = cached_.find(c);
  if (it != cached_.end()) {
    p = it->second;
    cached_.erase(it);
    cached_bytes_ -= c;
  } else {
    CUdeviceptr d = 0;
    CUresult r = driver_.api().mem_alloc(&d, c);
    if (r == CUDA_ERROR_OUT_OF_MEMORY && !cached_.empty()) {
      driver_.check(driver_.api().ctx_synchronize(), "cuCtxSynchronize");
      release_cache();
      r = driver_.api().mem_alloc(&d, c);
    }
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      throw_user_error(UserErrorKind::kTooComplex,
                       "CUDA out of memory allocating " + std::to_string(bytes) + " bytes");
    }
    driver_.check(r, "cuMemAlloc");
    p = reinterpret_cast<void*>(d);
  }
  live_[p] = c;
  live_bytes_ += c;
  return p;
}

void DeviceMemory::free(void* p) {
  if (p && !live_.count(p)) throw EngineBug("freeing device memory that is not allocated");
  release(p);
  settle();
}

void DeviceMemory::release(void* p) noexcept {
  if (!p) return;
  auto it = live_.find(p);
  if (it == live_.end()) {
    bad_release_ = true;
    return;
  }
  size_t c = it->second;
  live_bytes_ -= c;
  live_.erase(it);
  try {
    cached_.emplace(c, p);
    cached_bytes_ += c;
  } catch (...) {  // no host memory for the cache entry: the block goes back to the driver
    driver_.api().mem_free(reinterpret_cast<CUdeviceptr>(p));
  }
}

}  // namespace sf::backend::cuda
