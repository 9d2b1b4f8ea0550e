// Internal to the CUDA backend: the PlanRunner subclass shared by cuda_backend.cc (storage,
// launches, downloads, error record) and extern_ops.cc (extern kernels).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/cuda/cuda_externs.h"
#include "engine/backend/cuda/device_memory.h"
#include "engine/backend/cuda/kernel_launcher.h"
#include "engine/backend/runner.h"
#include "engine/base/errors.h"

namespace sf::backend::cuda {

class CudaBackend : public PlanRunner {
 public:
  CudaBackend();
  ~CudaBackend() override;
  std::string name() const override { return "cuda"; }
  bool available(std::string* why) const override;
  // PlanRunner::run, with the device error record checked at the end and whenever the host
  // raises: a kernel's runtime error precedes anything raised by a later step.
  RunResult run(const lower::Plan& plan, const ShapeEnv& env,
                const std::map<std::string, program::HostValue>& inputs) override;

 protected:
  void begin_run() override;
  void end_run() override;
  // Nested plans run on a second backend of their own (its buffers, the same device); values
  // cross through the host (downloaded operands, uploaded outputs).
  std::unique_ptr<PlanRunner> nested_runner() const override {
    return std::make_unique<CudaBackend>();
  }
  void upload_input(int buffer, const program::HostTensor& t) override;
  void allocate(int buffer, DType dtype, int64_t numel) override;
  void release(int buffer) override;
  void launch(const lower::Plan& plan, const lower::Kernel& k, const SymbolEnv& sigma) override;
  ExternOutputs run_extern(const lower::Plan& plan, const lower::Extern& e,
                           const std::vector<ResolvedLayout>& inputs,
                           const SymbolEnv& sigma) override;
  program::HostTensor download(const ResolvedLayout& layout) override;

 private:
  // A contiguous device copy of a layout (its own memory when already contiguous); `owned` is
  // released by the destructor.
  struct Dense {
    Dense(DeviceMemory& m) : mem(m) {}
    ~Dense() { mem.release(owned); }
    Dense(const Dense&) = delete;
    DeviceMemory& mem;
    const void* ptr = nullptr;
    void* owned = nullptr;
    DType dtype = DType::kFloat32;
    std::vector<int64_t> sizes;
    int64_t numel = 0;
  };
  void densify(const ResolvedLayout& l, Dense& out);
  // Reads the error record (one small device->host copy) and raises the first kernel error.
  void check_device_error();
  void set_output(int buffer, DType dtype, int64_t numel, void* ptr);

  ExternOutputs run_on_host(const lower::Extern& e, const std::vector<ResolvedLayout>& in,
                            const SymbolEnv& sigma);
  ExternOutputs run_item(const lower::Extern& e, const ResolvedLayout& l);
  ExternOutputs run_nonzero(const lower::Extern& e, const ResolvedLayout& l);
  ExternOutputs run_index(const lower::Extern& e, const ResolvedLayout& a, const ResolvedLayout& m);
  ExternOutputs run_masked_select(const lower::Extern& e, const ResolvedLayout& a,
                                  const ResolvedLayout& m);
  ExternOutputs run_unique(const lower::Extern& e, const ResolvedLayout& a);
  ExternOutputs run_repeat_interleave(const lower::Extern& e,
                                      const std::vector<ResolvedLayout>& inputs);
  // eager's limit on the size of a tensor an op creates (too_complex past 2^26 elements).
  void check_numel(const lower::Extern& e, const std::vector<int64_t>& shape);
  // Raises an extern's user error, unless an earlier kernel's runtime error comes first.
  [[noreturn]] void user_error(const lower::Extern& e, UserErrorKind kind, const std::string& msg);

  std::unique_ptr<DeviceMemory> mem_;
  std::unique_ptr<KernelLauncher> launcher_;
  std::map<int, DeviceBuffer> buffers_;
  void* error_record_ = nullptr;
  bool unchecked_launches_ = false;  // launches since the error record was last read
};

}  // namespace sf::backend::cuda
