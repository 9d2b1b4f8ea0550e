// Parameter blocks, launch geometry and error decoding for generated kernels.
#include "engine/backend/cuda/launch_params.h"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "engine/base/check.h"
#include "engine/base/errors.h"

namespace sf::backend::cuda {

namespace {

constexpr int64_t kI32Limit = int64_t{1} << 31;

int64_t scalar_bits(const sym::Concrete& v, DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return std::bit_cast<uint32_t>(static_cast<float>(v.as_double()));
    case DType::kBool:
      return v.type == sym::ExprType::kBool ? v.b : v.as_double() != 0;
    case DType::kInt64:
      return v.type == sym::ExprType::kBool ? int64_t{v.b} : v.i;
  }
  SF_UNREACHABLE();
}

ConcreteAccess evaluate_access(const lower::Access& a, const SymbolEnv& sigma) {
  ConcreteAccess c;
  c.offset = sigma.eval_int(a.offset);
  for (const ExprRef& s : a.strides) c.strides.push_back(sigma.eval_int(s));
  return c;
}

// Largest |element offset| an access reaches over the iteration space (saturated at 2^31).
int64_t reach(const ConcreteAccess& a, const std::vector<int64_t>& sizes) {
  __int128 r = a.offset < 0 ? -static_cast<__int128>(a.offset) : a.offset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    __int128 s = a.strides[d] < 0 ? -static_cast<__int128>(a.strides[d]) : a.strides[d];
    r += s * (sizes[d] > 1 ? sizes[d] - 1 : 0);
  }
  return r >= kI32Limit ? kI32Limit : static_cast<int64_t>(r);
}

}  // namespace

ElemType elem_type(DType d) {
  switch (d) {
    case DType::kBool:
      return ElemType::kBool;
    case DType::kInt64:
      return ElemType::kInt64;
    case DType::kFloat32:
      return ElemType::kFloat32;
  }
  SF_UNREACHABLE();
}

ConcreteKernel evaluate_kernel(const lower::Kernel& k, const KernelCode& code,
                               const SymbolEnv& sigma) {
  ConcreteKernel c;
  int64_t n = 1;
  for (const ExprRef& s : k.sizes) {
    c.sizes.push_back(sigma.eval_int(s));
    n *= c.sizes.back();
  }
  for (const lower::Access& a : k.inputs) c.inputs.push_back(evaluate_access(a, sigma));
  c.output = evaluate_access(k.output, sigma);
  c.scalars.assign(code.scalars.size(), 0);
  c.gather_sizes.assign(code.gathers.size(), 0);
  c.gather_strides.assign(code.gathers.size(), 0);
  if (n == 0) return c;
  for (size_t s = 0; s < code.scalars.size(); ++s) {
    c.scalars[s] = scalar_bits(sigma.eval(code.scalars[s]->scalar), code.scalars[s]->dtype);
  }
  for (size_t g = 0; g < code.gathers.size(); ++g) {
    c.gather_sizes[g] = sigma.eval_int(code.gathers[g]->gather_size);
    c.gather_strides[g] = sigma.eval_int(code.gathers[g]->gather_stride);
  }
  return c;
}

