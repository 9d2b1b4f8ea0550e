// Extern kernels on the device with CUB: two-pass tiled compactions for masked_select and nonzero
// (its coordinates staged in shared memory), DeviceSelect for the boolean-index rows,
// DeviceRadixSort + DeviceRunLengthEncode for unique, DeviceScan / DeviceReduce for
// repeat_interleave, and small gather kernels. Compiled by nvcc (bazel genrule) against the static
// CUDA runtime.
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <string>
#include <type_traits>

#include "engine/backend/cuda/cuda_externs.h"
#include "engine/backend/cuda/fast_div.h"

namespace sf::backend::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxRank = 16;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    raise_extern_error(std::string("CUDA extern ") + what + ": " + cudaGetErrorString(e));
  }
}

unsigned blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > (1 << 20) ? (1 << 20) : b));
}

// Arena memory released on scope exit (CUB temporaries and scratch arrays), except what keep()
// hands to the caller once nothing can throw any more.
class Scratch {
 public:
  explicit Scratch(DeviceArena& arena) : arena_(arena) {}
  ~Scratch() {
    for (void* p : owned_) arena_.release(p);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <typename T>
  T* get(size_t count) {
    // Room first, so that push_back cannot throw and leak p.
    if (owned_.size() == owned_.capacity()) owned_.reserve(2 * owned_.size() + 8);
    void* p = arena_.alloc(count * sizeof(T) > 0 ? count * sizeof(T) : 1);
    owned_.push_back(p);
    return static_cast<T*>(p);
  }
  template <typename T>
  T* keep(T* p) noexcept {
    for (void*& q : owned_) {
      if (q == p) q = nullptr;
    }
    return p;
  }

 private:
  DeviceArena& arena_;
  std::vector<void*> owned_;
};

template <typename T>
struct Truthy {
  __host__ __device__ bool operator()(T x) const { return x != T(0); }  // NaN != 0: truthy
};

template <typename T>
T copy_to_host(const T* device_value) {
  T v{};
  check(cudaMemcpy(&v, device_value, sizeof(T), cudaMemcpyDeviceToHost), "size copy");
  return v;
}

template <typename FlagIt>
int64_t select_flagged(FlagIt flags, int64_t n, DeviceArena& arena, int32_t** indices) {
  Scratch s(arena);
  int32_t* out = s.get<int32_t>(n);
  int* num = s.get<int>(1);
  thrust::counting_iterator<int32_t> iota(0);
  size_t bytes = 0;
  check(cub::DeviceSelect::Flagged(nullptr, bytes, iota, flags, out, num, static_cast<int>(n)),
        "select (size)");
  void* temp = s.get<char>(bytes);
  check(cub::DeviceSelect::Flagged(temp, bytes, iota, flags, out, num, static_cast<int>(n)),
        "select");
  int64_t count = copy_to_host(num);
  *indices = s.keep(out);
  return count;
}

template <typename T>
__global__ void gather_rows_kernel(const T* src, long long src_rows, const int32_t* rows,
                                   long long count, long long inner, long long total, T* out) {
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total;
       k += (long long)gridDim.x * blockDim.x) {
    long long i = k % inner, t = k / inner;
    long long j = t % count, o = t / count;
    out[k] = src[(o * src_rows + rows[j]) * inner + i];
  }
}

// The tiled compaction of masked_select: a tile is one block's kThreads x kItems consecutive
// elements, each thread taking kItems consecutive ones (16-byte vector loads when the tile is
// whole and aligned). Pass one counts each tile's truthy elements, an inclusive scan gives each
// tile's end, and pass two re-reads the tile and writes each selected value at its tile's offset
// plus its rank in the tile: the mask is read twice and no index array is written and re-read.
// nonzero takes the same two passes, its coordinates staged through shared memory (below).
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;

template <typename T>
__device__ void load_items(const T* data, long long n, long long first, bool aligned,
                           T (&v)[kItems]) {
  static_assert(kItems * sizeof(T) % 16 == 0, "whole 16-byte vectors per thread");
  if (aligned && first + kItems <= n) {
    constexpr int kVectors = kItems * sizeof(T) / 16;
    const uint4* p = reinterpret_cast<const uint4*>(data + first);
    uint4 w[kVectors];
#pragma unroll
    for (int i = 0; i < kVectors; ++i) w[i] = p[i];
    memcpy(v, w, sizeof(v));
  } else {
#pragma unroll
    for (int i = 0; i < kItems; ++i) v[i] = first + i < n ? data[first + i] : T(0);
  }
}

