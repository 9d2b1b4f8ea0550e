// Every program (corpus + tests/backend/programs) run on the CUDA backend against the CPU
// reference on the same plan: same outputs (exact for ints, bools and shapes; a tolerance for
// floats), same σ, same user error kind. Skips with the reason when CUDA is unavailable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "engine/backend/cuda/cuda_backend.h"
#include "engine/backend/cuda/cuda_externs.h"
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

// The compactions on their edges (nonzero's selection, the tiled count and masked_select's write):
// tile boundaries (4096 elements), partial last tiles, unaligned data (scalar loads), every element
// type (NaN truthy, -0.0 not), value sizes 1/4/8.
TEST(CudaExecTest, CompactionMatchesAHostReferenceOnTileEdges) {
  std::string why;
  if (!cuda_or_skip_reason(&why)) GTEST_SKIP() << "CUDA unavailable: " << why;
  const cuda::Driver& d = cuda::Driver::get();
  d.make_current();
  cuda::DeviceMemory mem(d);
  auto upload = [&](const void* host, size_t bytes) {
    void* p = mem.alloc(bytes + 16);
    d.check(d.api().memcpy_htod(reinterpret_cast<CUdeviceptr>(p), host, bytes), "upload");
    return p;
  };
  auto download = [&](void* dst, const void* p, size_t bytes) {
    if (bytes == 0) return;
    d.check(d.api().memcpy_dtoh(dst, reinterpret_cast<CUdeviceptr>(p), bytes), "download");
  };
  for (int64_t n : {1, 15, 16, 17, 4095, 4096, 4097, 12289, 100003, (1 << 21) + 5}) {
    for (int shift : {0, 1}) {  // shift 1: the data starts one element past an aligned address
      std::vector<unsigned char> m(n + shift);
      std::vector<float> f(n + shift);
      std::vector<int64_t> l(n + shift);
      uint64_t state = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(n + shift);
      for (int64_t i = 0; i < n + shift; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = static_cast<unsigned>(state >> 33) % 7;
        m[i] = r < 2;
        f[i] = r == 0 ? NAN : r == 1 ? -0.0f : r == 2 ? 1.5f : 0.0f;
        l[i] = r < 3 ? static_cast<int64_t>(i) - 3 : 0;
      }
      void* dm = upload(m.data(), m.size());
      void* df = upload(f.data(), f.size() * 4);
      void* dl = upload(l.data(), l.size() * 8);
      // nonzero of [n / 3 (or 1), rest] over each element type.
      std::vector<int64_t> sizes =
          n % 3 == 0 ? std::vector<int64_t>{3, n / 3} : std::vector<int64_t>{n};
      struct Case {
        const void* data;
        cuda::ElemType t;
        std::function<bool(int64_t)> truthy;
      };
      for (const Case& c :
           {Case{static_cast<unsigned char*>(dm) + shift, cuda::ElemType::kBool,
                 [&](int64_t i) { return m[i + shift] != 0; }},
            Case{static_cast<float*>(df) + shift, cuda::ElemType::kFloat32,
                 [&](int64_t i) { return f[i + shift] != 0.0f || f[i + shift] != f[i + shift]; }},
            Case{static_cast<int64_t*>(dl) + shift, cuda::ElemType::kInt64,
                 [&](int64_t i) { return l[i + shift] != 0; }}}) {
        std::vector<int64_t> want;
        for (int64_t i = 0; i < n; ++i) {
          if (!c.truthy(i)) continue;
          int64_t rest = i;
          std::vector<int64_t> coord(sizes.size());
          for (size_t k = sizes.size(); k-- > 0;) {
            coord[k] = rest % sizes[k];
            rest /= sizes[k];
          }
          want.insert(want.end(), coord.begin(), coord.end());
        }
        // The tiled count, the selection boolean indexing runs on and nonzero's coordinates agree
        // with the reference.
        cuda::Compaction cp = cuda::count_truthy(c.data, c.t, n, mem);
        ASSERT_EQ(cp.count * static_cast<int64_t>(sizes.size()), static_cast<int64_t>(want.size()))
            << "n " << n << " shift " << shift << " type " << static_cast<int>(c.t);
        int32_t* idx = nullptr;
        int64_t count = cuda::select_truthy(c.data, c.t, n, mem, &idx);
        ASSERT_EQ(count, cp.count);
        void* out = mem.alloc(want.size() * 8 + 8);
        cuda::write_nonzero(cp, c.data, c.t, n, sizes, static_cast<int64_t*>(out));
        std::vector<int64_t> got(want.size());
        download(got.data(), out, got.size() * 8);
        EXPECT_EQ(got, want) << "n " << n << " shift " << shift << " type "
                             << static_cast<int>(c.t);
        mem.free(out);
        mem.free(idx);
        mem.free(cp.tile_ends);
      }
      // masked_select of the i64 and f32 values (8 and 4 bytes) and of the mask itself (1 byte).
      cuda::Compaction cp = cuda::count_truthy(static_cast<unsigned char*>(dm) + shift,
                                               cuda::ElemType::kBool, n, mem);
      std::vector<int64_t> want_l;
      std::vector<unsigned char> want_m;
      for (int64_t i = 0; i < n; ++i) {
        if (m[i + shift] == 0) continue;
        want_l.push_back(l[i + shift]);
        want_m.push_back(m[i + shift]);
      }
      ASSERT_EQ(cp.count, static_cast<int64_t>(want_l.size()));
      void* out = mem.alloc(cp.count * 8 + 8);
      cuda::write_selected(cp, static_cast<unsigned char*>(dm) + shift, n,
                           static_cast<int64_t*>(dl) + shift, 8, out);
      std::vector<int64_t> got_l(cp.count);
      download(got_l.data(), out, got_l.size() * 8);
      EXPECT_EQ(got_l, want_l) << "n " << n << " shift " << shift;
      cuda::write_selected(cp, static_cast<unsigned char*>(dm) + shift, n,
                           static_cast<unsigned char*>(dm) + shift, 1, out);
      std::vector<unsigned char> got_m(cp.count);
      download(got_m.data(), out, got_m.size());
      EXPECT_EQ(got_m, want_m) << "n " << n << " shift " << shift;
      cuda::write_selected(cp, static_cast<unsigned char*>(dm) + shift, n,
                           static_cast<float*>(df) + shift, 4, out);
      std::vector<float> got_f(cp.count);
      download(got_f.data(), out, got_f.size() * 4);
      size_t j = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (m[i + shift] == 0) continue;
        uint32_t a, b;
        std::memcpy(&a, &got_f[j++], 4);
        std::memcpy(&b, &f[i + shift], 4);
        ASSERT_EQ(a, b) << "n " << n << " shift " << shift << " at " << i;
      }
      mem.free(out);
      mem.free(cp.tile_ends);
      mem.free(dm);
      mem.free(df);
      mem.free(dl);
    }
  }
}

}  // namespace
}  // namespace sf::backend
