// Reduction kernels: one or several threads per output element, each combining its share of the
// reduced points (or of a previous launch's partial accumulators), then a tree in shared memory
// over the threads of a block that share an output, then a store or a partial (see ReducePhase).
#include "engine/backend/cuda/codegen_loops.h"
#include "engine/base/check.h"

namespace sf::backend::cuda::detail {

namespace {

using lower::Kernel;
using lower::ReduceOp;
using program::DType;

// The CPU reduce loop for one output element, step by step (accumulators, NaN handling).
std::string combine(const Kernel& k, const std::string& v, DType dtype) {
  bool is_float = dtype == DType::kFloat32;
  std::string vi = is_float ? "" : convert(v, dtype, DType::kInt64);
  switch (k.reduce) {
    case ReduceOp::kSum:
      return is_float ? "facc += (double)" + v + ";\n" : "iacc = sf_add(iacc, " + vi + ");\n";
    case ReduceOp::kMax:
    case ReduceOp::kMin: {
      const char* cmp = k.reduce == ReduceOp::kMax ? ">" : "<";
      if (is_float) {
        return "{\n  const double x = (double)" + v +
               ";\n  if (!seen || x != x) {\n    facc = x;\n" + "  } else if (facc == facc && x " +
               cmp + " facc) {\n    facc = x;\n  }\n}\nseen = true;\n";
      }
      return "if (!seen || " + vi + " " + cmp + " iacc) iacc = " + vi + ";\nseen = true;\n";
    }
    case ReduceOp::kAny:
      return "iacc = (iacc != 0 || " + convert(v, dtype, DType::kBool) + ") ? 1 : 0;\n";
    case ReduceOp::kAll:
      return "iacc = (iacc != 0 && " + convert(v, dtype, DType::kBool) + ") ? 1 : 0;\n";
  }
  SF_UNREACHABLE();
}

// Merges the partial accumulator at index `at` of the arrays pf / pi / ps (a previous launch's
// partials, or another thread's slots in shared memory) into this thread's: the combine step of
// `reduce` on the partial's value, in the accumulator's own type.
std::string merge_partial(const Kernel& k) {
  bool in_float =
      k.body->dtype == DType::kFloat32 && k.reduce != ReduceOp::kAny && k.reduce != ReduceOp::kAll;
  std::string value = in_float ? "pf[at]" : "pi[at]";
  return "if (ps[at]) {\n" +
         indent_lines(combine(k, value, in_float ? DType::kFloat32 : DType::kInt64), "  ") +
         "  seen = true;\n}\n";
}

// The partial accumulators of SfArgs::partials: `capacity` doubles, i64s and seen flags.
std::string partial_arrays(const std::string& name, bool writable) {
  std::string c = writable ? "" : "const ";
  return "      " + c + "double* " + name + "f = (" + c + "double*)a.partials;\n" + "      " + c +
         "sf_i64* " + name + "i = (" + c + "sf_i64*)(a.partials + (sf_i64)cap * 8);\n" + "      " +
         c + "unsigned char* " + name + "s = (" + c +
         "unsigned char*)(a.partials + (sf_i64)cap * 16);\n";
}

// The tree over a segment of `seg` threads that share an output: each round, the lower half of
// the segment merges the upper half's accumulators (slots in shared memory), until the segment's
// first thread holds them all. A segment is `seg` consecutive threads, or with out_fastest the
// threads of one column of the block's 32-wide rows. Every thread of the block takes part (the
// loop around it is uniform across the block); the others then skip the store.
std::string segment_tree(const Kernel& k) {
  std::string t;
  t += "    if (seg > 1) {\n";
  t += "      const I lane = (I)threadIdx.x;\n";
  t += "      const I pos = out_fastest ? lane / 32 : lane % seg;\n";
  t += "      const I apart = out_fastest ? 32 : 1;\n";
  t += "      sf_rf[lane] = facc;\n      sf_ri[lane] = iacc;\n      sf_rs[lane] = seen ? 1 : 0;\n";
  t += "      __syncthreads();\n";
  t += "      for (I s = seg / 2; s > 0; s /= 2) {\n";
  t += "        if (pos < s) {\n";
  t += "          const double* pf = sf_rf;\n";
  t += "          const sf_i64* pi = sf_ri;\n";
  t += "          const unsigned char* ps = sf_rs;\n";
  t += "          const I at = lane + s * apart;\n";
  t += indent_lines(merge_partial(k), "          ");
  t += "          sf_rf[lane] = facc;\n          sf_ri[lane] = iacc;\n";
  t += "          sf_rs[lane] = seen ? 1 : 0;\n";
  t += "        }\n";
  t += "        __syncthreads();\n";
  t += "      }\n";
  t += "      if (pos != 0 || !valid) continue;\n";
  t += "    }\n";
  return t;
}

}  // namespace

// Threads t -> (output o, group g): groups consecutive threads per output, or (out_fastest, with
// seg == 8) blocks of 32 consecutive outputs by 8 groups. Each thread combines the points r = g, g
// + groups, ... of its output (kDirect, kPartials) or the partials q = g, g + groups, ... of the
// previous launch (kMergeStore), the segment's tree merges them, and its first thread stores the
// output (kDirect, kMergeStore) or writes partial g / seg of groups / seg (kPartials).
std::string reduction_body(const Kernel& k, KernelCode& code) {
  SF_CHECK(k.reduced.size() == static_cast<size_t>(code.rank)) << k.name << ": reduced flags";
  std::vector<int> kept, red;
  for (int d = 0; d < code.rank; ++d) (k.reduced[d] ? red : kept).push_back(d);
  const std::vector<bool> pre = preloadable(k);
  BodyEmitter body(k, code, "lin", "          ");
  body.preload(pre, "[u]");
  body.collect(*k.body);
  std::string result = body.emit(*k.body);
  auto phase = [](ReducePhase p) { return std::to_string(static_cast<int>(p)); };
  std::string out;
  out += "  const I n_out = " + islot(KernelCode::kCountSlot) + ";\n";
  out += "  const I n_red = " + islot(KernelCode::kInnerSlot) + ";\n";
  out += "  const int phase = (int)" + slot(KernelCode::kPhaseSlot) + ";\n";
  out += "  const I groups = " + islot(KernelCode::kGroupsSlot) + ";\n";
  out += "  const I in_groups = " + islot(KernelCode::kInGroupsSlot) + ";\n";
  out += "  const bool out_fastest = " + slot(KernelCode::kOrderSlot) + " != 0;\n";
  out += "  const I cap = " + islot(KernelCode::kCapacitySlot) + ";\n";
  out += "  const I seg = " + islot(KernelCode::kSegmentSlot) + ";\n";
  out += "  __shared__ double sf_rf[" + std::to_string(kBlockThreads) + "];\n";
  out += "  __shared__ sf_i64 sf_ri[" + std::to_string(kBlockThreads) + "];\n";
  out += "  __shared__ unsigned char sf_rs[" + std::to_string(kBlockThreads) + "];\n";
  // From the host (launch_params.cc, reduction_threads): with segments the count is padded to
  // whole blocks (the padding threads are not `valid`), so every thread of a block runs the same
  // iterations and reaches every barrier of the tree.
  out += "  const I n_threads = " + islot(KernelCode::kThreadsSlot) + ";\n";
  out += "  const I step = (I)gridDim.x * (I)blockDim.x;\n";
  out += kLocalError;
  out +=
      "  for (I t = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; t < n_threads; t += step) "
      "{\n";
  out += "    I o, g;\n";
  out += "    if (!out_fastest) {\n      o = t / groups;\n      g = t % groups;\n";
  out += "    } else {\n";
  out += "      const I b = t / " + std::to_string(kBlockThreads) + ", l = t % " +
         std::to_string(kBlockThreads) + ", n_ob = (n_out + 31) / 32;\n";
  out += "      o = b % n_ob * 32 + l % 32;\n      g = b / n_ob * seg + l / 32;\n";
  out += "    }\n";
  out += "    const bool valid = o < n_out;\n";
  out += decompose(code, kept, "valid ? o : 0", "rest", "    ");
  out += input_offsets(code, body, kept, "base", "", "    ");
  out += "    const I po = " +
         offset_expr(code, code.num_inputs, kept, islot(code.offset_slot(code.num_inputs))) + ";\n";
  out += "    double facc = 0.0;\n";
  out += std::string("    sf_i64 iacc = ") + (k.reduce == ReduceOp::kAll ? "1" : "0") + ";\n";
  out += "    bool seen = false;\n";
  out += "    if (phase != " + phase(ReducePhase::kMergeStore) + ") {\n";
  // kUnroll points' loads in flight per thread, combined in the order r = g, g + groups, ...
  // (one at a time left a full sum at 24% of copy).
  out += "      for (I r0 = g; valid && r0 < n_red; r0 += " + std::to_string(kUnroll) +
         " * groups) {\n";
  std::string setup = decompose(code, red, "r", "rr", "") +
                      "const sf_i64 lin = " + row_major_index(code) + ";\n" +
                      input_offsets(code, body, red, "off", "base", "");
  std::string point =
      body.statements() +
      indent_lines(combine(k, result, k.body->dtype) + "seen = true;\n", "          ");
  out += unrolled_points(k, code, body, pre, red, "r", "r0 + (I)u * groups", "r < n_red", setup,
                         point, true, "        ");
  out += "      }\n";
  out += "    } else {\n";
  out += partial_arrays("p", false);
  out += "#pragma unroll 4\n";
  out += "      for (I q = g; valid && q < in_groups; q += groups) {\n";
  out += "        const I at = o * in_groups + q;\n";
  out += indent_lines(merge_partial(k), "        ");
  out += "      }\n";
  out += "    }\n";
  out += segment_tree(k);
  out += "    if (phase == " + phase(ReducePhase::kPartials) + ") {\n";
  out += partial_arrays("w", true);
  out += "      const I at = o * (groups / seg) + g / seg;\n";
  out += "      wf[at] = facc;\n      wi[at] = iacc;\n      ws[at] = seen ? 1 : 0;\n";
  out += "      continue;\n";
  out += "    }\n";
  out += "    const sf_i64 lin = 0;\n";
  // As the CPU: an f32 output takes the double accumulator, any other the integer one.
  if (k.output.dtype == DType::kFloat32) {
    out += store(code, k, "(float)facc", DType::kFloat32, body.ordinals(), "    ");
  } else {
    out += store(code, k, "iacc", DType::kInt64, body.ordinals(), "    ");
  }
  out += "  }\n";
  out += kReportError;
  return out;
}

}  // namespace sf::backend::cuda::detail
