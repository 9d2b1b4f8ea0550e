// Every program (corpus + tests/backend/programs) run on the CUDA backend against the CPU
// reference on the same plan: same outputs (exact for ints, bools and shapes; a tolerance for
// floats), same σ, same user error kind. Skips with the reason when CUDA is unavailable.
#include <gtest/gtest.h>

#include "engine/backend/cuda/cuda_backend.h"
#include "engine/backend/cuda/device_memory.h"
#include "engine/backend/cuda/driver.h"
#include "engine/backend/cuda/kernel_launcher.h"
#include "engine/base/errors.h"
#include "oracles/differential.h"
#include "tests/backend/test_util.h"

namespace sf::backend {
namespace {

std::unique_ptr<Backend> cuda_or_skip_reason(std::string* why) {
  std::unique_ptr<Backend> b = make_cuda_backend();
  return b->available(why) ? std::move(b) : nullptr;
}

// Unavailable: a reason, and run() refuses with it. Available: no reason, and run() works.
TEST(CudaExecTest, AvailabilityIsReportedWithAReason) {
  std::string why;
  std::unique_ptr<Backend> b = make_cuda_backend();
  EXPECT_EQ(b->name(), "cuda");
  std::unique_ptr<testing::Compiled> c =
      testing::compile_file("tests/backend/programs/reductions.sfz");
  ASSERT_TRUE(c->result.plan && c->result.run);
  const auto& inputs = c->result.inputs;
  if (!b->available(&why)) {
    EXPECT_FALSE(why.empty());
    try {
      b->run(*c->result.plan, *c->result.trace->env, inputs);
      ADD_FAILURE() << "an unavailable backend ran a plan";
    } catch (const Unavailable& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
    GTEST_SKIP() << "CUDA unavailable: " << why;
  }
  EXPECT_TRUE(why.empty()) << why;
  RunResult got = b->run(*c->result.plan, *c->result.trace->env, inputs);
  EXPECT_EQ(got.bindings, c->result.run->bindings);
  EXPECT_EQ(oracles::compare_values(c->result.run->outputs, got.outputs), std::nullopt);
}

TEST(CudaExecTest, EveryProgramMatchesTheCpuBackend) {
  std::string why;
  std::unique_ptr<Backend> cuda = cuda_or_skip_reason(&why);
  if (!cuda) GTEST_SKIP() << "CUDA unavailable: " << why;
  int compared = 0;
  for (const std::string& f : testing::program_files()) {
    SCOPED_TRACE(f);
    std::unique_ptr<testing::Compiled> c = testing::compile_file(f);
    const oracles::PipelineResult& r = c->result;
    if (!r.plan) continue;
    ++compared;
    const auto& inputs = c->result.inputs;
    try {
      RunResult got = cuda->run(*r.plan, *r.trace->env, inputs);
      ASSERT_TRUE(r.run.has_value())
          << "CPU raised (" << r.run_error->str() << ") but CUDA returned normally";
      EXPECT_EQ(got.bindings, r.run->bindings);
      if (auto diff = oracles::compare_values(r.run->outputs, got.outputs)) ADD_FAILURE() << *diff;
    } catch (const UserError& e) {
      EXPECT_FALSE(r.run.has_value()) << "CUDA raised " << e.what() << " but the CPU did not";
      ASSERT_TRUE(r.run_error.has_value()) << e.what();
      EXPECT_EQ(e.kind(), r.run_error->kind) << e.what();
      EXPECT_EQ(e.what(), r.run_error->message);
    }
  }
  EXPECT_GE(compared, 10);
}

// Running twice on one backend reuses the compiled modules and gives the same results.
TEST(CudaExecTest, RepeatedRunsAreIdentical) {
  std::string why;
  std::unique_ptr<Backend> cuda = cuda_or_skip_reason(&why);
  if (!cuda) GTEST_SKIP() << "CUDA unavailable: " << why;
  std::unique_ptr<testing::Compiled> c =
      testing::compile_file("tests/backend/programs/reductions.sfz");
  ASSERT_TRUE(c->result.plan);
  const auto& inputs = c->result.inputs;
  RunResult a = cuda->run(*c->result.plan, *c->result.trace->env, inputs);
  RunResult b = cuda->run(*c->result.plan, *c->result.trace->env, inputs);
  EXPECT_EQ(oracles::compare_values(a.outputs, b.outputs, {0.0, 0.0}), std::nullopt);
}

// A kernel whose parameters pass the 4 KiB limit runs with its values in device memory.
TEST(CudaExecTest, KernelParametersPastTheLimitGoThroughDeviceMemory) {
  std::string why;
  if (!cuda_or_skip_reason(&why)) GTEST_SKIP() << "CUDA unavailable: " << why;
  constexpr int kScalars = 520;
  constexpr int64_t kSize = 100000;
  const cuda::Driver& d = cuda::Driver::get();
  d.make_current();
  cuda::DeviceMemory mem(d);
  cuda::KernelLauncher launcher(d, cuda::NvrtcCache::shared(), mem);
  lower::Kernel k = testing::many_scalars_kernel(kScalars, kSize);
  cuda::KernelCode code = cuda::generate_kernel(k);
  ASSERT_TRUE(code.values_in_memory);
  ShapeEnv env;
  cuda::ConcreteKernel ck = cuda::evaluate_kernel(k, code, SymbolEnv(env));
  std::vector<int64_t> host(kSize);
  for (int64_t i = 0; i < kSize; ++i) host[i] = i;
  size_t bytes = kSize * sizeof(int64_t);
  cuda::DeviceBuffer in{mem.alloc(bytes), DType::kInt64, kSize};
  cuda::DeviceBuffer out{mem.alloc(bytes), DType::kInt64, kSize};
  void* err = mem.alloc(sizeof(cuda::ErrorRecord));
  d.check(d.api().memcpy_htod(reinterpret_cast<CUdeviceptr>(in.ptr), host.data(), bytes), "upload");
  d.check(d.api().memset_d8(reinterpret_cast<CUdeviceptr>(err), 0, sizeof(cuda::ErrorRecord)),
          "memset");
  launcher.launch(k, code, ck, {in}, out, err);
  cuda::ErrorRecord rec;
  d.check(d.api().memcpy_dtoh(&rec, reinterpret_cast<CUdeviceptr>(err), sizeof rec), "record");
  EXPECT_EQ(rec.code, 0);
  d.check(d.api().memcpy_dtoh(host.data(), reinterpret_cast<CUdeviceptr>(out.ptr), bytes),
          "download");
  for (int64_t i = 0; i < kSize; ++i) {
    ASSERT_EQ(host[i], i + int64_t{kScalars} * (kScalars + 1) / 2) << "at " << i;
  }
  mem.free(in.ptr);
  mem.free(out.ptr);
  mem.free(err);
}

}  // namespace
}  // namespace sf::backend
