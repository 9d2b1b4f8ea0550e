// Without a GPU: every kernel of every program (corpus + tests/backend/programs) must compile with
// NVRTC for sm_90. Also the NVRTC cache: memory hits, then disk hits from a fresh cache.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <set>

#include "engine/backend/cuda/codegen.h"
#include "engine/backend/cuda/nvrtc.h"
#include "engine/base/errors.h"
#include "engine/sym/make.h"
#include "tests/backend/test_util.h"

namespace sf::backend::cuda {
namespace {

std::string cache_dir(const std::string& leaf) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/nvrtc_compile_test_" + leaf;
}

// Fatal when NVRTC is missing: callers wrap it in ASSERT_NO_FATAL_FAILURE to stop the test.
void require_nvrtc() {
  std::string why;
  ASSERT_TRUE(Nvrtc::get().available(&why))
      << "NVRTC is required to check generated kernels: " << why;
}

TEST(NvrtcCompileTest, EveryKernelOfEveryProgramCompilesForSm90) {
  ASSERT_NO_FATAL_FAILURE(require_nvrtc());
  NvrtcCache cache(cache_dir("programs"));
  std::vector<std::string> files = testing::program_files();
  ASSERT_GE(files.size(), 10u) << "corpus or tests/backend/programs missing from the runfiles";
  int kernels = 0, plans = 0;
  std::set<std::string> sources;
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    std::unique_ptr<testing::Compiled> c = testing::compile_file(f);
    if (!c->result.plan) continue;  // rejected before lowering (e.g. a data-dependent guard)
    ++plans;
    // Every kernel, those of the nested plans of cond / while_loop steps included.
    std::vector<const lower::Kernel*> all;
    std::function<void(const lower::Plan&)> collect = [&](const lower::Plan& plan) {
      for (const lower::Kernel& k : plan.kernels) all.push_back(&k);
      for (const lower::Plan& sub : plan.subplans) collect(sub);
    };
    collect(*c->result.plan);
    for (const lower::Kernel* kp : all) {
      const lower::Kernel& k = *kp;
      ++kernels;
      std::string src = kernel_source(k);
      sources.insert(src);
      try {
        std::string cubin = cache.cubin(src, "sm_90", default_nvrtc_options());
        EXPECT_EQ(cubin.rfind("\x7f"
                              "ELF",
                              0),
                  0u)
            << k.name << ": not a cubin";
      } catch (const EngineBug& e) {
        ADD_FAILURE() << k.name << " in " << f << " does not compile:\n" << e.what();
      }
    }
  }
  std::printf("compiled %d kernels of %d plans: %zu distinct sources, %lld NVRTC compiles\n",
              kernels, plans, sources.size(), static_cast<long long>(cache.misses()));
  EXPECT_GE(plans, 10);
  EXPECT_GE(kernels, 100);
  // Structure-only sources: far fewer distinct programs than kernels.
  EXPECT_LT(sources.size(), static_cast<size_t>(kernels));
  EXPECT_EQ(cache.misses() + cache.hits(), kernels);
}

// The copy kernels the backend generates to densify strided layouts, for every rank and dtype.
TEST(NvrtcCompileTest, DensifyKernelsCompileForEveryRankAndDtype) {
  ASSERT_NO_FATAL_FAILURE(require_nvrtc());
  NvrtcCache cache("");
  for (program::DType d :
       {program::DType::kBool, program::DType::kInt64, program::DType::kFloat32}) {
    for (int rank = 0; rank <= 8; ++rank) {
      lower::Kernel k;
      lower::Access in, out;
      in.dtype = out.dtype = d;
      in.offset = out.offset = sym::integer(0);
      for (int r = 0; r < rank; ++r) {
        k.sizes.push_back(sym::integer(2));
        in.strides.push_back(sym::integer(1));
        out.strides.push_back(sym::integer(1));
      }
      k.inputs = {in};
      k.output = out;
      k.body = lower::KExpr::load(0, d);
      EXPECT_NO_THROW(cache.cubin(kernel_source(k), "sm_90", default_nvrtc_options()))
          << "rank " << rank << " " << program::dtype_name(d);
    }
  }
}

