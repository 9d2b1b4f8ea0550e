// Host emulation of the CUDA backend's kernel path (see emulated_backend.h).
#include "tests/backend/emulated_backend.h"

#include <cstring>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/storage.h"
#include "engine/backend/cuda/codegen.h"
#include "engine/base/errors.h"

namespace sf::backend::testing {

void EmulatedCudaBackend::begin_run() {
  storage_.clear();
  launches_.clear();
  record_ = cuda::ErrorRecord{};
}

void EmulatedCudaBackend::store(int buffer, const program::HostTensor& t) {
  Bytes& b = storage_[buffer];
  b.dtype = t.dtype;
  b.numel = t.numel();
  b.data.assign(b.numel * cuda::elem_size(cuda::elem_type(t.dtype)), 0);
  for (int64_t k = 0; k < b.numel; ++k) {
    if (t.dtype == DType::kFloat32) {
      std::memcpy(&b.data[k * 4], &t.floats[k], 4);
    } else if (t.dtype == DType::kInt64) {
      std::memcpy(&b.data[k * 8], &t.ints[k], 8);
    } else {
      b.data[k] = t.ints[k] != 0;
    }
  }
}

void EmulatedCudaBackend::upload_input(int buffer, const program::HostTensor& t) {
  store(buffer, t);
}

void EmulatedCudaBackend::allocate(int buffer, DType dtype, int64_t numel) {
  Bytes& b = storage_[buffer];
  b.dtype = dtype;
  b.numel = numel;
  b.data.assign(numel * cuda::elem_size(cuda::elem_type(dtype)), 0);
}

void EmulatedCudaBackend::launch(const lower::Plan&, const lower::Kernel& k,
                                 const SymbolEnv& sigma) {
  cuda::KernelCode code = cuda::generate_kernel(k);
  cuda::ConcreteKernel ck = cuda::evaluate_kernel(k, code, sigma);
  auto buffer = [&](int id) {
    Bytes& b = storage_.at(id);
    return cuda::DeviceBuffer{b.data.data(), b.dtype, b.numel};
  };
  std::vector<cuda::DeviceBuffer> ins;
  for (const lower::Access& a : k.inputs) ins.push_back(buffer(a.buffer));
  cuda::DeviceBuffer out = buffer(k.output.buffer);
  cuda::LaunchGeometry g = cuda::launch_geometry(k, code, ck, ins, out, /*sm_count=*/2);
  if (g.blocks == 0) return;
  HostKernels::Fn fn = kernels_.fn(code.source);
  if (!fn) throw EngineBug(k.name + ": no host build of its source");
  bool wide = force_wide_ || !g.narrow;
  std::vector<unsigned char> scratch(static_cast<size_t>(g.scratch_bytes()));
  for (const cuda::LaunchStep& step : g.steps) {
    int seq = static_cast<int>(launches_.size());
    std::vector<int64_t> values = cuda::param_values(k, code, ck, g, ins, out, seq, &step);
    std::vector<uint64_t> block = cuda::param_block(code, ins, out, &record_, values, values.data(),
                                                    g.partials > 0 ? scratch.data() : nullptr);
    narrow_launches_ += !wide;
    split_launches_ += step.phase != cuda::ReducePhase::kDirect;
    row_launches_ += step.by_rows;
    tiled_launches_ += step.tiled;
    if (step.segment > 1) ++tree_launches_[static_cast<int>(step.phase)];
    fn(block.data(), static_cast<unsigned>(step.blocks), wide ? 1 : 0);
    launches_.push_back(cuda::launch_info(k, code, ck, ins, out));
  }
  cuda::raise_device_error(record_, launches_);
}

program::HostTensor EmulatedCudaBackend::download(const ResolvedLayout& l) {
  const Bytes& b = storage_.at(l.buffer);
  program::HostTensor t = program::HostTensor::zeros(l.dtype, l.sizes);
  std::vector<int64_t> offsets = cpu::strided_offsets(l.sizes, l.strides, l.offset);
  for (size_t k = 0; k < offsets.size(); ++k) {
    int64_t off = offsets[k];
    if (off < 0 || off >= b.numel) throw EngineBug("download outside the buffer");
    if (l.dtype == DType::kFloat32) {
      std::memcpy(&t.floats[k], &b.data[off * 4], 4);
    } else if (l.dtype == DType::kInt64) {
      std::memcpy(&t.ints[k], &b.data[off * 8], 8);
    } else {
      t.ints[k] = b.data[off];
    }
  }
  return t;
}

ExternOutputs EmulatedCudaBackend::run_extern(const lower::Plan&, const lower::Extern& e,
                                              const std::vector<ResolvedLayout>& inputs,
                                              const SymbolEnv& sigma) {
  std::vector<program::HostTensor> tensors;
  for (const ResolvedLayout& l : inputs) tensors.push_back(download(l));
  return cpu::run_eager_extern(e, std::move(tensors), sigma,
                               [&](int buffer, const program::HostTensor& t) { store(buffer, t); });
}

}  // namespace sf::backend::testing
