// Without a GPU: every program's generated kernels run on the host (HostKernels) with the CUDA
// backend's parameter blocks and error decoding, through both entry points, and must match the
// CPU backend bit for bit: outputs, σ, and the user error raised (kind and message).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>

#include "engine/backend/cuda/codegen.h"
#include "engine/base/errors.h"
#include "engine/sym/make.h"
#include "oracles/differential.h"
#include "tests/backend/emulated_backend.h"
#include "tests/backend/test_util.h"

namespace sf::backend::testing {
namespace {

void expect_same_as_cpu(Backend& b, const Compiled& c, const std::string& file) {
  const oracles::PipelineResult& r = c.result;
  const auto& inputs = c.result.inputs;
  try {
    RunResult got = b.run(*r.plan, *r.trace->env, inputs);
    ASSERT_TRUE(r.run.has_value()) << file << ": CPU raised (" << r.run_error->str() << ") but "
                                   << b.name() << " returned normally";
    EXPECT_EQ(got.bindings, r.run->bindings) << file;
    // Exact: the same float operations in the same order, accumulations included.
    if (auto diff = oracles::compare_values(r.run->outputs, got.outputs, {0.0, 0.0})) {
      ADD_FAILURE() << file << ": " << *diff;
    }
  } catch (const UserError& e) {
    ASSERT_FALSE(r.run.has_value()) << file << ": " << b.name() << " raised " << e.what();
    ASSERT_TRUE(r.run_error.has_value()) << file;
    EXPECT_EQ(e.what(), r.run_error->message) << file;
  }
}

TEST(KernelEmulationTest, GeneratedKernelsMatchTheCpuBackendOnEveryProgram) {
  std::vector<std::unique_ptr<Compiled>> programs;
  HostKernels kernels;
  std::vector<std::string> files = program_files();
  for (const std::string& f : files) {
    programs.push_back(compile_file(f));
    // The hand-written backend programs exist to be run: each must compile to a plan.
    if (f.find("tests/backend/programs/") != std::string::npos) {
      EXPECT_TRUE(programs.back()->result.plan) << f << " has no plan";
    }
    if (!programs.back()->result.plan) continue;
    // The kernels of the nested plans of cond / while_loop steps too.
    std::function<void(const lower::Plan&)> add_all = [&](const lower::Plan& plan) {
      for (const lower::Kernel& k : plan.kernels) kernels.add(cuda::kernel_source(k));
      for (const lower::Plan& sub : plan.subplans) add_all(sub);
    };
    add_all(*programs.back()->result.plan);
  }
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string log;
  ASSERT_TRUE(kernels.build(tmp ? tmp : "/tmp", &log)) << "host build failed:\n"
                                                       << log.substr(0, 20000);
  std::printf("%zu distinct kernels built for the host\n", kernels.size());
  EmulatedCudaBackend natural(kernels, false), wide(kernels, true);
  int compared = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    if (!programs[i]->result.plan) continue;
    ++compared;
    expect_same_as_cpu(natural, *programs[i], files[i]);
    expect_same_as_cpu(wide, *programs[i], files[i]);
  }
  EXPECT_GE(compared, 10);
  EXPECT_GT(natural.narrow_launches(), 0);
  EXPECT_EQ(wide.narrow_launches(), 0);
  // Reductions with few outputs ran split (tests/backend/programs/split_reductions.sfz).
  EXPECT_GT(natural.split_launches(), 0);
  // Pointwise kernels over long rows ran by rows (tests/backend/programs/rows_pointwise.sfz).
  EXPECT_GT(natural.row_launches(), 0);
  // Trees: one launch per output segment, partials and their merge, both thread orders
  // (tests/backend/programs/split_reductions.sfz, tree_reductions.sfz).
  EXPECT_GT(natural.tree_launches(cuda::ReducePhase::kDirect), 0);
  EXPECT_GT(natural.tree_launches(cuda::ReducePhase::kPartials), 0);
  EXPECT_GT(natural.tree_launches(cuda::ReducePhase::kMergeStore), 0);
  // Transposed reads ran through shared-memory tiles (tests/backend/programs/tiled.sfz).
  EXPECT_GT(natural.tiled_launches(), 0);
}

// Parameters past the 4 KiB limit go through (here host) memory; both entry points read them.
TEST(KernelEmulationTest, ParametersPastTheLimitAreReadFromMemory) {
  constexpr int kScalars = 520;
  constexpr int64_t kSize = 1000;
  lower::Kernel k = many_scalars_kernel(kScalars, kSize);
  cuda::KernelCode code = cuda::generate_kernel(k);
  ASSERT_TRUE(code.values_in_memory);
  HostKernels kernels;
  kernels.add(code.source);
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/many_scalars";
  std::filesystem::create_directories(dir);
  std::string log;
  ASSERT_TRUE(kernels.build(dir, &log)) << "host build failed:\n" << log.substr(0, 20000);
  ShapeEnv env;
  cuda::ConcreteKernel ck = cuda::evaluate_kernel(k, code, SymbolEnv(env));
  std::vector<int64_t> in(kSize), out(kSize);
  for (int64_t i = 0; i < kSize; ++i) in[i] = i;
  std::vector<cuda::DeviceBuffer> ins{{in.data(), DType::kInt64, kSize}};
  cuda::DeviceBuffer dst{out.data(), DType::kInt64, kSize};
  cuda::ErrorRecord record;
  cuda::LaunchGeometry g = cuda::launch_geometry(k, code, ck, ins, dst, /*sm_count=*/2);
  std::vector<int64_t> values = cuda::param_values(k, code, ck, g, ins, dst, 0);
  std::vector<uint64_t> block = cuda::param_block(code, ins, dst, &record, values, values.data());
  EXPECT_EQ(block.size() * 8, static_cast<size_t>(code.args_bytes()));
  for (int wide : {0, 1}) {
    std::fill(out.begin(), out.end(), 0);
    kernels.fn(code.source)(block.data(), static_cast<unsigned>(g.blocks), wide);
    EXPECT_EQ(record.code, 0);
    for (int64_t i = 0; i < kSize; ++i) {
      ASSERT_EQ(out[i], i + int64_t{kScalars} * (kScalars + 1) / 2)
          << "wide " << wide << " at " << i;
    }
  }
}

// out[i, j] = x[j, i] for a contiguous x of [cols, rows]: the tiled path. Without its barriers a
// thread would read tile slots other threads have not written yet, so the same kernel with them
// removed must give a wrong result under the fiber emulation (it honours __syncthreads); with a
// thread that leaves before a barrier the others reach, the emulation aborts (divergence).
TEST(KernelEmulationTest, TransposedReadsGoThroughTheTileAndItsBarriersHold) {
  constexpr int64_t kRows = 45, kCols = 70;
  lower::Kernel k;
  k.name = "k0_transpose";
  k.sizes = {sym::integer(kRows), sym::integer(kCols)};
  lower::Access in;
  in.buffer = 0;
  in.dtype = DType::kFloat32;
  in.offset = sym::integer(0);
  in.strides = {sym::integer(1), sym::integer(kRows)};
  k.inputs = {in};
  k.body = lower::KExpr::load(0, DType::kFloat32);
  k.output = in;
  k.output.buffer = 1;
  k.output.strides = {sym::integer(kCols), sym::integer(1)};
  cuda::KernelCode code = cuda::generate_kernel(k);
  ASSERT_EQ(code.tile_dim, 0);
  std::string no_barriers = code.source;
  for (size_t p; (p = no_barriers.find("__syncthreads();")) != std::string::npos;) {
    no_barriers.replace(p, 16, ";");
  }
  // One thread leaves before the first barrier the others wait at: divergence, which the
  // emulation must refuse rather than run.
  std::string diverging = code.source;
  const std::string entry = "void sf_body(const SfArgs& a) {\n";
  ASSERT_NE(diverging.find(entry), std::string::npos);
  diverging.insert(diverging.find(entry) + entry.size(), "  if (threadIdx.x == 5) return;\n");
  HostKernels kernels;
  kernels.add(code.source);
  kernels.add(no_barriers);
  kernels.add(diverging);
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/tiled";
  std::filesystem::create_directories(dir);
  std::string log;
  ASSERT_TRUE(kernels.build(dir, &log)) << "host build failed:\n" << log.substr(0, 20000);
  ShapeEnv env;
  cuda::ConcreteKernel ck = cuda::evaluate_kernel(k, code, SymbolEnv(env));
  std::vector<float> x(kRows * kCols), out(kRows * kCols);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  std::vector<cuda::DeviceBuffer> ins{{x.data(), DType::kFloat32, kRows * kCols}};
  cuda::DeviceBuffer dst{out.data(), DType::kFloat32, kRows * kCols};
  cuda::ErrorRecord record;
  cuda::LaunchGeometry g = cuda::launch_geometry(k, code, ck, ins, dst, /*sm_count=*/2);
  ASSERT_EQ(g.steps.size(), 1u);
  ASSERT_TRUE(g.steps[0].tiled);
  std::vector<int64_t> values = cuda::param_values(k, code, ck, g, ins, dst, 0, &g.steps[0]);
  std::vector<uint64_t> block = cuda::param_block(code, ins, dst, &record, values);
  auto wrong = [&](const std::string& source, int wide) {
    std::fill(out.begin(), out.end(), -1.0f);
    kernels.fn(source)(block.data(), static_cast<unsigned>(g.steps[0].blocks), wide);
    int64_t bad = 0;
    for (int64_t i = 0; i < kRows; ++i) {
      for (int64_t j = 0; j < kCols; ++j) bad += out[i * kCols + j] != x[j * kRows + i];
    }
    return bad;
  };
  for (int wide : {0, 1}) {
    EXPECT_EQ(wrong(code.source, wide), 0) << "wide " << wide;
    EXPECT_EQ(record.code, 0);
    EXPECT_GT(wrong(no_barriers, wide), 0) << "wide " << wide;
  }
  EXPECT_DEATH(wrong(diverging, 0), "barrier divergence in block 0: 1 threads ended");
}

}  // namespace
}  // namespace sf::backend::testing
