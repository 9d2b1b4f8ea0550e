// Without a GPU: the generated kernels of every program run on the host (HostKernels) with the
// CUDA backend's parameter blocks and error decoding, and must agree bit for bit with the CPU
// backend on the same plan: outputs, σ, and the user error raised (kind and message). Both the
// 32-bit and the 64-bit entry points are exercised.
#include <gtest/gtest.h>

#include <cstdlib>

#include "engine/backend/cuda/codegen.h"
#include "engine/base/errors.h"
#include "engine/program/input_data.h"
#include "oracles/differential.h"
#include "tests/backend/emulated_backend.h"
#include "tests/backend/test_util.h"

namespace sf::backend::testing {
namespace {

void expect_same_as_cpu(Backend& b, const Compiled& c, const std::string& file) {
  const oracles::PipelineResult& r = c.result;
  auto inputs = program::make_input_values(c.program);
  try {
    RunResult got = b.run(*r.plan, *r.trace->env, inputs);
    ASSERT_TRUE(r.run.has_value())
        << file << ": CPU raised (" << r.run_error << ") but " << b.name() << " returned normally";
    EXPECT_EQ(got.bindings, r.run->bindings) << file;
    // Exact: the same float operations in the same order, accumulations included.
    if (auto diff = oracles::compare_values(r.run->outputs, got.outputs, {0.0, 0.0})) {
      ADD_FAILURE() << file << ": " << *diff;
    }
  } catch (const UserError& e) {
    EXPECT_FALSE(r.run.has_value()) << file << ": " << b.name() << " raised " << e.what();
    EXPECT_EQ(e.what(), r.run_error) << file;
  }
}

TEST(KernelEmulationTest, GeneratedKernelsMatchTheCpuBackendOnEveryProgram) {
  std::vector<std::unique_ptr<Compiled>> programs;
  HostKernels kernels;
  std::vector<std::string> files = program_files();
  for (const std::string& f : files) {
    programs.push_back(compile_file(f));
    if (!programs.back()->result.plan) continue;
    for (const lower::Kernel& k : programs.back()->result.plan->kernels) {
      kernels.add(cuda::kernel_source(k));
    }
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
}

}  // namespace
}  // namespace sf::backend::testing
