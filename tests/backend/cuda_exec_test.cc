// Every program (corpus + tests/backend/programs) run on the CUDA backend against the CPU
// reference on the same plan: same outputs (exact for ints, bools and shapes; a tolerance for
// floats), same σ, same user error kind. Skips with the reason when CUDA is unavailable.
#include <gtest/gtest.h>

#include "engine/backend/cuda/cuda_backend.h"
#include "engine/base/errors.h"
#include "engine/program/input_data.h"
#include "oracles/differential.h"
#include "tests/backend/test_util.h"

namespace sf::backend {
namespace {

std::unique_ptr<Backend> cuda_or_skip_reason(std::string* why) {
  std::unique_ptr<Backend> b = make_cuda_backend();
  return b->available(why) ? std::move(b) : nullptr;
}

TEST(CudaExecTest, AvailabilityIsReportedWithAReason) {
  std::string why;
  std::unique_ptr<Backend> b = make_cuda_backend();
  EXPECT_EQ(b->name(), "cuda");
  if (!b->available(&why)) {
    EXPECT_FALSE(why.empty());
    GTEST_SKIP() << "CUDA unavailable: " << why;
  }
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
    auto inputs = program::make_input_values(c->program);
    try {
      RunResult got = cuda->run(*r.plan, *r.trace->env, inputs);
      ASSERT_TRUE(r.run.has_value()) << "CPU raised (" << r.run_error_kind << ": " << r.run_error
                                     << ") but CUDA returned normally";
      EXPECT_EQ(got.bindings, r.run->bindings);
      if (auto diff = oracles::compare_values(r.run->outputs, got.outputs)) ADD_FAILURE() << *diff;
    } catch (const UserError& e) {
      EXPECT_FALSE(r.run.has_value()) << "CUDA raised " << e.what() << " but the CPU did not";
      EXPECT_EQ(user_error_kind_name(e.kind()), r.run_error_kind) << e.what();
      EXPECT_EQ(e.what(), r.run_error);
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
  auto inputs = program::make_input_values(c->program);
  RunResult a = cuda->run(*c->result.plan, *c->result.trace->env, inputs);
  RunResult b = cuda->run(*c->result.plan, *c->result.trace->env, inputs);
  EXPECT_EQ(oracles::compare_values(a.outputs, b.outputs, {0.0, 0.0}), std::nullopt);
}

}  // namespace
}  // namespace sf::backend
