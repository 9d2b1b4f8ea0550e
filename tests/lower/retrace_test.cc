// Guard-based plan reuse: inputs that satisfy a plan's guards reuse it; inputs that violate them
// (a different static size, a 0/1 size after specialization) are retraced, never run stale.
#include <gtest/gtest.h>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/compile/compiled_program.h"
#include "engine/program/input_data.h"
#include "engine/program/parser.h"

namespace sf {
namespace {

program::HostValue f32(std::vector<int64_t> sizes) {
  program::HostTensor t = program::HostTensor::zeros(program::DType::kFloat32, sizes);
  for (int64_t k = 0; k < t.numel(); ++k) t.floats[k] = static_cast<float>(k % 7) - 3.0f;
  return program::HostValue::of_tensor(t);
}

TEST(Retrace, DynamicDimReusesThePlanAndStaticDimRetraces) {
  program::Program p = program::parse_program(
      "# sfz 1\n"
      "input x: f32[8, 4] dynamic(0) = randn(seed=1)\n"
      "y = relu(x)\n"
      "return sum(y, [1])\n");
  auto cpu = backend::make_cpu_backend();
  compile::CompiledProgram c(p, *cpu);
  backend::RunResult a = c.run({{"x", f32({8, 4})}});
  EXPECT_EQ(c.compiles(), 1);
  backend::RunResult b = c.run({{"x", f32({5, 4})}});  // dynamic dim: same plan
  EXPECT_EQ(c.compiles(), 1);
  EXPECT_EQ(b.outputs.at(0).tensor.sizes, std::vector<int64_t>({5}));
  backend::RunResult d = c.run({{"x", f32({5, 3})}});  // static dim changed: retrace
  EXPECT_EQ(c.compiles(), 2);
  EXPECT_EQ(d.outputs.at(0).tensor.sizes, std::vector<int64_t>({5}));
  backend::RunResult e = c.run({{"x", f32({1, 4})}});  // size 1 violates s >= 2: retrace
  EXPECT_EQ(c.compiles(), 3);
  EXPECT_EQ(e.outputs.at(0).tensor.sizes, std::vector<int64_t>({1}));
}

// A plan whose first run raises (here a runtime assert on the data) is still cached: inputs that
// satisfy its guards reuse it rather than tracing the program again.
TEST(Retrace, APlanWhoseFirstRunFailsIsReused) {
  program::Program p = program::parse_program(
      "# sfz 1\n"
      "input t: i64[1] = [3]\n"
      "k = item(t)\n"
      "check(k >= 0, \"k is not negative\")\n"
      "return k\n");
  auto cpu = backend::make_cpu_backend();
  compile::CompiledProgram c(p, *cpu);
  program::HostTensor t = program::HostTensor::zeros(program::DType::kInt64, {1});
  t.ints[0] = -1;
  EXPECT_THROW(c.run({{"t", program::HostValue::of_tensor(t)}}), UserError);
  EXPECT_EQ(c.compiles(), 1);
  t.ints[0] = 2;
  backend::RunResult r = c.run({{"t", program::HostValue::of_tensor(t)}});
  EXPECT_EQ(c.compiles(), 1);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].i, 2);
}

}  // namespace
}  // namespace sf
