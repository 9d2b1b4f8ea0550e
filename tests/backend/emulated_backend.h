// The CUDA backend's kernel path on the host: device-format storage (bool as bytes), generated
// kernels run through HostKernels with the backend's own parameter blocks, launch geometry and
// error decoding. Externs run eagerly (CUB needs a device). For tests without a GPU.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "engine/backend/cuda/launch_params.h"
#include "engine/backend/runner.h"
#include "tests/backend/host_kernels.h"

namespace sf::backend::testing {

class EmulatedCudaBackend : public PlanRunner {
 public:
  // `force_wide`: always the 64-bit entry point (else the 32-bit one whenever it is safe).
  EmulatedCudaBackend(const HostKernels& kernels, bool force_wide)
      : kernels_(kernels), force_wide_(force_wide) {}
  std::string name() const override { return "cuda-emulated"; }
  bool available(std::string*) const override { return true; }
  int64_t narrow_launches() const { return narrow_launches_; }
  // Launches of split reductions (ReducePhase other than kDirect).
  int64_t split_launches() const { return split_launches_; }
  // Pointwise launches whose blocks take whole rows (LaunchStep::by_rows).
  int64_t row_launches() const { return row_launches_; }
  // Reduction launches whose threads merge through a tree, by ReducePhase (LaunchStep::segment).
  int64_t tree_launches(cuda::ReducePhase p) const { return tree_launches_[static_cast<int>(p)]; }
  // Pointwise launches through shared-memory tiles (LaunchStep::tiled).
  int64_t tiled_launches() const { return tiled_launches_; }

 protected:
  void begin_run() override;
  // Nested plans (cond / while_loop) on a second emulated backend over the same host kernels.
  std::unique_ptr<PlanRunner> nested_runner() const override {
    return std::make_unique<EmulatedCudaBackend>(kernels_, force_wide_);
  }
  void upload_input(int buffer, const program::HostTensor& t) override;
  void allocate(int buffer, DType dtype, int64_t numel) override;
  void release(int buffer) override { storage_.erase(buffer); }
  void launch(const lower::Plan& plan, const lower::Kernel& k, const SymbolEnv& sigma) override;
  ExternOutputs run_extern(const lower::Plan& plan, const lower::Extern& e,
                           const std::vector<ResolvedLayout>& inputs,
                           const SymbolEnv& sigma) override;
  program::HostTensor download(const ResolvedLayout& layout) override;

 private:
  struct Bytes {
    DType dtype = DType::kFloat32;
    int64_t numel = 0;
    std::vector<unsigned char> data;
  };
  void store(int buffer, const program::HostTensor& t);

  const HostKernels& kernels_;
  bool force_wide_;
  std::map<int, Bytes> storage_;
  cuda::ErrorRecord record_;
  std::vector<cuda::LaunchInfo> launches_;
  int64_t narrow_launches_ = 0;
  int64_t split_launches_ = 0;
  int64_t row_launches_ = 0;
  int64_t tiled_launches_ = 0;
  int64_t tree_launches_[3] = {0, 0, 0};
};

}  // namespace sf::backend::testing
