// The CUDA backend's storage and launches: one device buffer per plan buffer (bool as bytes),
// generated kernels through KernelLauncher, layout-directed downloads, and the error record that
// kernels report runtime errors through.
#include "engine/backend/cuda/cuda_backend.h"

#include "engine/backend/cuda/cuda_backend_internal.h"
#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/sym/make.h"

namespace sf::backend {

namespace cuda {

namespace {

bool is_contiguous(const ResolvedLayout& l) {
  int64_t expect = 1;
  for (size_t d = l.sizes.size(); d-- > 0;) {
    if (l.sizes[d] != 1 && l.strides[d] != expect) return false;
    expect *= l.sizes[d];
  }
  return true;
}

// A pointwise copy of a strided layout into contiguous memory: the same generated-kernel path as
// plan kernels (its source depends only on the rank and dtype, so it compiles once).
lower::Kernel copy_kernel(const ResolvedLayout& l) {
  lower::Kernel k;
  k.kind = lower::Kernel::Kind::kPointwise;
  k.name = "densify";
  lower::Access in, out;
  in.buffer = l.buffer;
  in.dtype = out.dtype = l.dtype;
  in.offset = out.offset = sym::integer(0);
  for (int64_t s : l.sizes) {
    k.sizes.push_back(sym::integer(s));
    in.strides.push_back(sym::integer(0));
    out.strides.push_back(sym::integer(0));
  }
  k.inputs = {in};
  k.output = out;
  k.body = lower::KExpr::load(0, l.dtype);
  return k;
}

}  // namespace

CudaBackend::CudaBackend() {
  if (!available(nullptr)) return;
  Driver& driver = Driver::get();
  driver.make_current();
  mem_ = std::make_unique<DeviceMemory>(driver);
  launcher_ = std::make_unique<KernelLauncher>(driver, NvrtcCache::shared(), *mem_);
  error_record_ = mem_->alloc(sizeof(ErrorRecord));
}

CudaBackend::~CudaBackend() {
  if (!mem_) return;
  try {
    Driver::get().make_current();
  } catch (const EngineBug&) {  // nothing to do about it here: the context is lost
  }
  launcher_.reset();
  for (auto& [id, b] : buffers_) mem_->release(b.ptr);
  mem_->release(error_record_);
}

bool CudaBackend::available(std::string* why) const {
  return Driver::get().available(why) && Nvrtc::get().available(why);
}

RunResult CudaBackend::run(const lower::Plan& plan, const ShapeEnv& env,
                           const std::map<std::string, program::HostValue>& inputs) {
  std::string why;
  if (!available(&why) || !mem_) throw Unavailable("the CUDA backend is unavailable: " + why);
  Driver::get().make_current();
  try {
    RunResult r = PlanRunner::run(plan, env, inputs);
    if (unchecked_launches_) check_device_error();
    return r;
  } catch (...) {
    if (unchecked_launches_) check_device_error();
    throw;
  }
}

void CudaBackend::begin_run() {
  end_run();
  launcher_->reset();
  Driver::get().check(Driver::get().api().memset_d8(reinterpret_cast<CUdeviceptr>(error_record_), 0,
                                                    sizeof(ErrorRecord)),
                      "cuMemsetD8");
  unchecked_launches_ = false;
}

void CudaBackend::end_run() {
  for (auto& [id, b] : buffers_) mem_->free(b.ptr);
  buffers_.clear();
}

void CudaBackend::set_output(int buffer, DType dtype, int64_t numel, void* ptr) {
  release(buffer);
  buffers_[buffer] = DeviceBuffer{ptr, dtype, numel};
}

void CudaBackend::upload_input(int buffer, const program::HostTensor& t) {
  int64_t n = t.numel();
  size_t bytes = static_cast<size_t>(n) * elem_size(elem_type(t.dtype));
  void* p = mem_->alloc(bytes);
  set_output(buffer, t.dtype, n, p);
  if (n == 0) return;
  const void* src = t.is_float() ? static_cast<const void*>(t.floats.data()) : t.ints.data();
  std::vector<uint8_t> bools;
  if (t.dtype == DType::kBool) {
    bools.resize(n);
    for (int64_t k = 0; k < n; ++k) bools[k] = t.ints[k] != 0;
    src = bools.data();
  }
  const Driver& d = Driver::get();
  d.check(d.api().memcpy_htod(reinterpret_cast<CUdeviceptr>(p), src, bytes), "cuMemcpyHtoD");
}

void CudaBackend::allocate(int buffer, DType dtype, int64_t numel) {
  size_t bytes = static_cast<size_t>(numel) * elem_size(elem_type(dtype));
  void* p = mem_->alloc(bytes);
  set_output(buffer, dtype, numel, p);
  // Zeroed as the CPU backend's storage, so no plan can observe uninitialized memory.
  const Driver& d = Driver::get();
  if (bytes > 0) {
    d.check(d.api().memset_d8(reinterpret_cast<CUdeviceptr>(p), 0, bytes), "cuMemsetD8");
  }
}

void CudaBackend::release(int buffer) {
  auto it = buffers_.find(buffer);
  if (it == buffers_.end()) return;
  mem_->free(it->second.ptr);
  buffers_.erase(it);
}

void CudaBackend::launch(const lower::Plan&, const lower::Kernel& k, const SymbolEnv& sigma) {
  KernelCode code = generate_kernel(k);
  ConcreteKernel ck = evaluate_kernel(k, code, sigma);
  auto buffer = [&](const lower::Access& a) -> const DeviceBuffer& {
    auto it = buffers_.find(a.buffer);
    SF_CHECK(it != buffers_.end()) << k.name << " uses buffer " << a.buffer << " before it exists";
    SF_CHECK(it->second.dtype == a.dtype) << k.name << ": access dtype differs from its buffer's";
    return it->second;
  };
  std::vector<DeviceBuffer> ins;
  for (const lower::Access& a : k.inputs) ins.push_back(buffer(a));
  launcher_->launch(k, code, ck, ins, buffer(k.output), error_record_);
  unchecked_launches_ = true;
}

void CudaBackend::densify(const ResolvedLayout& l, Dense& out) {
  auto it = buffers_.find(l.buffer);
  SF_CHECK(it != buffers_.end()) << "layout of missing buffer " << l.buffer;
  const DeviceBuffer& src = it->second;
  SF_CHECK(src.dtype == l.dtype) << "layout dtype differs from its buffer's";
  out.dtype = l.dtype;
  out.sizes = l.sizes;
  out.numel = l.numel();
  size_t elem = elem_size(elem_type(l.dtype));
  if (out.numel == 0) return;
  if (is_contiguous(l)) {
    out.ptr = static_cast<const char*>(src.ptr) + l.offset * static_cast<int64_t>(elem);
    SF_CHECK(l.offset >= 0 && l.offset + out.numel <= src.numel) << "layout outside its buffer";
    return;
  }
  out.owned = mem_->alloc(out.numel * elem);
  out.ptr = out.owned;
  lower::Kernel k = copy_kernel(l);
  KernelCode code = generate_kernel(k);
  ConcreteKernel ck;
  ck.sizes = l.sizes;
  ck.inputs = {ConcreteAccess{l.offset, l.strides}};
  ck.output = ConcreteAccess{0, contiguous_strides(l.sizes)};
  launcher_->launch(k, code, ck, {src}, DeviceBuffer{out.owned, l.dtype, out.numel}, error_record_);
  unchecked_launches_ = true;
}

program::HostTensor CudaBackend::download(const ResolvedLayout& l) {
  if (unchecked_launches_) check_device_error();
  program::HostTensor t = program::HostTensor::zeros(l.dtype, l.sizes);
  Dense d(*mem_);
  densify(l, d);
  if (d.numel == 0) return t;
  const Driver& drv = Driver::get();
  size_t bytes = static_cast<size_t>(d.numel) * elem_size(elem_type(l.dtype));
  auto copy = [&](void* dst) {
    drv.check(drv.api().memcpy_dtoh(dst, reinterpret_cast<CUdeviceptr>(d.ptr), bytes),
              "cuMemcpyDtoH");
  };
  if (l.dtype == DType::kFloat32) {
    copy(t.floats.data());
  } else if (l.dtype == DType::kInt64) {
    copy(t.ints.data());
  } else {
    std::vector<uint8_t> bools(d.numel);
    copy(bools.data());
    for (int64_t k = 0; k < d.numel; ++k) t.ints[k] = bools[k];
  }
  return t;
}

void CudaBackend::check_device_error() {
  ErrorRecord rec;
  const Driver& d = Driver::get();
  d.check(d.api().memcpy_dtoh(&rec, reinterpret_cast<CUdeviceptr>(error_record_), sizeof rec),
          "cuMemcpyDtoH(error record)");
  unchecked_launches_ = false;
  launcher_->raise(rec);
}

}  // namespace cuda

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<cuda::CudaBackend>(); }

}  // namespace sf::backend