template <typename T>
__device__ unsigned truthy_bits(const T* data, long long n, long long first, bool aligned) {
  T v[kItems];
  load_items(data, n, first, aligned, v);
  unsigned bits = 0;
#pragma unroll
  for (int i = 0; i < kItems; ++i) bits |= (v[i] != T(0) ? 1u : 0u) << i;  // NaN != 0: truthy
  return bits;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    count_tiles_kernel(const T* data, long long n, bool aligned, int* tile_counts) {
  using Reduce = cub::BlockReduce<int, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  long long first = (long long)blockIdx.x * kTile + (long long)threadIdx.x * kItems;
  int c = __popc(truthy_bits(data, n, first, aligned));
  int total = Reduce(temp).Sum(c);
  if (threadIdx.x == 0) tile_counts[blockIdx.x] = total;
}

// Where thread's selected elements start in the output, and its truthy bits.
template <typename T>
__device__ long long tile_rank(const T* data, long long n, bool aligned, const int* tile_ends,
                               unsigned* bits, long long* first) {
  using Scan = cub::BlockScan<int, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  *first = (long long)blockIdx.x * kTile + (long long)threadIdx.x * kItems;
  *bits = truthy_bits(data, n, *first, aligned);
  int before = 0;
  Scan(temp).ExclusiveSum(__popc(*bits), before);
  return (blockIdx.x == 0 ? 0 : tile_ends[blockIdx.x - 1]) + (long long)before;
}

// Pass two: the tile's selected offsets staged in shared memory in order, so the block then
// writes the tile's whole output run (contiguous) with consecutive threads on consecutive
// outputs. Writing each thread's own elements directly scattered a warp's stores over 32 runs
// (nonzero was 2.7x slower that way on an H200). Returns the tile's selected count.
template <typename T>
__device__ int stage_tile(const T* data, long long n, bool aligned, const int* tile_ends,
                          unsigned short* staged, long long* tile_start) {
  static_assert(kTile <= 65536, "tile offsets fit 16 bits");
  unsigned bits;
  long long first;
  *tile_start = blockIdx.x == 0 ? 0 : tile_ends[blockIdx.x - 1];
  int k = static_cast<int>(tile_rank(data, n, aligned, tile_ends, &bits, &first) - *tile_start);
  while (bits) {
    int i = __ffs(bits) - 1;
    bits &= bits - 1;
    staged[k++] = static_cast<unsigned short>(threadIdx.x * kItems + i);
  }
  __syncthreads();
  return tile_ends[blockIdx.x] - static_cast<int>(*tile_start);
}

template <typename V>
__global__ void __launch_bounds__(kThreads)
    write_selected_kernel(const unsigned char* mask, long long n, bool aligned,
                          const int* tile_ends, const V* src, V* out) {
  __shared__ unsigned short staged[kTile];
  long long tile_start;
  const int count = stage_tile(mask, n, aligned, tile_ends, staged, &tile_start);
  const V* s = src + (long long)blockIdx.x * kTile;
  V* o = out + tile_start;
  for (int j = threadIdx.x; j < count; j += kThreads) o[j] = s[staged[j]];
}

// nonzero: the tile's coordinates (count x rank i64s, contiguous in the output). Ranks 1 to 4
// take a thread per element: one division chain gives all its coordinates, stored as 16-byte
// pairs when the rank is even (a warp then writes one contiguous run per store). Other ranks
// take a thread per value, consecutive threads on consecutive i64s.
struct NonzeroDims {
  int rank;
  bool pairs_aligned;  // the output is 16-byte aligned
  FastDiv by_rank;
  FastDiv sizes[kMaxRank];
  FastDiv strides[kMaxRank];  // row-major: the product of the sizes after d
};

template <int R>
__device__ void write_coordinates(const NonzeroDims& dims, const unsigned short* staged, int count,
                                  unsigned tile_first, long long* o) {
  for (int j = threadIdx.x; j < count; j += kThreads) {
    unsigned q = tile_first + staged[j];
    long long c[R];
#pragma unroll
    for (int d = R - 1; d > 0; --d) {
      const unsigned next = div_by(dims.sizes[d], q);
      c[d] = static_cast<long long>(q - next * dims.sizes[d].d);
      q = next;
    }
    c[0] = static_cast<long long>(q);
    long long* p = o + static_cast<long long>(j) * R;
    if (R % 2 == 0 && dims.pairs_aligned) {
#pragma unroll
      for (int h = 0; h + 1 < R; h += 2) {
        reinterpret_cast<longlong2*>(p)[h / 2] = make_longlong2(c[h], c[h + 1]);
      }
    } else {
#pragma unroll
      for (int d = 0; d < R; ++d) p[d] = c[d];
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    write_nonzero_kernel(const T* data, long long n, bool aligned, const int* tile_ends,
                         NonzeroDims dims, long long* out) {
  __shared__ unsigned short staged[kTile];
  long long tile_start;
  const int count = stage_tile(data, n, aligned, tile_ends, staged, &tile_start);
  const int rank = dims.rank;
  const unsigned tile_first = blockIdx.x * static_cast<unsigned>(kTile);  // n < 2^31
  long long* o = out + tile_start * rank;
  switch (rank) {
    case 1:
      return write_coordinates<1>(dims, staged, count, tile_first, o);
    case 2:
      return write_coordinates<2>(dims, staged, count, tile_first, o);
    case 3:
      return write_coordinates<3>(dims, staged, count, tile_first, o);
    case 4:
      return write_coordinates<4>(dims, staged, count, tile_first, o);
    default:
      break;
  }
  const int values = count * rank;
  for (int e = threadIdx.x; e < values; e += kThreads) {
    const unsigned j = div_by(dims.by_rank, e), d = e - j * rank;
    const unsigned q = div_by(dims.strides[d], tile_first + staged[j]);
    o[e] = static_cast<long long>(q - div_by(dims.sizes[d], q) * dims.sizes[d].d);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

template <typename T>
Compaction count_tiles(const T* data, int64_t n, DeviceArena& arena) {
  Compaction c;
  c.tiles = (n + kTile - 1) / kTile;
  if (c.tiles > INT_MAX) raise_extern_error("compaction: too many tiles");
  Scratch s(arena);
  int* counts = s.get<int>(c.tiles);
  int* ends = s.get<int>(c.tiles);
  count_tiles_kernel<<<static_cast<unsigned>(c.tiles), kThreads>>>(data, n, aligned16(data),
                                                                   counts);
  check(cudaGetLastError(), "count tiles");
  size_t bytes = 0;
  int tiles = static_cast<int>(c.tiles);
  check(cub::DeviceScan::InclusiveSum(nullptr, bytes, counts, ends, tiles), "tile scan (size)");
  void* temp = s.get<char>(bytes);
  check(cub::DeviceScan::InclusiveSum(temp, bytes, counts, ends, tiles), "tile scan");
  c.count = copy_to_host(ends + (c.tiles - 1));
  c.tile_ends = s.keep(ends);
  return c;
}

// Sort keys: ascending unsigned order equals the value order; -0.0 is 0.0; a NaN sorts after
// +inf and carries its index in the low bits, so no two NaNs share a key (never merged).
__device__ unsigned long long sort_key(const void* data, ElemType t, long long k) {
  if (t == ElemType::kBool) return static_cast<const unsigned char*>(data)[k];
  if (t == ElemType::kInt64) {
    return static_cast<unsigned long long>(static_cast<const long long*>(data)[k]) ^ (1ull << 63);
  }
  float x = static_cast<const float*>(data)[k];
  if (x != x) return (0xFFFFFFFFull << 32) | static_cast<unsigned long long>(k);
  unsigned int bits = x == 0.0f ? 0u : __float_as_uint(x);
  bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  return static_cast<unsigned long long>(bits) << 32;
}

// Also folds the keys' smallest and largest into range[0] / range[1] (a block reduction, then
// one atomic each per block), so the sort can skip the high bits every key shares.
__global__ void __launch_bounds__(kThreads)
    keys_kernel(const void* data, ElemType t, long long n, unsigned long long* keys, int32_t* idx,
                unsigned long long* range) {
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  unsigned long long lo = ~0ull, hi = 0;
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n;
       k += (long long)gridDim.x * blockDim.x) {
    const unsigned long long key = sort_key(data, t, k);
    keys[k] = key;
    idx[k] = static_cast<int32_t>(k);
    lo = key < lo ? key : lo;
    hi = key > hi ? key : hi;
  }
  lo = Reduce(temp).Reduce(
      lo, [](unsigned long long x, unsigned long long y) { return x < y ? x : y; });
  __syncthreads();
  hi = Reduce(temp).Reduce(
      hi, [](unsigned long long x, unsigned long long y) { return x > y ? x : y; });
  if (threadIdx.x == 0) {
    atomicMin(&range[0], lo);
    atomicMax(&range[1], hi);
  }
}

__global__ void run_firsts_kernel(const int32_t* sorted_idx, const int32_t* offsets, long long runs,
                                  int32_t* first) {
  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < runs;
       r += (long long)gridDim.x * blockDim.x) {
    first[r] = sorted_idx[offsets[r]];
  }
}

__global__ void widen_kernel(const int32_t* in, long long n, long long* out) {
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n;
       k += (long long)gridDim.x * blockDim.x) {
    out[k] = in[k];
  }
}

struct MinTotal {
  long long min, total;
};

struct ToMinTotal {
  __host__ __device__ MinTotal operator()(long long x) const { return MinTotal{x, x}; }
};

// Associative on non-negative totals (saturating add); with a negative count the total is unused.
struct CombineMinTotal {
  __host__ __device__ MinTotal operator()(const MinTotal& a, const MinTotal& b) const {
    long long total;
    if (a.total >= 0 && b.total >= 0) {
      total = a.total > LLONG_MAX - b.total ? LLONG_MAX : a.total + b.total;
    } else {
      total = -1;
    }
    return MinTotal{a.min < b.min ? a.min : b.min, total};
  }
};

// rows[j] = the first i with ends[i] > j (ends = inclusive sum of the repeats).
__global__ void expand_kernel(const long long* ends, long long m, long long total, int32_t* rows) {
  for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < total;
       j += (long long)gridDim.x * blockDim.x) {
    long long lo = 0, hi = m - 1;
    while (lo < hi) {
      long long mid = (lo + hi) / 2;
      if (ends[mid] > j) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    rows[j] = static_cast<int32_t>(lo);
  }
}

// Calls `f` with `data` as a pointer to `t`'s device elements (bool: one byte each), so each
// typed kernel launch or CUB call is written once.
template <typename F>
auto with_elements(const void* data, ElemType t, F&& f) {
  switch (t) {
    case ElemType::kBool:
      return f(static_cast<const unsigned char*>(data));
    case ElemType::kInt64:
      return f(static_cast<const long long*>(data));
    case ElemType::kFloat32:
      return f(static_cast<const float*>(data));
  }
  raise_extern_error("unknown element type " + std::to_string(static_cast<int>(t)));
}

}  // namespace

size_t elem_size(ElemType t) {
  switch (t) {
    case ElemType::kBool:
      return 1;
    case ElemType::kInt64:
      return 8;
    case ElemType::kFloat32:
      return 4;
  }
  return 0;
}

int64_t select_truthy(const void* data, ElemType t, int64_t n, DeviceArena& arena,
                      int32_t** indices) {
  *indices = nullptr;
  if (n == 0) return 0;
  return with_elements(data, t, [&](auto p) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(p)>>;
    if constexpr (std::is_same_v<T, unsigned char>) {
      return select_flagged(p, n, arena, indices);  // bool bytes are their own flags
    } else {
      return select_flagged(thrust::make_transform_iterator(p, Truthy<T>()), n, arena, indices);
    }
  });
}

Compaction count_truthy(const void* data, ElemType t, int64_t n, DeviceArena& arena) {
  if (n == 0) return Compaction{};
  return with_elements(data, t, [&](auto p) { return count_tiles(p, n, arena); });
}

void write_selected(const Compaction& c, const void* mask, int64_t n, const void* src,
                    size_t elem_bytes, void* out) {
  if (c.count == 0) return;
  auto grid = static_cast<unsigned>(c.tiles);
  const auto* m = static_cast<const unsigned char*>(mask);
  bool al = aligned16(mask);
  switch (elem_bytes) {
    case 1:
      write_selected_kernel<<<grid, kThreads>>>(m, n, al, c.tile_ends,
                                                static_cast<const unsigned char*>(src),
                                                static_cast<unsigned char*>(out));
      break;
    case 4:
      write_selected_kernel<<<grid, kThreads>>>(m, n, al, c.tile_ends,
                                                static_cast<const unsigned int*>(src),
                                                static_cast<unsigned int*>(out));
      break;
    case 8:
      write_selected_kernel<<<grid, kThreads>>>(m, n, al, c.tile_ends,
                                                static_cast<const unsigned long long*>(src),
                                                static_cast<unsigned long long*>(out));
      break;
    default:
      raise_extern_error("write_selected: unsupported element size");
  }
  check(cudaGetLastError(), "write selected");
}

void write_nonzero(const Compaction& c, const void* data, ElemType t, int64_t n,
                   const std::vector<int64_t>& sizes, int64_t* out) {
  if (c.count == 0 || sizes.empty()) return;
  if (sizes.size() > kMaxRank) raise_extern_error("nonzero: rank above 16");
  if (n >= (int64_t{1} << 31)) raise_extern_error("nonzero: 2^31 elements or more");
  NonzeroDims dims{static_cast<int>(sizes.size()),
                   aligned16(out),
                   fast_div(static_cast<unsigned>(sizes.size())),
                   {},
                   {}};
  unsigned stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    dims.sizes[d] = fast_div(static_cast<unsigned>(sizes[d]));
    dims.strides[d] = fast_div(stride);
    stride *= static_cast<unsigned>(sizes[d]);
  }
  auto grid = static_cast<unsigned>(c.tiles);
  auto* o = reinterpret_cast<long long*>(out);
  bool al = aligned16(data);
  with_elements(data, t, [&](auto p) {
    write_nonzero_kernel<<<grid, kThreads>>>(p, n, al, c.tile_ends, dims, o);
  });
  check(cudaGetLastError(), "write nonzero");
}

