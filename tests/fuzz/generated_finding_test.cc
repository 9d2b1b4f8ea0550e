// Regression test written by shapefuzz for a finding; it fails while the bug is there.
// Reproduces: fail:tv: an example signature
// Found by: hand-written
// Build with deps on //engine/program, //engine/backend:cpu, //oracles:pipeline and gtest.
#include <gtest/gtest.h>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/parser.h"
#include "oracles/pipeline.h"

namespace {

constexpr const char* kProgram = R"sfz(# sfz 1
# expect: ok
# found-by: hand-written (DESIGN.md section 3.4)
# A boolean mask gives an unbacked row count; item() another unbacked value checked against it.
input x: f32[8, 4] dynamic(0) = randn(seed=7)
input m: bool[8] = [1, 0, 1, 1, 0, 0, 1, 0]
input t: i64[1] = [3]
a = index(x, m)               # nonzero -> f32[u0, 4]
k = item(t)                   # u1
check(k <= size(a, 0), "k fits")
s = slice(a, 0, 0, k)
return sum(s, [1])
)sfz";

TEST(ShapefuzzFinding, FailExample0123abcd) {
  sf::program::Program p = sf::program::parse_program(kProgram);
  auto cpu = sf::backend::make_cpu_backend();
  sf::oracles::PipelineOptions opts;
  opts.backend = cpu.get();
  opts.oracles = sf::oracles::OracleSet::all();
  sf::oracles::Verdict v = sf::oracles::run_pipeline(p, opts).verdict;
  // Fixed: the pipeline accepts it (every oracle agrees) or rejects it as eager does.
  EXPECT_TRUE(v.kind == sf::oracles::Verdict::Kind::kPass ||
              v.kind == sf::oracles::Verdict::Kind::kRejected)
      << v.str();
}

}  // namespace
