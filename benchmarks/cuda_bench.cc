// CUDA backend throughput against a device-to-device copy (DESIGN §4, issue 36): generated adds,
// a broadcast, a transposing copy, a fused chain, full and per-dim sums, nonzero, masked_select and
// unique on 2^26 elements (the sizes of tools/bench/torch_gpu_bench.py, for PyTorch's figures).
// Without a GPU it prints "CUDA unavailable: <reason>" and exits 0.
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "engine/backend/cuda/codegen.h"
#include "engine/backend/cuda/cuda_externs.h"
#include "engine/backend/cuda/device_memory.h"
#include "engine/backend/cuda/driver.h"
#include "engine/backend/cuda/kernel_launcher.h"
#include "engine/sym/make.h"

namespace sf::backend::cuda {
namespace {

using lower::Access;
using lower::Kernel;
using lower::KExpr;
using lower::KExprPtr;
using program::DType;

constexpr int64_t kN = int64_t{1} << 26;

// Mean seconds per call of `fn` after warm-up, synchronized; a call slower than 50 ms (a kernel
// far from the bandwidth limit) is timed twice, not `reps` times.
double time_it(const Driver& d, const std::function<void()>& fn, int reps = 20) {
  auto first = std::chrono::steady_clock::now();
  fn();
  d.check(d.api().ctx_synchronize(), "sync");
  if (std::chrono::steady_clock::now() - first > std::chrono::milliseconds(50)) {
    reps = 2;
  } else {
    for (int i = 0; i < 2; ++i) fn();
  }
  d.check(d.api().ctx_synchronize(), "sync");
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) fn();
  d.check(d.api().ctx_synchronize(), "sync");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
}

Access contiguous(DType dtype, const std::vector<int64_t>& sizes,
                  std::vector<int64_t> strides = {}) {
  Access a;
  a.dtype = dtype;
  a.offset = sym::integer(0);
  if (strides.empty()) strides = backend::contiguous_strides(sizes);
  for (int64_t s : strides) a.strides.push_back(sym::integer(s));
  return a;
}

ConcreteKernel concrete(const Kernel& k) {
  auto value = [](const ExprRef& e) { return e->int_value(); };
  ConcreteKernel c;
  for (const ExprRef& s : k.sizes) c.sizes.push_back(value(s));
  auto acc = [&](const Access& a) {
    ConcreteAccess r{value(a.offset), {}};
    for (const ExprRef& s : a.strides) r.strides.push_back(value(s));
    return r;
  };
  for (const Access& a : k.inputs) c.inputs.push_back(acc(a));
  c.output = acc(k.output);
  return c;
}

Kernel pointwise(const std::vector<int64_t>& sizes, std::vector<Access> inputs, KExprPtr body,
                 DType out) {
  Kernel k;
  k.name = "bench";
  for (int64_t s : sizes) k.sizes.push_back(sym::integer(s));
  k.inputs = std::move(inputs);
  k.body = std::move(body);
  k.output = contiguous(out, sizes);
  // Distinct buffers, as a plan's kernels have (the same id would mean an in-place kernel).
  for (size_t i = 0; i < k.inputs.size(); ++i) k.inputs[i].buffer = static_cast<int>(i);
  k.output.buffer = static_cast<int>(k.inputs.size());
  return k;
}

// A sum of f32 over the `reduced` dims of `sizes` (contiguous input), as lowering emits it.
Kernel sum_of(const std::vector<int64_t>& sizes, const std::vector<bool>& reduced) {
  Kernel k = pointwise(sizes, {contiguous(DType::kFloat32, sizes)}, KExpr::load(0, DType::kFloat32),
                       DType::kFloat32);
  k.kind = Kernel::Kind::kReduction;
  k.reduced = reduced;
  k.reduce = lower::ReduceOp::kSum;
  std::vector<int64_t> kept;
  for (size_t d = 0; d < sizes.size(); ++d) kept.push_back(reduced[d] ? 1 : sizes[d]);
  std::vector<int64_t> strides = backend::contiguous_strides(kept);
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (reduced[d]) strides[d] = 0;
  }
  k.output = contiguous(DType::kFloat32, sizes, strides);
  k.output.buffer = 1;
  return k;
}

struct Bench {
  const Driver& d;
  DeviceMemory mem;
  KernelLauncher launcher;
  void* err;
  explicit Bench(const Driver& drv)
      : d(drv),
        mem(drv),
        launcher(drv, NvrtcCache::shared(), mem),
        err(mem.alloc(sizeof(ErrorRecord))) {
    d.check(d.api().memset_d8(reinterpret_cast<CUdeviceptr>(err), 0, sizeof(ErrorRecord)),
            "memset");
  }
  // Codegen and σ-evaluation happen once per kernel (outside the timed loops), as in a plan run
  // only the launch itself repeats.
  std::function<void()> prepare(const Kernel& k, const std::vector<DeviceBuffer>& ins,
                                const DeviceBuffer& out) {
    auto code = std::make_shared<KernelCode>(generate_kernel(k));
    ConcreteKernel ck = concrete(k);
    return [this, &k, code, ck, ins, out] {
      launcher.reset();
      launcher.launch(k, *code, ck, ins, out, err);
    };
  }
  void run(const Kernel& k, const std::vector<DeviceBuffer>& ins, const DeviceBuffer& out) {
    prepare(k, ins, out)();
  }
};