void gather_rows(const void* src, size_t elem_bytes, int64_t outer, int64_t src_rows,
                 const int32_t* rows, int64_t count, int64_t inner, void* out) {
  int64_t total = outer * count * inner;
  if (total == 0) return;
  unsigned b = blocks_for(total);
  switch (elem_bytes) {
    case 1:
      gather_rows_kernel<<<b, kThreads>>>(static_cast<const unsigned char*>(src), src_rows, rows,
                                          count, inner, total, static_cast<unsigned char*>(out));
      break;
    case 4:
      gather_rows_kernel<<<b, kThreads>>>(static_cast<const unsigned int*>(src), src_rows, rows,
                                          count, inner, total, static_cast<unsigned int*>(out));
      break;
    case 8:
      gather_rows_kernel<<<b, kThreads>>>(static_cast<const unsigned long long*>(src), src_rows,
                                          rows, count, inner, total,
                                          static_cast<unsigned long long*>(out));
      break;
    default:
      raise_extern_error("gather_rows: unsupported element size");
  }
  check(cudaGetLastError(), "gather_rows");
}

int64_t unique_runs(const void* data, ElemType t, int64_t n, DeviceArena& arena, int32_t** first,
                    int32_t** counts) {
  *first = *counts = nullptr;
  if (n == 0) return 0;
  Scratch s(arena);
  unsigned long long* keys = s.get<unsigned long long>(n);
  unsigned long long* sorted_keys = s.get<unsigned long long>(n);
  unsigned long long* run_keys = s.get<unsigned long long>(n);
  int32_t* idx = s.get<int32_t>(n);
  int32_t* sorted_idx = s.get<int32_t>(n);
  int32_t* offsets = s.get<int32_t>(n);
  int* num_runs = s.get<int>(1);
  int32_t* run_first = s.get<int32_t>(n);
  int32_t* run_counts = s.get<int32_t>(n);
  int items = static_cast<int>(n);
  unsigned long long* range = s.get<unsigned long long>(2);
  const unsigned long long init[2] = {~0ull, 0ull};
  check(cudaMemcpy(range, init, sizeof init, cudaMemcpyHostToDevice), "unique key range (init)");
  // A grid of at most 4,096 blocks: two atomics per block on one address.
  keys_kernel<<<std::min(blocks_for(n), 4096u), kThreads>>>(data, t, n, keys, idx, range);
  check(cudaGetLastError(), "unique keys");
  // Sorting only the bits below the highest one where the smallest and largest keys differ
  // orders every key the same (they all share the bits above): 1,000 distinct i64s sort on 10
  // bits instead of 64, a fifth of the radix passes. At least one bit, so CUB always writes the
  // sorted arrays (keys all equal stay in input order).
  unsigned long long bounds[2];
  check(cudaMemcpy(bounds, range, sizeof bounds, cudaMemcpyDeviceToHost), "unique key range");
  const unsigned long long differ = bounds[0] ^ bounds[1];
  int end_bit = differ == 0 ? 1 : 64 - __builtin_clzll(differ);
  size_t bytes = 0;
  check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, sorted_keys, idx, sorted_idx, items,
                                        0, end_bit),
        "sort (size)");
  void* temp = s.get<char>(bytes);
  check(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, sorted_keys, idx, sorted_idx, items, 0,
                                        end_bit),
        "sort");  // stable: equal keys keep input order
  bytes = 0;
  check(cub::DeviceRunLengthEncode::Encode(nullptr, bytes, sorted_keys, run_keys, run_counts,
                                           num_runs, items),
        "run-length encode (size)");
  temp = s.get<char>(bytes);
  check(cub::DeviceRunLengthEncode::Encode(temp, bytes, sorted_keys, run_keys, run_counts, num_runs,
                                           items),
        "run-length encode");
  int runs = copy_to_host(num_runs);
  bytes = 0;
  check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, run_counts, offsets, runs), "scan (size)");
  temp = s.get<char>(bytes);
  check(cub::DeviceScan::ExclusiveSum(temp, bytes, run_counts, offsets, runs), "scan");
  run_firsts_kernel<<<blocks_for(runs), kThreads>>>(sorted_idx, offsets, runs, run_first);
  check(cudaGetLastError(), "unique firsts");
  *first = s.keep(run_first);
  *counts = s.keep(run_counts);
  return runs;
}

