// engine/backend/cuda/launch_params.h: the launches a kernel gets on a 132-SM device (an H200's
// count): reductions split into tree segments, partials and a merge; pointwise kernels by rows,
// by shared-memory tiles for transposed reads, or one grid-stride loop; 32-bit indices only when
// the last loop step cannot pass 2^31.
#include <gtest/gtest.h>

#include "engine/backend/cuda/launch_params.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/make.h"

namespace sf::backend::cuda {
namespace {

using lower::Access;
using lower::Kernel;
using lower::KExpr;
using program::DType;

constexpr int kSms = 132;

Access contiguous(int buffer, const std::vector<int64_t>& sizes,
                  std::vector<int64_t> strides = {}) {
  Access a;
  a.buffer = buffer;
  a.dtype = DType::kFloat32;
  a.offset = sym::integer(0);
  if (strides.empty()) {
    strides.assign(sizes.size(), 1);
    for (size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * sizes[d];
  }
  for (int64_t s : strides) a.strides.push_back(sym::integer(s));
  return a;
}

Kernel copy_kernel(const std::vector<int64_t>& sizes, const std::vector<int64_t>& in_strides) {
  Kernel k;
  k.name = "copy";
  for (int64_t s : sizes) k.sizes.push_back(sym::integer(s));
  k.inputs = {contiguous(0, sizes, in_strides)};
  k.body = KExpr::load(0, DType::kFloat32);
  k.output = contiguous(1, sizes);
  return k;
}

Kernel sum_kernel(const std::vector<int64_t>& sizes, const std::vector<bool>& reduced) {
  Kernel k = copy_kernel(sizes, {});
  k.kind = Kernel::Kind::kReduction;
  k.reduced = reduced;
  std::vector<int64_t> kept;
  for (size_t d = 0; d < sizes.size(); ++d) kept.push_back(reduced[d] ? 1 : sizes[d]);
  k.output = contiguous(1, kept);
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (reduced[d]) k.output.strides[d] = sym::integer(0);
  }
  return k;
}

LaunchGeometry geometry(const Kernel& k) {
  KernelCode code = generate_kernel(k);
  ShapeEnv env;
  ConcreteKernel ck = evaluate_kernel(k, code, SymbolEnv(env));
  int64_t n = 1, out = 1;
  for (size_t d = 0; d < ck.sizes.size(); ++d) {
    n *= ck.sizes[d];
    if (k.kind == Kernel::Kind::kPointwise || !k.reduced[d]) out *= ck.sizes[d];
  }
  std::vector<DeviceBuffer> ins = {{nullptr, DType::kFloat32, n}};
  return launch_geometry(k, code, ck, ins, DeviceBuffer{nullptr, DType::kFloat32, out}, kSms);
}

TEST(LaunchGeometryTest, AFullSumIsTreePartialsThenOneTreeMerge) {
  LaunchGeometry g = geometry(sum_kernel({int64_t{1} << 26}, {true}));
  ASSERT_EQ(g.steps.size(), 2u);
  const LaunchStep& p = g.steps[0];
  EXPECT_EQ(p.phase, ReducePhase::kPartials);
  EXPECT_EQ(p.segment, kBlockThreads);
  EXPECT_EQ(p.groups, kSms * 2048);  // one thread per resident slot, a whole number of blocks
  const LaunchStep& m = g.steps[1];
  EXPECT_EQ(m.phase, ReducePhase::kMergeStore);
  EXPECT_EQ(m.in_groups, p.groups / p.segment);
  EXPECT_EQ(m.segment, kBlockThreads);
  EXPECT_EQ(m.groups, m.segment);
  EXPECT_EQ(g.partials, p.groups / p.segment);
  EXPECT_TRUE(g.narrow);
}

TEST(LaunchGeometryTest, RowSumsAreOneLaunchWithASegmentPerOutput) {
  LaunchGeometry g = geometry(sum_kernel({8192, 8192}, {false, true}));
  ASSERT_EQ(g.steps.size(), 1u);
  EXPECT_EQ(g.steps[0].phase, ReducePhase::kDirect);
  EXPECT_FALSE(g.steps[0].out_fastest);
  EXPECT_EQ(g.steps[0].segment,
            32);  // 33 threads per output would fill the device: 32, a power of 2
  EXPECT_EQ(g.steps[0].groups, 32);
  EXPECT_EQ(g.partials, 0);
}

TEST(LaunchGeometryTest, ColumnSumsTakeBlocksOf32OutputsBy8) {
  LaunchGeometry g = geometry(sum_kernel({8192, 8192}, {true, false}));
  ASSERT_EQ(g.steps.size(), 2u);
  EXPECT_EQ(g.steps[0].phase, ReducePhase::kPartials);
  EXPECT_TRUE(g.steps[0].out_fastest);
  EXPECT_EQ(g.steps[0].segment, 8);
  EXPECT_EQ(g.steps[0].groups, 40);  // 33 rounded up to whole segments
  EXPECT_EQ(g.steps[1].phase, ReducePhase::kMergeStore);
  EXPECT_EQ(g.steps[1].in_groups, 5);
  EXPECT_EQ(g.steps[1].segment, 1);  // five partials: one thread merges them
  EXPECT_EQ(g.partials, 8192 * 5);
}

TEST(LaunchGeometryTest, ManyOutputsAreOneThreadEach) {
  LaunchGeometry g = geometry(sum_kernel({1 << 20, 8}, {false, true}));
  ASSERT_EQ(g.steps.size(), 1u);
  EXPECT_EQ(g.steps[0].phase, ReducePhase::kDirect);
  EXPECT_EQ(g.steps[0].segment, 1);
  EXPECT_EQ(g.steps[0].groups, 1);
}

TEST(LaunchGeometryTest, TransposedReadsAreTiledWhenBothDimsHoldATile) {
  LaunchGeometry big = geometry(copy_kernel({8192, 8192}, {1, 8192}));
  ASSERT_EQ(big.steps.size(), 1u);
  EXPECT_TRUE(big.steps[0].tiled);
  EXPECT_EQ(big.steps[0].blocks, kSms * 32);  // 8192/32 x 8192/64 tiles, capped
  // 20 along the tile dim: not a whole tile; rows of 100 are short, so one grid-stride loop.
  LaunchGeometry narrow = geometry(copy_kernel({20, 100}, {1, 20}));
  EXPECT_FALSE(narrow.steps[0].tiled);
  EXPECT_FALSE(narrow.steps[0].by_rows);
  // A contiguous copy has no tiled path at all; long rows go by rows.
  LaunchGeometry rows = geometry(copy_kernel({64, 4096}, {}));
  EXPECT_FALSE(rows.steps[0].tiled);
  EXPECT_TRUE(rows.steps[0].by_rows);
}

TEST(LaunchGeometryTest, ThirtyTwoBitIndicesOnlyWhenTheLastStepFits) {
  // 2^31 - 2^20 points: every index fits, but four grid strides past the end do not.
  LaunchGeometry g = geometry(copy_kernel({(int64_t{1} << 31) - (1 << 20)}, {}));
  EXPECT_FALSE(g.narrow);
  EXPECT_TRUE(geometry(copy_kernel({int64_t{1} << 30}, {})).narrow);
}

}  // namespace
}  // namespace sf::backend::cuda