// Parameters past the 4 KiB limit: SfArgs holds a pointer to the values instead of the values.
TEST(NvrtcCompileTest, KernelWithParametersPastTheLimitCompiles) {
  ASSERT_NO_FATAL_FAILURE(require_nvrtc());
  // 490 scalars fill SfArgs to exactly 4096 bytes; one more moves the values to memory.
  lower::Kernel small = testing::many_scalars_kernel(490, 8);
  lower::Kernel big = testing::many_scalars_kernel(491, 8);
  KernelCode small_code = generate_kernel(small), big_code = generate_kernel(big);
  EXPECT_FALSE(small_code.values_in_memory);
  EXPECT_TRUE(big_code.values_in_memory);
  EXPECT_EQ(small_code.args_bytes(), kMaxParamBytes);
  EXPECT_EQ(big_code.args_bytes(), 8 * 4);  // in0, out, err, v
  EXPECT_NE(big_code.source.find("const sf_i64* v;"), std::string::npos);
  NvrtcCache cache("");
  for (const KernelCode* code : {&small_code, &big_code}) {
    try {
      cache.cubin(code->source, "sm_90", default_nvrtc_options());
    } catch (const EngineBug& e) {
      ADD_FAILURE() << "does not compile:\n" << e.what();
    }
  }
}

TEST(NvrtcCacheTest, SecondCompileIsAMemoryHitAndAFreshCacheHitsTheDisk) {
  ASSERT_NO_FATAL_FAILURE(require_nvrtc());
  std::string dir = cache_dir("cache");
  std::filesystem::remove_all(dir);
  std::string src =
      std::string(device_prelude()) +
      "extern \"C\" __global__ void sf_kernel(float* x) { x[threadIdx.x] += 1.0f; }\n";
  NvrtcCache first(dir);
  std::string a = first.cubin(src, "sm_90", default_nvrtc_options());
  EXPECT_EQ(first.misses(), 1);
  EXPECT_EQ(first.hits(), 0);
  EXPECT_EQ(first.cubin(src, "sm_90", default_nvrtc_options()), a);
  EXPECT_EQ(first.memory_hits(), 1);
  EXPECT_EQ(first.misses(), 1);
  std::string key = NvrtcCache::key(src, "sm_90", default_nvrtc_options());
  EXPECT_TRUE(std::filesystem::exists(dir + "/" + key + ".cubin"));
  // Another architecture or other options are another entry.
  EXPECT_NE(key, NvrtcCache::key(src, "sm_80", default_nvrtc_options()));
  EXPECT_NE(key, NvrtcCache::key(src, "sm_90", {}));
  NvrtcCache second(dir);  // a new process, as far as the cache can tell
  EXPECT_EQ(second.cubin(src, "sm_90", default_nvrtc_options()), a);
  EXPECT_EQ(second.disk_hits(), 1);
  EXPECT_EQ(second.misses(), 0);
  // No temporary files are left behind by the atomic writes.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".cubin") << e.path();
  }
  EXPECT_EQ(files, 1);
}

TEST(NvrtcCacheTest, CompileErrorsCarryTheNvrtcLog) {
  ASSERT_NO_FATAL_FAILURE(require_nvrtc());
  NvrtcCache cache("");
  try {
    cache.cubin("extern \"C\" __global__ void sf_kernel() { undefined_thing(); }", "sm_90",
                default_nvrtc_options());
    ADD_FAILURE() << "expected a compile error";
  } catch (const EngineBug& e) {
    EXPECT_NE(std::string(e.what()).find("undefined_thing"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cache.misses(), 0);
}

}  // namespace
}  // namespace sf::backend::cuda