// The generated kernels the bench times (built without a device, so --sources works anywhere).
struct BenchKernels {
  static constexpr int64_t r = 8192, c = kN / 8192;
  KExprPtr add = KExpr::binary_of(program::BinaryOp::kAdd, KExpr::load(0, DType::kFloat32),
                                  KExpr::load(1, DType::kFloat32), DType::kFloat32);
  Kernel add1 =
      pointwise({kN}, {contiguous(DType::kFloat32, {kN}), contiguous(DType::kFloat32, {kN})}, add,
                DType::kFloat32);
  Kernel add2 = pointwise(
      {r, c}, {contiguous(DType::kFloat32, {r, c}), contiguous(DType::kFloat32, {r, c}, {0, 1})},
      add, DType::kFloat32);
  Kernel transpose = pointwise({c, r}, {contiguous(DType::kFloat32, {c, r}, {1, c})},
                               KExpr::load(0, DType::kFloat32), DType::kFloat32);
  Kernel fused =
      pointwise({kN}, {contiguous(DType::kFloat32, {kN}), contiguous(DType::kFloat32, {kN})},
                relu_chain(add), DType::kFloat32);
  Kernel full = sum_of({kN}, {true});
  Kernel rows = sum_of({r, c}, {false, true});
  Kernel cols = sum_of({r, c}, {true, false});

  // relu((x + y) * 2 - 1): one generated kernel, as lowering fuses the chain.
  static KExprPtr relu_chain(const KExprPtr& sum) {
    auto f32 = [](program::BinaryOp op, KExprPtr a, KExprPtr b) {
      return KExpr::binary_of(op, std::move(a), std::move(b), DType::kFloat32);
    };
    return f32(
        program::BinaryOp::kMaximum,
        f32(program::BinaryOp::kSub, f32(program::BinaryOp::kMul, sum, KExpr::constant_f(2.0)),
            KExpr::constant_f(1.0)),
        KExpr::constant_f(0.0));
  }
};

// --sources DIR: each timed kernel's CUDA source as DIR/<name>.cu (for ptxas -v here, without a
// GPU: registers, spills).
int write_sources(const std::string& dir) {
  BenchKernels ks;
  const std::pair<const char*, const Kernel*> all[] = {
      {"add_1d", &ks.add1},  {"add_broadcast", &ks.add2}, {"transpose", &ks.transpose},
      {"chain", &ks.fused},  {"sum_full", &ks.full},      {"sum_dim1", &ks.rows},
      {"sum_dim0", &ks.cols}};
  for (const auto& [name, k] : all) {
    std::string path = dir + "/" + name + ".cu";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cuda_bench: cannot write %s\n", path.c_str());
      return 1;
    }
    std::string src = kernel_source(*k);
    std::fwrite(src.data(), 1, src.size(), f);
    std::fclose(f);
  }
  return 0;
}

