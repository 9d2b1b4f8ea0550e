// CUDA C generation for kernel IR: one NVRTC program per Kernel whose text depends only on the
// kernel's structure (rank, dtypes, body), never on σ. Every size, stride, offset, scalar and
// gather bound is a runtime parameter, so one compiled kernel serves every program and σ.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/lower/kernel_ir.h"

namespace sf::backend::cuda {

// Entry points of every generated program: 64-bit and 32-bit index arithmetic (the host picks the
// 32-bit one when every index and offset fits, as PyTorch does).
inline constexpr const char* kEntry64 = "sf_kernel";
inline constexpr const char* kEntry32 = "sf_kernel_i32";
// Threads per block of every launch (the kernels' __launch_bounds__).
inline constexpr int kBlockThreads = 256;
// Points a thread takes per loop step: their loads are issued before any of their bodies runs
// (codegen_loops.cc), so the last step may pass the end of the loop by kUnroll - 1 strides.
inline constexpr int kUnroll = 4;
// The tiled path's tiles: kTileT points along tile_dim by kTileL along the last dim. A block is
// 32 x 8 threads, each taking kTilePoints points of a tile (their loads in flight together).
inline constexpr int kTileT = 32, kTileL = 64;
inline constexpr int kTilePoints = kTileT * kTileL / kBlockThreads;
static_assert(kTileT == 32 && kTilePoints % 2 == 0, "a warp spans the tile along either dim");
// The portable kernel-parameter limit: a larger SfArgs passes v through device memory instead.
inline constexpr int kMaxParamBytes = 4096;

// Device error codes written to the error record (see device_prelude.cc).
enum class DeviceError : int {
  kNone = 0,
  kZeroDivision = 1,  // aux: unused
  kIndex = 2,         // aux: gather ordinal, value: the index
  kBadRead = 3,       // aux: input, value: the element offset (an engine bug)
  kBadWrite = 4,      // value: the element offset (an engine bug)
};

// The phases of a reduction launch (SfArgs::v[kPhaseSlot]). `groups` threads per output each
// combine every groups-th reduced point; the `seg` of them in one block that share an output
// (v[kSegmentSlot]) then merge theirs through a tree in shared memory. When a block's segment
// holds all of an output's threads, one launch stores it (kDirect); else each segment writes a
// partial accumulator (kPartials) and a second launch merges an output's partials, again by a
// segment of threads and a tree, and stores it (kMergeStore).
enum class ReducePhase : int { kDirect = 0, kPartials = 1, kMergeStore = 2 };

// The parameter block `SfArgs` of a generated kernel: one pointer per input, the output pointer,
// the error record pointer, for a reduction the scratch partials (`partials`: `capacity` doubles,
// then `capacity` i64s, then `capacity` seen flags; a kPartials launch writes them, the
// kMergeStore after it reads them), then
// `long long v[param_count()]` laid out as below, or, when that would pass kMaxParamBytes
// (values_in_memory), a pointer to v in device memory.
struct KernelCode {
  std::string source;
  int rank = 0;
  int num_inputs = 0;
  bool reduction = false;
  std::vector<const lower::KExpr*> scalars;  // kScalar nodes, in slot order
  std::vector<const lower::KExpr*> gathers;  // gathering kLoad nodes, in slot order
  bool values_in_memory = false;
  // Pointwise: a dim other than the last along which some input is contiguous (stride 1) while
  // its last dim is not: that input is read transposed, so the kernel has a tiled path that reads
  // it along tile_dim and writes the output along the last dim, through shared memory. -1: none.
  int tile_dim = -1;

  // v[0] = iteration points (pointwise) or output points (reduction); v[1] = reduced points per
  // output (1 for pointwise); v[2] = launch sequence number (orders errors across launches);
  // reductions: v[3] = ReducePhase, v[4] = threads per output, v[5] = partials per output read,
  // v[6] = 1 when consecutive threads take consecutive outputs, v[7] = partials capacity,
  // v[10] = threads per output in one block (the tree's segment: 1, a power of two up to the
  // block, or 8 with v[6], which then means blocks of 32 outputs by 8), v[11] = threads the
  // launch runs (with segments padded to whole blocks, so every thread reaches every barrier);
  // pointwise: v[8] = 1 when each block takes whole rows of the last dim (no index division per
  // element), 0 for one grid-stride loop over all points; v[9] = 1 when blocks take kTileT x kTileL
  // tiles of (tile_dim, last dim) through shared memory (only when tile_dim >= 0).
  static constexpr int kCountSlot = 0, kInnerSlot = 1, kSeqSlot = 2, kPhaseSlot = 3,
                       kGroupsSlot = 4, kInGroupsSlot = 5, kOrderSlot = 6, kCapacitySlot = 7,
                       kRowsSlot = 8, kTiledSlot = 9, kSegmentSlot = 10, kThreadsSlot = 11,
                       kFixedSlots = 12;
  int size_slot(int d) const { return kFixedSlots + d; }
  // Access a: inputs 0..num_inputs-1, then the output as num_inputs.
  int numel_slot(int a) const { return kFixedSlots + rank + a * (rank + 2); }
  int offset_slot(int a) const { return numel_slot(a) + 1; }
  int stride_slot(int a, int d) const { return numel_slot(a) + 2 + d; }
  int scalar_slot(int s) const { return numel_slot(num_inputs + 1) + s; }
  int gather_size_slot(int g) const {
    return scalar_slot(static_cast<int>(scalars.size())) + 2 * g;
  }
  int gather_stride_slot(int g) const { return gather_size_slot(g) + 1; }
  int param_count() const { return gather_size_slot(static_cast<int>(gathers.size())); }
  // Pointer fields before v: inputs, output, error record, and the partials for reductions.
  int pointer_count() const { return num_inputs + 2 + (reduction ? 1 : 0); }
  // Bytes of SfArgs (every field 8 bytes).
  int args_bytes() const { return 8 * (pointer_count() + (values_in_memory ? 1 : param_count())); }
};

// The generated program for `k` (the KExpr pointers refer into `k`, which must outlive the
// result).
KernelCode generate_kernel(const lower::Kernel& k);
std::string kernel_source(const lower::Kernel& k);

// The device helpers every generated program starts with (element semantics of
// engine/program/elementwise.cc, the error record).
const char* device_prelude();

}  // namespace sf::backend::cuda