void widen(const int32_t* in, int64_t n, int64_t* out) {
  if (n == 0) return;
  widen_kernel<<<blocks_for(n), kThreads>>>(in, n, reinterpret_cast<long long*>(out));
  check(cudaGetLastError(), "widen");
}

RepeatsSummary summarize_repeats(const int64_t* repeats, int64_t m, DeviceArena& arena) {
  if (m == 0) return RepeatsSummary{0, 0};
  Scratch s(arena);
  MinTotal* result = s.get<MinTotal>(1);
  auto in =
      thrust::make_transform_iterator(reinterpret_cast<const long long*>(repeats), ToMinTotal());
  MinTotal init{LLONG_MAX, 0};
  size_t bytes = 0;
  check(cub::DeviceReduce::Reduce(nullptr, bytes, in, result, static_cast<int>(m),
                                  CombineMinTotal(), init),
        "reduce (size)");
  void* temp = s.get<char>(bytes);
  check(cub::DeviceReduce::Reduce(temp, bytes, in, result, static_cast<int>(m), CombineMinTotal(),
                                  init),
        "reduce");
  MinTotal r = copy_to_host(result);
  return RepeatsSummary{r.min, r.total};
}

void expand_repeats(const int64_t* repeats, int64_t m, int64_t total, DeviceArena& arena,
                    int32_t* rows) {
  if (total == 0) return;
  Scratch s(arena);
  long long* ends = s.get<long long>(m);
  const long long* in = reinterpret_cast<const long long*>(repeats);
  size_t bytes = 0;
  check(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, ends, static_cast<int>(m)),
        "scan (size)");
  void* temp = s.get<char>(bytes);
  check(cub::DeviceScan::InclusiveSum(temp, bytes, in, ends, static_cast<int>(m)), "scan");
  expand_kernel<<<blocks_for(total), kThreads>>>(ends, m, total, rows);
  check(cudaGetLastError(), "expand repeats");
}

}  // namespace sf::backend::cuda