int bench_main() {
  const Driver& d = Driver::get();
  std::string why;
  if (!d.available(&why) || !Nvrtc::get().available(&why)) {
    std::printf("CUDA unavailable: %s\n", why.c_str());
    return 0;
  }
  d.make_current();
  std::printf("device: %s (%s, %d SMs), driver %d\n", d.device_name().c_str(), d.arch().c_str(),
              d.sm_count(), d.driver_version());
  Bench b(d);
  DeviceBuffer x{b.mem.alloc(kN * 4), DType::kFloat32, kN},
      y{b.mem.alloc(kN * 4), DType::kFloat32, kN};
  DeviceBuffer z{b.mem.alloc(kN * 4), DType::kFloat32, kN};
  // Data: x[i] = i, y[i] = i (a generated kernel over the index).
  Kernel init = pointwise({kN}, {}, KExpr::cast(KExpr::index(0), DType::kFloat32), DType::kFloat32);
  b.run(init, {}, x);
  b.run(init, {}, y);
  double copy = time_it(d, [&] {
    d.check(d.api().memcpy_dtod(reinterpret_cast<CUdeviceptr>(z.ptr),
                                reinterpret_cast<CUdeviceptr>(x.ptr), kN * 4),
            "copy");
  });
  double copy_gbs = 2.0 * kN * 4 / copy / 1e9;
  std::printf("device-to-device copy, 2^26 f32:       %8.3f ms  %7.1f GB/s\n", copy * 1e3,
              copy_gbs);
  auto report = [&](const char* what, double secs, double bytes) {
    double gbs = bytes / secs / 1e9;
    std::printf("%-38s %8.3f ms  %7.1f GB/s  (%5.1f%% of copy)\n", what, secs * 1e3, gbs,
                100.0 * gbs / copy_gbs);
  };
  BenchKernels ks;
  const int64_t r = BenchKernels::r, c = BenchKernels::c;
  report("generated add, 2^26 f32 (1-D):", time_it(d, b.prepare(ks.add1, {x, y}, z)), 3.0 * kN * 4);
  report("generated add, [8192, 8192] + [8192]:", time_it(d, b.prepare(ks.add2, {x, y}, z)),
         2.0 * kN * 4);
  report("generated transposing copy, 8192^2:", time_it(d, b.prepare(ks.transpose, {x}, z)),
         2.0 * kN * 4);
  // nonzero on a [8192, 8192] bool tensor with a third of the elements set.
  DeviceBuffer m{b.mem.alloc(kN), DType::kBool, kN};
  KExprPtr third = KExpr::binary_of(program::BinaryOp::kEq,
                                    KExpr::binary_of(program::BinaryOp::kRemainder, KExpr::index(0),
                                                     KExpr::constant_i(3), DType::kInt64),
                                    KExpr::constant_i(0), DType::kBool);
  b.run(pointwise({kN}, {}, third, DType::kBool), {}, m);
  int64_t count = 0;
  // As the backend runs it: the tiled count, the total to the host, the coordinates written.
  double secs = time_it(
      d,
      [&] {
        Compaction cp = count_truthy(m.ptr, ElemType::kBool, kN, b.mem);
        count = cp.count;
        void* out = b.mem.alloc(count * 2 * 8);
        write_nonzero(cp, m.ptr, ElemType::kBool, kN, {r, c}, static_cast<int64_t*>(out));
        b.mem.free(cp.tile_ends);
        b.mem.free(out);
      },
      10);
  std::printf("nonzero: %lld of 2^26 set\n", static_cast<long long>(count));
  report("nonzero [8192, 8192] bool (in+out):", secs, kN + count * 2.0 * 8);
  secs = time_it(
      d,
      [&] {
        Compaction cp = count_truthy(m.ptr, ElemType::kBool, kN, b.mem);
        b.mem.free(cp.tile_ends);
      },
      10);
  report("  tiled counting pass only (in):", secs, kN);
  // masked_select as the backend runs it: the compaction of the mask, the values written.
  secs = time_it(
      d,
      [&] {
        Compaction cp = count_truthy(m.ptr, ElemType::kBool, kN, b.mem);
        count = cp.count;
        void* out = b.mem.alloc(count * 4);
        write_selected(cp, m.ptr, kN, x.ptr, 4, out);
        b.mem.free(cp.tile_ends);
        b.mem.free(out);
      },
      10);
  report("masked_select 2^26 f32 (in+out):", secs, kN * 5.0 + count * 4.0);
  // unique of 2^26 i64 holding 1,000 values, values only (the backend's path).
  DeviceBuffer small{b.mem.alloc(kN * 8), DType::kInt64, kN};
  b.run(pointwise({kN}, {},
                  KExpr::binary_of(program::BinaryOp::kRemainder, KExpr::index(0),
                                   KExpr::constant_i(1000), DType::kInt64),
                  DType::kInt64),
        {}, small);
  int64_t runs = 0;
  secs = time_it(
      d,
      [&] {
        int32_t *first = nullptr, *counts = nullptr;
        runs = unique_runs(small.ptr, ElemType::kInt64, kN, b.mem, &first, &counts);
        void* values = b.mem.alloc(runs * 8);
        gather_rows(small.ptr, 8, 1, kN, first, runs, 1, values);
        b.mem.free(first);
        b.mem.free(counts);
        b.mem.free(values);
      },
      5);
  std::printf("unique: %lld values\n", static_cast<long long>(runs));
  report("unique 2^26 i64, 1000 values (in):", secs, kN * 8.0);
  report("generated chain relu((x+y)*2-1):", time_it(d, b.prepare(ks.fused, {x, y}, z)),
         3.0 * kN * 4);
  // Sums: the whole tensor, each row of [8192, 8192] (contiguous reduced dim), each column.
  report("generated sum, 2^26 f32 (full):", time_it(d, b.prepare(ks.full, {x}, z)), kN * 4.0);
  report("generated sum over dim 1, 8192^2:", time_it(d, b.prepare(ks.rows, {x}, z)), kN * 4.0);
  report("generated sum over dim 0, 8192^2:", time_it(d, b.prepare(ks.cols, {x}, z)), kN * 4.0);
  std::printf("NVRTC cache: %lld compiles, %lld hits (dir %s)\n",
              static_cast<long long>(NvrtcCache::shared().misses()),
              static_cast<long long>(NvrtcCache::shared().hits()),
              NvrtcCache::shared().dir().c_str());
  return 0;
}

}  // namespace
}  // namespace sf::backend::cuda

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::string(argv[1]) == "--sources") {
      return sf::backend::cuda::write_sources(argv[2]);
    }
    return sf::backend::cuda::bench_main();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda_bench: %s\n", e.what());
    return 1;
  }
}