namespace {

int64_t blocks_for(int64_t threads, int sm_count) {
  return std::min<int64_t>((threads + kBlockThreads - 1) / kBlockThreads,
                           int64_t{std::max(sm_count, 1)} * 32);
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Threads a reduction launch runs (the kernel's n_threads, KernelCode::kThreadsSlot): with
// segments, a whole number of blocks, every one of them taking part in the tree's barriers.
int64_t reduction_threads(int64_t count, const LaunchStep& s) {
  if (s.segment == 1) return count * s.groups;
  if (s.out_fastest) return ceil_div(count, 32) * 32 * s.groups;
  return ceil_div(count * s.groups, kBlockThreads) * kBlockThreads;
}

int64_t pow2_at_most(int64_t x) { return int64_t{1} << (63 - std::countl_zero(uint64_t(x))); }

// A reduction's launches. One thread per output when the outputs fill the device or each has few
// points. Else `groups` threads per output, enough to fill the device, each reducing at least 32
// points; the threads of a block that share an output merge through a tree (the segment: up to
// a whole block when the reduced dims are innermost, 8 of a block of 32 outputs by 8 when the
// kept ones are). When one segment holds all of an output's threads that launch stores; else
// each segment writes a partial and one more launch merges an output's partials with a segment
// of its own. (Partials merged by one thread after another, up to 1024 each, in up to three
// launches, left a full sum of 2^26 at 25% of copy on an H200.)
void plan_reduction(LaunchGeometry& g, bool last_dim_reduced, int sm_count) {
  const int64_t resident = int64_t{std::max(sm_count, 1)} * 2048;  // threads the device holds
  int64_t want = std::min(ceil_div(resident, g.count), ceil_div(g.inner, 32));
  LaunchStep first;
  if (g.count >= resident / 4 || want < 2) {
    first.blocks = g.blocks;
    g.steps.push_back(first);
    return;
  }
  // Kept dims inside the reduced ones: neighbouring outputs read neighbouring elements, so a warp
  // takes 32 outputs (with fewer outputs most of its threads would idle).
  first.out_fastest = !last_dim_reduced && g.count >= 32;
  if (first.out_fastest) {
    first.segment = kBlockThreads / 32;
    first.groups = ceil_div(want, first.segment) * first.segment;
  } else if (want <= kBlockThreads) {
    first.segment = first.groups = pow2_at_most(want);
  } else {
    first.segment = kBlockThreads;
    first.groups = ceil_div(want, kBlockThreads) * kBlockThreads;
  }
  first.blocks = blocks_for(reduction_threads(g.count, first), sm_count);
  const int64_t parts = first.groups / first.segment;
  if (parts == 1) {
    g.steps.push_back(first);
    return;
  }
  first.phase = ReducePhase::kPartials;
  g.partials = g.count * parts;
  g.steps.push_back(first);
  // A few partials: one thread merges them; more: a segment of threads and a tree.
  LaunchStep merge;
  merge.phase = ReducePhase::kMergeStore;
  merge.in_groups = parts;
  merge.groups = merge.segment =
      parts <= 8 ? 1 : std::min<int64_t>(pow2_at_most(parts), kBlockThreads);
  merge.blocks = blocks_for(reduction_threads(g.count, merge), sm_count);
  g.steps.push_back(merge);
}

}  // namespace

LaunchGeometry launch_geometry(const lower::Kernel& k, const KernelCode& code,
                               const ConcreteKernel& ck, const std::vector<DeviceBuffer>& inputs,
                               const DeviceBuffer& output, int sm_count) {
  LaunchGeometry g;
  bool reduction = k.kind == lower::Kernel::Kind::kReduction;
  g.count = 1;
  for (int d = 0; d < code.rank; ++d)
    (reduction && k.reduced[d] ? g.inner : g.count) *= ck.sizes[d];
  // A pointwise kernel over no points does nothing; a reduction with outputs but no reduced
  // points still writes every output's identity.
  if (g.count == 0 || (g.inner == 0 && !reduction)) return g;
  g.blocks = blocks_for(g.count, sm_count);
  if (reduction) {
    plan_reduction(g, code.rank > 0 && k.reduced[code.rank - 1], sm_count);
  } else {
    // Rows of at least half a block: each block takes whole rows.
    int64_t row = code.rank >= 2 ? ck.sizes[code.rank - 1] : 0;
    LaunchStep step;
    step.blocks = g.blocks;
    const int last = code.rank - 1;
    if (code.tile_dim >= 0 && ck.sizes[code.tile_dim] >= kTileT && ck.sizes[last] >= kTileT) {
      // A transposed read over whole tiles: the tiled path (codegen.cc).
      const int64_t st = ck.sizes[code.tile_dim], sl = ck.sizes[last];
      const int64_t tiles = g.count / (st * sl) * ceil_div(st, kTileT) * ceil_div(sl, kTileL);
      step.tiled = true;
      step.blocks = std::min<int64_t>(tiles, int64_t{std::max(sm_count, 1)} * 32);
    } else if (row >= kBlockThreads / 2) {
      step.by_rows = true;
      step.blocks = std::min<int64_t>(g.count / row, int64_t{std::max(sm_count, 1)} * 32);
    }
    g.steps.push_back(step);
  }
  // 32-bit index arithmetic when every index, offset and the grid-stride loop fit (PyTorch does
  // the same); gathered offsets are 64-bit either way.
  int64_t threads = std::max(g.count, g.partials);
  // The loops step kUnroll points at a time, so a thread's last step passes the end by up to
  // kUnroll strides.
  const int64_t unroll = kUnroll;
  g.narrow = threads + unroll * g.blocks * kBlockThreads < kI32Limit && g.inner < kI32Limit &&
             output.numel < kI32Limit && reach(ck.output, ck.sizes) < kI32Limit;
  for (const LaunchStep& s : g.steps) {
    const int64_t threads = reduction ? reduction_threads(g.count, s) : g.count;
    g.narrow = g.narrow && threads + s.blocks * kBlockThreads < kI32Limit &&
               g.inner + unroll * s.groups < kI32Limit;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    g.narrow = g.narrow && inputs[i].numel < kI32Limit && reach(ck.inputs[i], ck.sizes) < kI32Limit;
  }
  return g;
}

std::vector<int64_t> param_values(const lower::Kernel& k, const KernelCode& code,
                                  const ConcreteKernel& ck, const LaunchGeometry& g,
                                  const std::vector<DeviceBuffer>& inputs,
                                  const DeviceBuffer& output, int seq, const LaunchStep* step) {
  SF_CHECK(static_cast<int>(inputs.size()) == code.num_inputs) << k.name << ": input count";
  std::vector<int64_t> v(code.param_count(), 0);
  v[KernelCode::kCountSlot] = g.count;
  v[KernelCode::kInnerSlot] = g.inner;
  v[KernelCode::kSeqSlot] = seq;
  LaunchStep direct;
  if (!step) step = &direct;
  v[KernelCode::kPhaseSlot] = static_cast<int64_t>(step->phase);
  v[KernelCode::kGroupsSlot] = step->groups;
  v[KernelCode::kInGroupsSlot] = step->in_groups;
  v[KernelCode::kOrderSlot] = step->out_fastest ? 1 : 0;
  v[KernelCode::kCapacitySlot] = g.partials;
  v[KernelCode::kSegmentSlot] = step->segment;
  if (code.reduction) v[KernelCode::kThreadsSlot] = reduction_threads(g.count, *step);
  v[KernelCode::kRowsSlot] = step->by_rows ? 1 : 0;
  v[KernelCode::kTiledSlot] = step->tiled ? 1 : 0;
  for (int d = 0; d < code.rank; ++d) v[code.size_slot(d)] = ck.sizes[d];
  auto put_access = [&](int a, const ConcreteAccess& acc, int64_t numel) {
    v[code.numel_slot(a)] = numel;
    v[code.offset_slot(a)] = acc.offset;
    for (int d = 0; d < code.rank; ++d) v[code.stride_slot(a, d)] = acc.strides[d];
  };
  for (int i = 0; i < code.num_inputs; ++i) put_access(i, ck.inputs[i], inputs[i].numel);
  put_access(code.num_inputs, ck.output, output.numel);
  for (size_t s = 0; s < ck.scalars.size(); ++s) v[code.scalar_slot(s)] = ck.scalars[s];
  for (size_t q = 0; q < ck.gather_sizes.size(); ++q) {
    v[code.gather_size_slot(q)] = ck.gather_sizes[q];
    v[code.gather_stride_slot(q)] = ck.gather_strides[q];
  }
  return v;
}

std::vector<uint64_t> param_block(const KernelCode& code, const std::vector<DeviceBuffer>& inputs,
                                  const DeviceBuffer& output, void* err,
                                  const std::vector<int64_t>& values, const void* values_at,
                                  void* partials) {
  SF_CHECK(static_cast<int>(inputs.size()) == code.num_inputs) << "param_block: input count";
  SF_CHECK(static_cast<int>(values.size()) == code.param_count()) << "param_block: value count";
  SF_CHECK(!code.values_in_memory || values_at) << "param_block: values not in device memory";
  std::vector<uint64_t> block;
  for (const DeviceBuffer& b : inputs) block.push_back(reinterpret_cast<uint64_t>(b.ptr));
  block.push_back(reinterpret_cast<uint64_t>(output.ptr));
  block.push_back(reinterpret_cast<uint64_t>(err));
  if (code.reduction) {
    // The partials are read as doubles and i64s from their start.
    SF_CHECK(reinterpret_cast<uintptr_t>(partials) % 8 == 0) << "param_block: misaligned partials";
    block.push_back(reinterpret_cast<uint64_t>(partials));
  }
  if (code.values_in_memory) {
    block.push_back(reinterpret_cast<uint64_t>(values_at));
  } else {
    for (int64_t x : values) block.push_back(static_cast<uint64_t>(x));
  }
  SF_CHECK(static_cast<int>(block.size() * sizeof(uint64_t)) == code.args_bytes())
      << "param_block: SfArgs size";
  return block;
}

LaunchInfo launch_info(const lower::Kernel& k, const KernelCode& code, const ConcreteKernel& ck,
                       const std::vector<DeviceBuffer>& inputs, const DeviceBuffer& output) {
  LaunchInfo info;
  info.name = k.name;
  info.gather_sizes = ck.gather_sizes;
  for (const lower::KExpr* g : code.gathers) info.gather_dims.push_back(g->gather_dim);
  for (const DeviceBuffer& b : inputs) info.input_numels.push_back(b.numel);
  info.output_numel = output.numel;
  return info;
}

void raise_device_error(const ErrorRecord& rec, const std::vector<LaunchInfo>& launches) {
  if (rec.code == 0) return;
  SF_CHECK(rec.seq >= 0 && rec.seq < static_cast<int>(launches.size()))
      << "device error from unknown launch " << rec.seq;
  const LaunchInfo& info = launches[rec.seq];
  switch (static_cast<DeviceError>(rec.code)) {
    case DeviceError::kZeroDivision:
      throw_user_error(UserErrorKind::kZeroDivision, info.name + ": integer division by zero");
    case DeviceError::kIndex:
      throw_user_error(UserErrorKind::kIndex, info.name + ": index " + std::to_string(rec.value) +
                                                  " is out of bounds for dim " +
                                                  std::to_string(info.gather_dims.at(rec.aux)) +
                                                  " of size " +
                                                  std::to_string(info.gather_sizes.at(rec.aux)));
    case DeviceError::kBadRead:
      throw EngineBug(info.name + " reads element " + std::to_string(rec.value) +
                      " of a buffer of " + std::to_string(info.input_numels.at(rec.aux)));
    case DeviceError::kBadWrite:
      throw EngineBug(info.name + " writes element " + std::to_string(rec.value) +
                      " of a buffer of " + std::to_string(info.output_numel));
    case DeviceError::kNone:
      break;
  }
  throw EngineBug(info.name + ": unknown device error code " + std::to_string(rec.code));
}

}  // namespace sf::backend::cuda
