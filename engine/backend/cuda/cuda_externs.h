// Extern kernels on the device, built by nvcc with CUB (what PyTorch uses for the same ops):
// compaction, sort + run-length encoding, scans and row gathers. A plain C++ interface, so the
// backend and every other target compile without CUDA headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sf::backend::cuda {

// Device element types: bool is one byte (0/1), i64 eight bytes, f32 four.
enum class ElemType : int { kBool = 0, kInt64 = 1, kFloat32 = 2 };
size_t elem_size(ElemType t);

// Temporaries and outputs come from the backend's allocator (driver-API memory in the primary
// context that the runtime API shares), so extern outputs become ordinary plan buffers.
class DeviceArena {
 public:
  virtual ~DeviceArena() = default;
  virtual void* alloc(size_t bytes) = 0;
  virtual void free(void* p) = 0;
  // As free(), but never throws (destructors, error paths); a failure surfaces at the next
  // alloc() or free().
  virtual void release(void* p) noexcept = 0;
};

// Every function runs on the legacy default stream (shared with the driver-API launches), takes
// contiguous inputs with fewer than 2^31 elements, and throws EngineBug on a CUDA error.
// Functions that return a count copy exactly that count to the host (their one sync). On a throw,
// nothing they allocated stays allocated.

// Throws EngineBug(message). Defined in a C++ translation unit (cuda_externs_errors.cc), so the
// nvcc-built code raises the engine's error type without including engine headers.
[[noreturn]] void raise_extern_error(const std::string& message);

// Linear indices (ascending) of the truthy elements of `data` (NaN is truthy). Returns the count;
// *indices is an arena allocation of n entries (null when n == 0), the first `count` valid.
int64_t select_truthy(const void* data, ElemType t, int64_t n, DeviceArena& arena,
                      int32_t** indices);

// A two-pass compaction (masked_select): count_truthy counts the truthy elements of `data` (NaN
// is truthy) per tile and copies the total to the host; write_selected then writes one output
// per truthy element, in order. `tile_ends` is an arena allocation (null when n == 0) the caller
// releases after the write.
struct Compaction {
  int64_t count = 0;
  int64_t tiles = 0;
  int* tile_ends = nullptr;
};
Compaction count_truthy(const void* data, ElemType t, int64_t n, DeviceArena& arena);
// nonzero: out[r * rank + d] is coordinate d (row-major in `sizes`) of the r-th truthy element
// of `data` (counted by c, n < 2^31).
void write_nonzero(const Compaction& c, const void* data, ElemType t, int64_t n,
                   const std::vector<int64_t>& sizes, int64_t* out);
// masked_select: out[r] = src[i] for the r-th i where the bool `mask` (counted by c) is set.
void write_selected(const Compaction& c, const void* mask, int64_t n, const void* src,
                    size_t elem_bytes, void* out);

// out[(o * count + j) * inner + i] = src[(o * src_rows + rows[j]) * inner + i]: index_select of
// rows along one dim of a contiguous [outer, src_rows, inner] array.
void gather_rows(const void* src, size_t elem_bytes, int64_t outer, int64_t src_rows,
                 const int32_t* rows, int64_t count, int64_t inner, void* out);

// Sorted unique values (NaNs last and never merged, -0.0 == 0.0): returns the number of runs;
// first[r] is the index in `data` of run r's first element in input order (the value eager
// reports) and counts[r] its length. Both are arena allocations of n entries.
int64_t unique_runs(const void* data, ElemType t, int64_t n, DeviceArena& arena, int32_t** first,
                    int32_t** counts);

// i32 -> i64 (counts of unique, indices of repeat_interleave).
void widen(const int32_t* in, int64_t n, int64_t* out);

// repeat_interleave's checks in one reduction: the smallest count (to report a negative one) and
// the total, saturated at INT64_MAX (meaningful when min >= 0). One sync.
struct RepeatsSummary {
  int64_t min = 0;
  int64_t total = 0;
};
RepeatsSummary summarize_repeats(const int64_t* repeats, int64_t m, DeviceArena& arena);

// rows[j] = the i with start(i) <= j < start(i) + repeats[i], for j < total (= sum of repeats).
void expand_repeats(const int64_t* repeats, int64_t m, int64_t total, DeviceArena& arena,
                    int32_t* rows);

}  // namespace sf::backend::cuda
