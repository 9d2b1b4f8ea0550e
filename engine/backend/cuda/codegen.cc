// Kernel assembly: the parameter block, the index decomposition (a grid-stride loop over the
// iteration space for pointwise kernels; for reductions one or several threads per output element,
// each looping over its share of the reduced points, see ReducePhase) and the store, around the
// body from codegen_expr.cc.
#include "engine/backend/cuda/codegen.h"

#include "engine/backend/cuda/codegen_expr.h"
#include "engine/base/check.h"
#include "engine/base/errors.h"

namespace sf::backend::cuda {

namespace {

using detail::BodyEmitter;
using lower::Kernel;
using lower::ReduceOp;
using program::DType;

std::string slot(int s) { return "a.v[" + std::to_string(s) + "]"; }
std::string islot(int s) { return "(I)" + slot(s); }

// `I j<d> = ...` for `dims` (row-major: the last one varies fastest) from the linear index `from`.
std::string decompose(const KernelCode& code, const std::vector<int>& dims, const std::string& from,
                      const std::string& rest, const std::string& indent) {
  if (dims.empty()) return "";
  std::string out = indent + "I " + rest + " = " + from + ";\n";
  for (size_t k = dims.size(); k-- > 1;) {
    std::string size = islot(code.size_slot(dims[k]));
    std::string j = "j" + std::to_string(dims[k]);
    out += indent + "const I " + j + " = " + rest + " % " + size + ";\n";
    out += indent + rest + " /= " + size + ";\n";
  }
  out += indent + "const I j" + std::to_string(dims[0]) + " = " + rest + ";\n";
  return out;
}

// Σ j_d * stride over `dims` for access `acc`, added to `base`.
std::string offset_expr(const KernelCode& code, int acc, const std::vector<int>& dims,
                        const std::string& base) {
  std::string out = base;
  for (int d : dims) out += " + j" + std::to_string(d) + " * " + islot(code.stride_slot(acc, d));
  return out;
}

// `const I <name><in> = <base> + sum(j_d * stride)` over `dims` for each input the body reads;
// the base is `<from><in>`, or the access's offset parameter when `from` is empty.
std::string input_offsets(const KernelCode& code, const BodyEmitter& body,
                          const std::vector<int>& dims, const std::string& name,
                          const std::string& from, const std::string& indent) {
  std::string out;
  for (int in = 0; in < code.num_inputs; ++in) {
    if (!body.used_inputs()[in]) continue;
    std::string base = from.empty() ? islot(code.offset_slot(in)) : from + std::to_string(in);
    out += indent + "const I " + name + std::to_string(in) + " = " +
           offset_expr(code, in, dims, base) + ";\n";
  }
  return out;
}

std::string store(const KernelCode& code, const Kernel& k, const std::string& value, DType from,
                  int ordinal, const std::string& indent) {
  std::string numel = slot(code.numel_slot(code.num_inputs));
  std::string v = detail::convert(value, from, k.output.dtype);
  if (k.output.dtype == DType::kBool) v = "(unsigned char)(" + v + " ? 1 : 0)";
  return indent + "if ((sf_i64)po >= 0 && (sf_i64)po < " + numel + ") {\n" + indent +
         "  a.out[po] = " + v + ";\n" + indent + "} else {\n" + indent + "  sf_note(le, " +
         std::to_string(static_cast<int>(DeviceError::kBadWrite)) + ", 0, sf_key(" +
         std::to_string(ordinal) + ", lin), (sf_i64)po);\n" + indent + "}\n";
}

std::string indent_lines(const std::string& s, const std::string& indent) {
  std::string out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    out += indent + s.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

// Errors are noted per thread (the smallest key wins) and reported once, after the loop, so the
// loop body has no calls and its loads can be scheduled freely.
const char* kLocalError = "  SfLocalError le = {0, 0, 0, 0};\n";
const char* kReportError =
    "  if (le.code != 0) sf_fail(a.err, seq, le.code, le.aux, le.key, le.value);\n";

// kUnroll points per thread per loop step: their plain loads are all issued before any point's
// body and store, so each thread has kUnroll loads per input in flight (one point at a time left
// a 1-D add at 72% of copy and a broadcast add at 52% on an H200: loads could not pass the
// previous point's store or its error branches).

// Inputs whose plain loads are issued ahead: every input the body reads, but one the kernel also
// writes (a load must not pass an earlier point's store to the same buffer).
std::vector<bool> preloadable(const Kernel& k) {
  std::vector<bool> out;
  for (const lower::Access& a : k.inputs) out.push_back(a.buffer != k.output.buffer);
  return out;
}

// Two unrolled passes over a thread's kUnroll points u = 0..kUnroll-1 (`point_u` is point u's
// loop variable expression, `live` whether it exists): the first runs `setup` (which defines
// `lin`, the j of each dim in `varying`, the offset `off<in>` of each input the body reads and,
// unless `no_output`, `po`), saves them and loads the preloaded inputs; the second restores them
// and runs `point`.
std::string unrolled_points(const Kernel& k, const KernelCode& code, const BodyEmitter& body,
                            const std::vector<bool>& pre, const std::vector<int>& varying,
                            const std::string& point_var, const std::string& point_u,
                            const std::string& live, const std::string& setup,
                            const std::string& point, bool no_output, const std::string& indent) {
  const std::string u = std::to_string(kUnroll);
  std::string decl, save, restore, loads;
  decl += indent + "sf_i64 ll[" + u + "];\n" + indent + "bool live[" + u + "];\n";
  save += "ll[u] = lin;\n";
  restore += "const sf_i64 lin = ll[u];\n";
  for (int d : varying) {
    std::string j = "j" + std::to_string(d);
    decl += indent + "I " + j + "_[" + u + "];\n";
    save += j + "_[u] = " + j + ";\n";
    restore += "const I " + j + " = " + j + "_[u];\n";
  }
  if (!no_output) {
    decl += indent + "I po_[" + u + "];\n";
    save += "po_[u] = po;\n";
    restore += "const I po = po_[u];\n";
  }
  for (int in = 0; in < code.num_inputs; ++in) {
    if (!body.used_inputs()[in]) continue;
    std::string i = std::to_string(in), off = "off" + i;
    decl += indent + "I " + off + "_[" + u + "];\n";
    save += off + "_[u] = " + off + ";\n";
    restore += "const I " + off + " = " + off + "_[u];\n";
    int ord = body.plain_load_ordinal(in);
    if (!pre[in] || ord < 0) continue;
    std::string type = detail::storage_type(k.inputs[in].dtype);
    decl += indent + type + " pre" + i + "[" + u + "];\n";
    loads += "{\n  const bool inb = " + off + " >= 0 && (sf_i64)" + off + " < " +
             slot(code.numel_slot(in)) + ";\n  if (!inb) sf_note(le, " +
             std::to_string(static_cast<int>(DeviceError::kBadRead)) + ", " + i + ", sf_key(" +
             std::to_string(ord) + ", lin), (sf_i64)" + off + ");\n  pre" + i +
             "[u] = __ldg(&a.in" + i + "[inb ? " + off + " : 0]);\n}\n";
  }
  std::string inner = indent + "  ";
  std::string out = decl;
  out += "#pragma unroll\n";
  out += indent + "for (int u = 0; u < " + u + "; ++u) {\n";
  out += inner + "const I " + point_var + " = " + point_u + ";\n";
  out += inner + "live[u] = " + live + ";\n";
  out += inner + "if (live[u]) {\n";
  out += indent_lines(setup + save + loads, inner + "  ");
  out += inner + "}\n";
  out += indent + "}\n";
  out += "#pragma unroll\n";
  out += indent + "for (int u = 0; u < " + u + "; ++u) {\n";
  out += inner + "if (!live[u]) continue;\n";
  out += indent_lines(restore, inner);
  out += point;
  out += indent + "}\n";
  return out;
}

bool is_literal(const ExprRef& e, int64_t value) {
  return e->kind() == sym::ExprKind::kInteger && e->int_value() == value;
}

// The first dim d < last along which an input has the literal stride 1 and its last dim does
// not have a literal 0 or 1 (a transposed read), or -1.
int find_tile_dim(const Kernel& k) {
  const int last = static_cast<int>(k.sizes.size()) - 1;
  for (int d = 0; d < last; ++d) {
    for (const lower::Access& a : k.inputs) {
      if (is_literal(a.strides[d], 1) && !is_literal(a.strides[last], 0) &&
          !is_literal(a.strides[last], 1)) {
        return d;
      }
    }
  }
  return -1;
}

// The tiled path (v[kTiledSlot]): blocks stride over kTile x kTile tiles of (t, last) times the
// other dims. Threads first take the tile's points with threadIdx along t (the transposed input's
// contiguous dim: coalesced reads) and keep each value in shared memory, then write them with
// threadIdx along the last dim (coalesced writes). Every point is visited once with its own `lin`,
// so errors rank as on the other paths. The tile loop is uniform across a block (barriers).
std::string tiled_body(const Kernel& k, KernelCode& code, const std::vector<bool>& pre) {
  const int t = code.tile_dim, last = code.rank - 1;
  const std::string tt = "j" + std::to_string(t), tl = "j" + std::to_string(last);
  const std::string edge = std::to_string(kTile), rows = std::to_string(kBlockThreads / kTile);
  std::vector<int> others, all;
  for (int d = 0; d < code.rank; ++d) {
    all.push_back(d);
    if (d != t && d != last) others.push_back(d);
  }
  // A second emission of the same body: the same slots and ordinals (collect() ran once).
  BodyEmitter body(k, code, "lin", "          ");
  body.preload(pre, "[u]");
  std::string result = body.emit(*k.body);
  std::string value = detail::convert(result, k.body->dtype, k.output.dtype);
  if (k.output.dtype == DType::kBool) value = "(unsigned char)(" + value + " ? 1 : 0)";
  std::string lin = "0";
  for (int d : all)
    lin = "(" + lin + ") * " + slot(code.size_slot(d)) + " + (sf_i64)j" + std::to_string(d);
  const std::string size_t_ = islot(code.size_slot(t)), size_l = islot(code.size_slot(last));
  std::string out;
  out += "    __shared__ " + std::string(detail::storage_type(k.output.dtype)) + " sf_tile[" +
         edge + "][" + edge + " + 1];\n";
  out += "    const I tiles_t = (" + size_t_ + " + " + edge + " - 1) / " + edge + ";\n";
  out += "    const I tiles_l = (" + size_l + " + " + edge + " - 1) / " + edge + ";\n";
  out += "    const I n_tiles = n / (" + size_t_ + " * " + size_l + ") * tiles_t * tiles_l;\n";
  out += "    const I tx = (I)threadIdx.x % " + edge + ", ty = (I)threadIdx.x / " + edge + ";\n";
  out += "    for (I tile = (I)blockIdx.x; tile < n_tiles; tile += (I)gridDim.x) {\n";
  out += "      I trest = tile;\n";
  out += "      const I t_l = trest % tiles_l;\n      trest /= tiles_l;\n";
  out += "      const I t_t = trest % tiles_t;\n      trest /= tiles_t;\n";
  out += decompose(code, others, "trest", "rest", "      ");
  out += input_offsets(code, body, others, "tile_off", "", "      ");
  // Reads: point u of a thread is (t: tx, last: ty + rows * u) within the tile.
  std::string setup = "const I " + tt + " = t_t * " + edge + " + tx;\nconst I " + tl + " = t_l * " +
                      edge + " + tk;\nconst sf_i64 lin = " + lin + ";\n" +
                      input_offsets(code, body, {t, last}, "off", "tile_off", "");
  std::string point = body.statements() + "          sf_tile[" + tl + " - t_l * " + edge +
                      "][tx] = " + value + ";\n";
  out += unrolled_points(
      k, code, body, pre, {t, last}, "tk", "ty + (I)u * " + rows,
      "t_t * " + edge + " + tx < " + size_t_ + " && t_l * " + edge + " + tk < " + size_l, setup,
      point, true, "      ");
  out += "      __syncthreads();\n";
  // Writes: point u of a thread is (t: ty + rows * u, last: tx).
  out += "#pragma unroll\n";
  out += "      for (int u = 0; u < " + std::to_string(kUnroll) + "; ++u) {\n";
  out += "        const I " + tt + " = t_t * " + edge + " + ty + (I)u * " + rows + ";\n";
  out += "        const I " + tl + " = t_l * " + edge + " + tx;\n";
  out += "        if (" + tt + " >= " + size_t_ + " || " + tl + " >= " + size_l + ") continue;\n";
  out += "        const sf_i64 lin = " + lin + ";\n";
  out += "        const I po = " +
         offset_expr(code, code.num_inputs, all, islot(code.offset_slot(code.num_inputs))) + ";\n";
  out += "        if ((sf_i64)po >= 0 && (sf_i64)po < " + slot(code.numel_slot(code.num_inputs)) +
         ") {\n";
  out += "          a.out[po] = sf_tile[tx][ty + (I)u * " + rows + "];\n";
  out += "        } else {\n";
  out += "          sf_note(le, " + std::to_string(static_cast<int>(DeviceError::kBadWrite)) +
         ", 0, sf_key(" + std::to_string(body.ordinals()) + ", lin), (sf_i64)po);\n";
  out += "        }\n";
  out += "      }\n";
  out += "      __syncthreads();\n";
  out += "    }\n";
  return out;
}

// A grid-stride loop over every point, or (rank >= 2, v[kRowsSlot]) blocks striding over the rows
// of the last dim and threads over a row's points: the row's index division and offsets once per
// row instead of once per point. Both visit each point once with the same `lin` (the row-major
// index), so errors rank the same.
std::string pointwise_body(const Kernel& k, KernelCode& code) {
  std::vector<int> all, outer;
  for (int d = 0; d < code.rank; ++d) all.push_back(d);
  for (int d = 0; d + 1 < code.rank; ++d) outer.push_back(d);
  const std::vector<bool> pre = preloadable(k);
  BodyEmitter body(k, code, "lin", "      ");
  body.preload(pre, "[u]");
  body.collect(*k.body);
  std::string result = body.emit(*k.body);
  std::string point =
      body.statements() + store(code, k, result, k.body->dtype, body.ordinals(), "      ");
  const std::string u = std::to_string(kUnroll);
  std::string out;
  out += "  const I n = " + islot(KernelCode::kCountSlot) + ";\n";
  out += kLocalError;
  if (code.rank >= 2) code.tile_dim = find_tile_dim(k);
  if (code.tile_dim >= 0) {
    out += "  if (" + slot(KernelCode::kTiledSlot) + " != 0) {\n";
    out += tiled_body(k, code, pre);
    out += "  } else\n";
  }
  if (code.rank >= 2) {
    int last = code.rank - 1;
    std::string jl = "j" + std::to_string(last);
    out += "  if (" + slot(KernelCode::kRowsSlot) + " != 0) {\n";
    out += "    const I row_size = " + islot(code.size_slot(last)) + ";\n";
    out += "    const I n_rows = n / row_size;\n";
    out += "    for (I row = (I)blockIdx.x; row < n_rows; row += (I)gridDim.x) {\n";
    out += decompose(code, outer, "row", "rest", "      ");
    out += input_offsets(code, body, outer, "row_off", "", "      ");
    out += "      const I row_po = " +
           offset_expr(code, code.num_inputs, outer, islot(code.offset_slot(code.num_inputs))) +
           ";\n";
    out +=
        "      for (I jl0 = (I)threadIdx.x; jl0 < row_size; jl0 += " + u + " * (I)blockDim.x) {\n";
    std::string setup = "const sf_i64 lin = (sf_i64)row * (sf_i64)row_size + (sf_i64)" + jl +
                        ";\n" + input_offsets(code, body, {last}, "off", "row_off", "") +
                        "const I po = " + offset_expr(code, code.num_inputs, {last}, "row_po") +
                        ";\n";
    out +=
        unrolled_points(k, code, body, pre, {last}, jl, "jl0 + (I)u * (I)blockDim.x",
                        jl + " < row_size", setup, indent_lines(point, "    "), false, "        ");
    out += "      }\n";
    out += "    }\n";
    out += "  } else {\n";
  }
  out += "  const I step = (I)gridDim.x * (I)blockDim.x;\n";
  out += "  for (I i0 = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; i0 < n; i0 += " + u +
         " * step) {\n";
  std::string setup =
      "const sf_i64 lin = (sf_i64)i;\n" + decompose(code, all, "i", "rest", "") +
      input_offsets(code, body, all, "off", "", "") + "const I po = " +
      offset_expr(code, code.num_inputs, all, islot(code.offset_slot(code.num_inputs))) + ";\n";
  out += unrolled_points(k, code, body, pre, all, "i", "i0 + (I)u * step", "i < n", setup, point,
                         false, "    ");
  out += "  }\n";
  if (code.rank >= 2) out += "  }\n";
  out += kReportError;
  return out;
}

// The CPU reduce loop for one output element, step by step (accumulators, NaN handling).
std::string combine(const Kernel& k, const std::string& v, DType dtype) {
  bool is_float = dtype == DType::kFloat32;
  std::string vi = is_float ? "" : detail::convert(v, dtype, DType::kInt64);
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
      return "iacc = (iacc != 0 || " + detail::convert(v, dtype, DType::kBool) + ") ? 1 : 0;\n";
    case ReduceOp::kAll:
      return "iacc = (iacc != 0 && " + detail::convert(v, dtype, DType::kBool) + ") ? 1 : 0;\n";
  }
  SF_UNREACHABLE();
}

// Merges the partial accumulators at index `at` of `pin` (written by a kPartials or
// kMergePartials launch of the same kernel) into this thread's: the combine step of `reduce` on
// the partial's value, in the accumulator's own type.
std::string merge_partial(const Kernel& k) {
  bool in_float =
      k.body->dtype == DType::kFloat32 && k.reduce != ReduceOp::kAny && k.reduce != ReduceOp::kAll;
  std::string value = in_float ? "pf[at]" : "pi[at]";
  return "if (ps[at]) {\n" +
         indent_lines(combine(k, value, in_float ? DType::kFloat32 : DType::kInt64), "  ") +
         "  seen = true;\n}\n";
}

// Partial accumulators of SfArgs::pin / pout: `capacity` doubles, i64s and seen flags.
std::string partial_arrays(const std::string& name, const std::string& field, bool writable) {
  std::string c = writable ? "" : "const ";
  return "      " + c + "double* " + name + "f = (" + c + "double*)a." + field + ";\n" + "      " +
         c + "sf_i64* " + name + "i = (" + c + "sf_i64*)(a." + field + " + (sf_i64)cap * 8);\n" +
         "      " + c + "unsigned char* " + name + "s = (" + c + "unsigned char*)(a." + field +
         " + (sf_i64)cap * 16);\n";
}

// One thread per (output, group): the kept dims from the output index, then either the body's
// points r = g, g + groups, ... (kDirect, kPartials) or the partials q = g, g + groups, ... of a
// previous launch (kMerge*), then a store (kDirect, kMergeStore) or a partial (the others).
std::string reduction_body(const Kernel& k, KernelCode& code) {
  SF_CHECK(k.reduced.size() == static_cast<size_t>(code.rank)) << k.name << ": reduced flags";
  std::vector<int> kept, red, all;
  for (int d = 0; d < code.rank; ++d) {
    (k.reduced[d] ? red : kept).push_back(d);
    all.push_back(d);
  }
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
  out += "  const I n_threads = n_out * groups;\n";
  out += "  const I step = (I)gridDim.x * (I)blockDim.x;\n";
  out += kLocalError;
  out +=
      "  for (I t = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; t < n_threads; t += step) "
      "{\n";
  out += "    const I o = out_fastest ? t % n_out : t / groups;\n";
  out += "    const I g = out_fastest ? t / n_out : t % groups;\n";
  out += decompose(code, kept, "o", "rest", "    ");
  out += input_offsets(code, body, kept, "base", "", "    ");
  out += "    const I po = " +
         offset_expr(code, code.num_inputs, kept, islot(code.offset_slot(code.num_inputs))) + ";\n";
  out += "    double facc = 0.0;\n";
  out += std::string("    sf_i64 iacc = ") + (k.reduce == ReduceOp::kAll ? "1" : "0") + ";\n";
  out += "    bool seen = false;\n";
  out += "    if (phase <= " + phase(ReducePhase::kPartials) + ") {\n";
  // kUnroll points' loads in flight per thread, combined in the order r = g, g + groups, ...
  // (one at a time left a full sum at 24% of copy).
  out += "      for (I r0 = g; r0 < n_red; r0 += " + std::to_string(kUnroll) + " * groups) {\n";
  // The point's row-major index in the whole iteration space (ranks errors as the CPU does).
  std::string lin = "0";
  for (int d : all)
    lin = "(" + lin + ") * " + slot(code.size_slot(d)) + " + (sf_i64)j" + std::to_string(d);
  std::string setup = decompose(code, red, "r", "rr", "") + "const sf_i64 lin = " + lin + ";\n" +
                      input_offsets(code, body, red, "off", "base", "");
  std::string point =
      body.statements() +
      indent_lines(combine(k, result, k.body->dtype) + "seen = true;\n", "          ");
  out += unrolled_points(k, code, body, pre, red, "r", "r0 + (I)u * groups", "r < n_red", setup,
                         point, true, "        ");
  out += "      }\n";
  out += "    } else {\n";
  out += partial_arrays("p", "pin", false);
  out += "#pragma unroll 4\n";
  out += "      for (I q = g; q < in_groups; q += groups) {\n";
  out += "        const I at = o * in_groups + q;\n";
  out += indent_lines(merge_partial(k), "        ");
  out += "      }\n";
  out += "    }\n";
  out += "    if (phase == " + phase(ReducePhase::kPartials) +
         " || phase == " + phase(ReducePhase::kMergePartials) + ") {\n";
  out += partial_arrays("w", "pout", true);
  out += "      const I at = o * groups + g;\n";
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

}  // namespace

KernelCode generate_kernel(const Kernel& k) {
  KernelCode code;
  code.rank = static_cast<int>(k.sizes.size());
  code.num_inputs = static_cast<int>(k.inputs.size());
  for (const lower::Access& a : k.inputs) {
    SF_CHECK(a.strides.size() == k.sizes.size()) << k.name << ": access rank";
  }
  SF_CHECK(k.output.strides.size() == k.sizes.size()) << k.name << ": output rank";
  bool reduction = k.kind == Kernel::Kind::kReduction;
  code.reduction = reduction;
  std::string body = reduction ? reduction_body(k, code) : pointwise_body(k, code);
  code.values_in_memory = code.args_bytes() > kMaxParamBytes;
  SF_CHECK(code.args_bytes() <= kMaxParamBytes) << k.name << ": too many inputs for SfArgs";
  std::string src;
  src += "// shapefuzz generated kernel: ";
  src +=
      reduction ? std::string("reduction (") + lower::reduce_op_name(k.reduce) + ")" : "pointwise";
  src +=
      ", rank " + std::to_string(code.rank) + ", " + std::to_string(code.num_inputs) + " inputs.\n";
  src += "// Sizes, strides, offsets and scalars are runtime parameters (SfArgs::v).\n";
  src += device_prelude();
  src += "\nstruct SfArgs {\n";
  for (int in = 0; in < code.num_inputs; ++in) {
    src += "  const " + std::string(detail::storage_type(k.inputs[in].dtype)) + "* in" +
           std::to_string(in) + ";\n";
  }
  src += "  " + std::string(detail::storage_type(k.output.dtype)) + "* out;\n";
  src += "  SfError* err;\n";
  if (reduction) src += "  const char* pin;\n  char* pout;\n";
  if (code.values_in_memory) {
    src += "  const sf_i64* v;  // " + std::to_string(code.param_count()) +
           " values in device memory\n};\n\n";
  } else {
    src += "  sf_i64 v[" + std::to_string(code.param_count()) + "];\n};\n\n";
  }
  src += "template <typename I>\n__device__ __forceinline__ void sf_body(const SfArgs& a) {\n";
  src += "  const int seq = (int)" + slot(KernelCode::kSeqSlot) + ";\n";
  src += body;
  src += "}\n\n";
  std::string entry =
      "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(kBlockThreads) + ") ";
  src += entry + kEntry64 + "(const SfArgs a) { sf_body<sf_i64>(a); }\n";
  src += entry + kEntry32 + "(const SfArgs a) { sf_body<int>(a); }\n";
  code.source = std::move(src);
  return code;
}

std::string kernel_source(const Kernel& k) { return generate_kernel(k).source; }

}  // namespace sf::backend::cuda
