// The host side of launching a generated kernel, independent of the driver: σ-evaluation of its
// parameters, the launch geometry (grid size, 32- or 64-bit index arithmetic), the SfArgs block,
// and the decoding of the device error record into the errors the CPU backend raises.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/backend/cuda/codegen.h"
#include "engine/backend/cuda/cuda_externs.h"
#include "engine/backend/runner.h"

namespace sf::backend::cuda {

// A dtype's element type on the device (bool as one byte).
ElemType elem_type(DType d);

// A device buffer: the plan buffer's memory, its element type and element count.
struct DeviceBuffer {
  void* ptr = nullptr;
  DType dtype = DType::kFloat32;
  int64_t numel = 0;
};

struct ConcreteAccess {
  int64_t offset = 0;
  std::vector<int64_t> strides;
};

// A kernel's parameters under σ.
struct ConcreteKernel {
  std::vector<int64_t> sizes;
  std::vector<ConcreteAccess> inputs;
  ConcreteAccess output;
  std::vector<int64_t> scalars;  // bit patterns: f32 as float bits, bool 0/1, i64 as is
  std::vector<int64_t> gather_sizes, gather_strides;
};

// As the CPU interpreter: sizes and accesses always; scalars and gather bounds only when the body
// is evaluated at all (some iteration point exists).
ConcreteKernel evaluate_kernel(const lower::Kernel& k, const KernelCode& code,
                               const SymbolEnv& sigma);

// One launch of a kernel. A pointwise kernel and a direct reduction are one launch; a split
// reduction (few outputs, many points each) may be a kPartials launch and a kMergeStore (see
// ReducePhase), through a scratch buffer of partials.
struct LaunchStep {
  ReducePhase phase = ReducePhase::kDirect;
  int64_t groups = 1;        // threads per output
  int64_t in_groups = 1;     // partials per output it merges (kMergeStore)
  int64_t segment = 1;       // threads per output in one block, merged by a tree (kSegmentSlot)
  bool out_fastest = false;  // consecutive threads take consecutive outputs
  bool by_rows = false;      // pointwise: blocks take rows of the last dim (KernelCode::kRowsSlot)
  int64_t blocks = 0;
  bool tiled = false;  // pointwise: blocks take tiles through shared memory (kTiledSlot)
};

struct LaunchGeometry {
  int64_t count = 0;    // threads' work items: iteration points, or output points of a reduction
  int64_t inner = 1;    // reduced points per output point
  int64_t blocks = 0;   // 0: nothing to launch (else the blocks of a one-launch run)
  bool narrow = false;  // the 32-bit entry point is safe (for every step)
  std::vector<LaunchStep> steps;
  int64_t partials = 0;  // capacity of the scratch buffer, in partials (0: no scratch)
  // Bytes of the scratch buffer: `partials` doubles, then i64s, then seen flags (the doubles and
  // i64s stay 8-byte aligned), rounded up to 256.
  int64_t scratch_bytes() const { return (17 * partials + 255) / 256 * 256; }
};
// `sm_count` sizes the grids (and decides when a reduction is split: when its outputs alone
// cannot fill the device).
LaunchGeometry launch_geometry(const lower::Kernel& k, const KernelCode& code,
                               const ConcreteKernel& ck, const std::vector<DeviceBuffer>& inputs,
                               const DeviceBuffer& output, int sm_count);

// SfArgs::v: the launch's counts and sequence number, sizes, accesses, scalars and gather bounds
// (KernelCode's slots).
// `step`: the launch's ReducePhase parameters (null: a one-launch run).
std::vector<int64_t> param_values(const lower::Kernel& k, const KernelCode& code,
                                  const ConcreteKernel& ck, const LaunchGeometry& g,
                                  const std::vector<DeviceBuffer>& inputs,
                                  const DeviceBuffer& output, int seq,
                                  const LaunchStep* step = nullptr);

// SfArgs: input pointers, output pointer, error record, for a reduction the scratch `partials`
// (LaunchGeometry::scratch_bytes; null when it has none), then `values` inline, or, when
// code.values_in_memory, `values_at`: a copy of them in device memory that lives until the kernel
// has run. Every field is 8 bytes; the block never passes kMaxParamBytes.
std::vector<uint64_t> param_block(const KernelCode& code, const std::vector<DeviceBuffer>& inputs,
                                  const DeviceBuffer& output, void* err,
                                  const std::vector<int64_t>& values,
                                  const void* values_at = nullptr, void* partials = nullptr);

// The device error record (mirrors SfError in the device prelude).
struct ErrorRecord {
  uint32_t lock = 0;
  int32_t code = 0;
  int32_t aux = 0;
  int32_t seq = 0;
  uint64_t key = 0;
  int64_t value = 0;
};

// What error decoding needs to know about one launch.
struct LaunchInfo {
  std::string name;
  std::vector<int> gather_dims;
  std::vector<int64_t> gather_sizes, input_numels;
  int64_t output_numel = 0;
};
LaunchInfo launch_info(const lower::Kernel& k, const KernelCode& code, const ConcreteKernel& ck,
                       const std::vector<DeviceBuffer>& inputs, const DeviceBuffer& output);

// Throws what the launch that wrote `rec` would have raised on the CPU (no-op when code is 0).
void raise_device_error(const ErrorRecord& rec, const std::vector<LaunchInfo>& launches);

}  // namespace sf::backend::cuda
