// engine/backend/cuda/codegen.h on small hand-built kernels: what the generated source contains,
// that it is deterministic, and that it depends on the kernel's structure only, never on σ.
#include "engine/backend/cuda/codegen.h"

#include <gtest/gtest.h>

#include "engine/sym/make.h"

namespace sf::backend::cuda {
namespace {

using lower::Access;
using lower::Kernel;
using lower::KExpr;
using program::BinaryOp;
using program::DType;

Access access(int buffer, DType dtype, std::vector<ExprRef> strides) {
  Access a;
  a.buffer = buffer;
  a.dtype = dtype;
  a.offset = sym::integer(0);
  a.strides = std::move(strides);
  return a;
}

// out[i, j] = in0[i, j] + in1[j] over [rows, cols].
Kernel add_kernel(ExprRef rows, ExprRef cols) {
  Kernel k;
  k.name = "k0_add";
  k.sizes = {rows, cols};
  k.inputs = {access(0, DType::kFloat32, {cols, sym::integer(1)}),
              access(1, DType::kFloat32, {sym::integer(0), sym::integer(1)})};
  k.body = KExpr::binary_of(BinaryOp::kAdd, KExpr::load(0, DType::kFloat32),
                            KExpr::load(1, DType::kFloat32), DType::kFloat32);
  k.output = access(2, DType::kFloat32, {cols, sym::integer(1)});
  return k;
}

TEST(CodegenTest, PointwiseKernelHasEntriesGridStrideLoopAndIeeeAdd) {
  ExprRef s0 = sym::symbol(sym::SymKind::kSize, 0);
  KernelCode code = generate_kernel(add_kernel(s0, sym::integer(4)));
  const std::string& src = code.source;
  EXPECT_NE(
      src.find("extern \"C\" __global__ void __launch_bounds__(256) sf_kernel(const SfArgs a)"),
      std::string::npos);
  EXPECT_NE(src.find("sf_kernel_i32"), std::string::npos);
  // Each thread takes kUnroll points per step and loads all of them before any body runs.
  EXPECT_NE(src.find("i0 += 4 * step"), std::string::npos) << src;
  EXPECT_NE(src.find("pre0[u] = __ldg(&a.in0[inb ? off0 : 0]);"), std::string::npos) << src;
  EXPECT_NE(src.find("const float t0 = pre0[u];"), std::string::npos) << src;
  EXPECT_LT(src.find("pre1[u] = __ldg("), src.find("__fadd_rn(t0, t1)"));
  EXPECT_NE(src.find("__fadd_rn(t0, t1)"), std::string::npos) << src;
  EXPECT_NE(src.find("const float* in0;"), std::string::npos);
  EXPECT_EQ(code.rank, 2);
  EXPECT_EQ(code.num_inputs, 2);
  EXPECT_EQ(code.param_count(), KernelCode::kFixedSlots + 2 + 3 * (2 + 2));
  EXPECT_NE(src.find("sf_i64 v[" + std::to_string(code.param_count()) + "]"), std::string::npos);
}

TEST(CodegenTest, AnInputTheKernelAlsoWritesIsNotLoadedAheadOfEarlierStores) {
  Kernel k = add_kernel(sym::integer(3), sym::integer(4));
  k.inputs[0].buffer = k.output.buffer;  // in place: out = out + in1
  std::string src = kernel_source(k);
  EXPECT_EQ(src.find("pre0["), std::string::npos) << src;
  EXPECT_NE(src.find("a.in0[inb"), std::string::npos) << src;
  EXPECT_NE(src.find("pre1[u] = __ldg("), std::string::npos) << src;
}

TEST(CodegenTest, SourceIsDeterministicAndIndependentOfSymbolicValues) {
  ExprRef s0 = sym::symbol(sym::SymKind::kSize, 0), u3 = sym::symbol(sym::SymKind::kUnbackedInt, 3);
  std::string a = kernel_source(add_kernel(s0, sym::integer(4)));
  EXPECT_EQ(a, kernel_source(add_kernel(s0, sym::integer(4))));
  EXPECT_EQ(a, kernel_source(add_kernel(sym::integer(7), sym::mul(u3, sym::integer(2)))));
  EXPECT_EQ(a.find("s0"), std::string::npos);
  Kernel renamed = add_kernel(s0, sym::integer(4));
  renamed.name = "k9_add";  // plan positions do not enter the source either
  EXPECT_EQ(a, kernel_source(renamed));
}

TEST(CodegenTest, IntegerFloorDivisionReportsZeroDivisionThroughTheErrorRecord) {
  Kernel k;
  k.sizes = {sym::integer(8)};
  k.inputs = {access(0, DType::kInt64, {sym::integer(1)}),
              access(1, DType::kInt64, {sym::integer(1)})};
  k.body = KExpr::binary_of(BinaryOp::kFloorDiv, KExpr::load(0, DType::kInt64),
                            KExpr::load(1, DType::kInt64), DType::kInt64);
  k.output = access(2, DType::kInt64, {sym::integer(1)});
  std::string src = kernel_source(k);
  EXPECT_NE(src.find("sf_floordiv(t0, t1)"), std::string::npos) << src;
  // Ordinals 0 and 1 are the loads, 2 the division: errors rank in the CPU's evaluation order.
  EXPECT_NE(src.find("sf_note(le, 1, 0, sf_key(2, lin), 0)"), std::string::npos) << src;
}

TEST(CodegenTest, GatherRegistersItsBoundsAsParametersAndReportsIndexErrors) {
  Kernel k;
  k.sizes = {sym::integer(5), sym::integer(3)};
  k.inputs = {access(0, DType::kFloat32, {sym::integer(0), sym::integer(1)}),
              access(1, DType::kInt64, {sym::integer(1), sym::integer(0)})};
  auto load = std::make_shared<KExpr>(*KExpr::load(0, DType::kFloat32));
  load->gather_dim = 0;
  load->gather = KExpr::load(1, DType::kInt64);
  load->gather_size = sym::integer(4);
  load->gather_stride = sym::integer(3);
  k.body = load;
  k.output = access(2, DType::kFloat32, {sym::integer(3), sym::integer(1)});
  KernelCode code = generate_kernel(k);
  ASSERT_EQ(code.gathers.size(), 1u);
  EXPECT_EQ(code.gathers[0], load.get());
  EXPECT_NE(code.source.find("a.v[" + std::to_string(code.gather_size_slot(0)) + "]"),
            std::string::npos);
  EXPECT_NE(code.source.find("sf_note(le, 2, 0, sf_key(1, lin)"), std::string::npos) << code.source;
}

TEST(CodegenTest, FloatSumAccumulatesInDoubleOverTheReducedPoints) {
  Kernel k;
  k.kind = Kernel::Kind::kReduction;
  k.sizes = {sym::integer(3), sym::integer(4)};
  k.reduced = {false, true};
  k.reduce = lower::ReduceOp::kSum;
  k.inputs = {access(0, DType::kFloat32, {sym::integer(4), sym::integer(1)})};
  k.body = KExpr::load(0, DType::kFloat32);
  k.output = access(1, DType::kFloat32, {sym::integer(1), sym::integer(0)});
  std::string src = kernel_source(k);
  EXPECT_NE(src.find("double facc = 0.0;"), std::string::npos);
  // Each of a split reduction's threads takes every groups-th point of its output.
  EXPECT_NE(src.find("for (I r0 = g; valid && r0 < n_red; r0 += 4 * groups)"), std::string::npos)
      << src;
  // The threads of a block that share an output merge through a tree in shared memory.
  EXPECT_NE(src.find("__shared__ double sf_rf[256];"), std::string::npos) << src;
  EXPECT_NE(src.find("for (I s = seg / 2; s > 0; s /= 2)"), std::string::npos) << src;
  EXPECT_NE(src.find("__syncthreads();"), std::string::npos) << src;
  EXPECT_NE(src.find("const I r = r0 + (I)u * groups;"), std::string::npos) << src;
  EXPECT_NE(src.find("facc += (double)t0;"), std::string::npos) << src;
  EXPECT_NE(src.find("a.out[po] = (float)facc;"), std::string::npos) << src;
}

TEST(CodegenTest, ScalarsAreParametersAndConstantsAreExactBitPatterns) {
  Kernel k;
  k.sizes = {sym::integer(2)};
  k.body = KExpr::binary_of(BinaryOp::kMaximum,
                            KExpr::scalar_of(sym::symbol(sym::SymKind::kFloat, 0), DType::kFloat32),
                            KExpr::constant_f(-0.0), DType::kFloat32);
  k.output = access(0, DType::kFloat32, {sym::integer(1)});
  KernelCode code = generate_kernel(k);
  ASSERT_EQ(code.scalars.size(), 1u);
  EXPECT_NE(
      code.source.find("__int_as_float((int)a.v[" + std::to_string(code.scalar_slot(0)) + "])"),
      std::string::npos);
  EXPECT_NE(code.source.find("__int_as_float(0x80000000)"), std::string::npos);
  EXPECT_NE(code.source.find("sf_fmax("), std::string::npos);
}

TEST(CodegenTest, BoolStorageIsOneByteAndCastsFollowTheCpuRules) {
  Kernel k;
  k.sizes = {sym::integer(2)};
  k.inputs = {access(0, DType::kFloat32, {sym::integer(1)})};
  k.body = KExpr::cast(KExpr::load(0, DType::kFloat32), DType::kBool);
  k.output = access(1, DType::kBool, {sym::integer(1)});
  std::string src = kernel_source(k);
  EXPECT_NE(src.find("unsigned char* out;"), std::string::npos);
  EXPECT_NE(src.find("(t0 != 0.0f)"), std::string::npos) << src;  // NaN is true
  k.body = KExpr::cast(KExpr::load(0, DType::kFloat32), DType::kInt64);
  k.output.dtype = DType::kInt64;
  EXPECT_NE(kernel_source(k).find("sf_f2i(t0)"), std::string::npos);
}

}  // namespace
}  // namespace sf::backend::cuda
