// Host emulation of the CUDA backend's kernel path (see emulated_backend.h).
#include "tests/backend/emulated_backend.h"

#include <cstring>

#include "engine/backend/cuda/codegen.h"
#include "engine/base/errors.h"
#include "engine/eager/internal.h"

namespace sf::backend::testing {

namespace {

namespace ei = eager::internal;

size_t elem_bytes(DType d) { return d == DType::kBool ? 1 : d == DType::kInt64 ? 8 : 4; }

}  // namespace

void EmulatedCudaBackend::begin_run() {
  storage_.clear();
  launches_.clear();
  record_ = cuda::ErrorRecord{};
}

void EmulatedCudaBackend::store(int buffer, const program::HostTensor& t) {
  Bytes& b = storage_[buffer];
  b.dtype = t.dtype;
  b.numel = t.numel();
  b.data.assign(b.numel * elem_bytes(t.dtype), 0);
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
  b.data.assign(numel * elem_bytes(dtype), 0);
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
  int seq = static_cast<int>(launches_.size());
  std::vector<uint64_t> block = cuda::param_block(k, code, ck, g, ins, out, &record_, seq);
  HostKernels::Fn fn = kernels_.fn(code.source);
  if (!fn) throw EngineBug(k.name + ": no host build of its source");
  bool wide = force_wide_ || !g.narrow;
  narrow_launches_ += !wide;
  fn(block.data(), static_cast<unsigned>(g.blocks), wide ? 1 : 0);
  launches_.push_back(cuda::launch_info(k, code, ck, ins, out));
  cuda::raise_device_error(record_, launches_);
}

program::HostTensor EmulatedCudaBackend::download(const ResolvedLayout& l) {
  const Bytes& b = storage_.at(l.buffer);
  program::HostTensor t = program::HostTensor::zeros(l.dtype, l.sizes);
  int64_t n = t.numel();
  std::vector<int64_t> idx(l.sizes.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = l.offset;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * l.strides[d];
    if (off < 0 || off >= b.numel) throw EngineBug("download outside the buffer");
    if (l.dtype == DType::kFloat32) {
      std::memcpy(&t.floats[k], &b.data[off * 4], 4);
    } else if (l.dtype == DType::kInt64) {
      std::memcpy(&t.ints[k], &b.data[off * 8], 8);
    } else {
      t.ints[k] = b.data[off];
    }
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < l.sizes[d]) break;
      idx[d] = 0;
    }
  }
  return t;
}

ExternOutputs EmulatedCudaBackend::run_extern(const lower::Plan&, const lower::Extern& e,
                                              const std::vector<ResolvedLayout>& inputs) {
  std::vector<ei::Value> t;
  for (const ResolvedLayout& l : inputs) t.push_back(ei::Value::of_tensor(download(l)));
  const ei::Value& second = t.size() > 1 ? t[1] : t[0];
  ExternOutputs out;
  ei::Value r;
  switch (e.op) {
    case program::OpKind::kItem: {
      ei::Value v = ei::item(ei::Call(e.op, {t[0]}));
      out.scalar = v.kind == ei::Value::Kind::kFloat  ? sym::Concrete::of_float(v.f)
                   : v.kind == ei::Value::Kind::kBool ? sym::Concrete::of_bool(v.b)
                                                      : sym::Concrete::of_int(v.i);
      return out;
    }
    case program::OpKind::kNonzero:
      r = ei::nonzero(ei::Call(e.op, {t[0]}));
      break;
    case program::OpKind::kIndex:
      r = ei::index(ei::Call(e.op, {t[0], second}));
      break;
    case program::OpKind::kMaskedSelect:
      r = ei::masked_select(ei::Call(e.op, {t[0], second}));
      break;
    case program::OpKind::kUnique:
      r = ei::unique(ei::Call(e.op, {t[0], ei::Value::of_bool(e.return_counts)}));
      break;
    case program::OpKind::kRepeatInterleave: {
      std::vector<ei::Value> args{t[0]};
      args.push_back(e.repeats_only ? ei::Value() : second);
      args.push_back(e.dim >= 0 ? ei::Value::of_int(e.dim) : ei::Value());
      r = ei::repeat_interleave(ei::Call(e.op, args));
      break;
    }
    default:
      throw EngineBug("no extern for " + e.name);
  }
  std::vector<const program::HostTensor*> results;
  if (r.kind == ei::Value::Kind::kTuple) {
    for (const ei::Value& v : r.elems) results.push_back(v.tensor.get());
  } else {
    results.push_back(r.tensor.get());
  }
  for (size_t i = 0; i < results.size(); ++i) {
    store(e.outputs.at(i), *results[i]);
    out.shapes.push_back(results[i]->sizes);
  }
  return out;
}

}  // namespace sf::backend::testing
