// Device memory for the CUDA backend: a caching allocator over cuMemAlloc. Freed blocks are kept
// by size class and reused; every use is ordered on the one stream, so a block freed while a
// kernel still reads it is only rewritten after that kernel (as PyTorch's caching allocator).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include "engine/backend/cuda/cuda_externs.h"
#include "engine/backend/cuda/driver.h"

namespace sf::backend::cuda {

class DeviceMemory : public DeviceArena {
 public:
  explicit DeviceMemory(const Driver& driver) : driver_(driver) {}
  ~DeviceMemory() override;  // returns every block to the driver
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void* alloc(size_t bytes) override;
  void free(void* p) override;
  // Returns p to the cache without syncing or throwing: the cache bound is enforced, and a
  // pointer that was not allocated reported, by the next alloc() or free().
  void release(void* p) noexcept override;
  size_t live_bytes() const { return live_bytes_; }
  size_t cached_bytes() const { return cached_bytes_; }

 private:
  static size_t size_class(size_t bytes);
  void release_cache();
  // Raises what release() could not, then trims the cache to its bound (a sync).
  void settle();

  const Driver& driver_;
  std::map<void*, size_t> live_;         // pointer -> size class
  std::multimap<size_t, void*> cached_;  // size class -> free block
  size_t live_bytes_ = 0, cached_bytes_ = 0;
  bool bad_release_ = false;  // release() of a pointer that was not allocated
};

}  // namespace sf::backend::cuda
