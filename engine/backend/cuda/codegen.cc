// Kernel assembly: the parameter block and entry points around the loops of a pointwise kernel (a
// grid-stride loop, rows of the last dim, or shared-memory tiles for transposed reads) or of a
// reduction (codegen_reduction.cc), with the body from codegen_expr.cc.
#include "engine/backend/cuda/codegen.h"

#include "engine/backend/cuda/codegen_expr.h"
#include "engine/backend/cuda/codegen_loops.h"
#include "engine/base/check.h"
#include "engine/base/errors.h"

namespace sf::backend::cuda {

namespace {

using detail::BodyEmitter;
using detail::decompose;
using detail::indent_lines;
using detail::input_offsets;
using detail::islot;
using detail::kLocalError;
using detail::kReportError;
using detail::offset_expr;
using detail::preloadable;
using detail::slot;
using detail::store;
using detail::unrolled_points;
using lower::Kernel;
using program::DType;

bool is_literal(const ExprRef& e, int64_t value) {
  return e->kind() == sym::ExprKind::kInteger && e->int_value() == value;
}

// The first dim d < last along which an input has the literal stride 1 and its last dim does
// not have a literal 0 or 1 (a transposed read), or -1.
int find_tile_dim(const Kernel& k) {
  const int last = static_cast<int>(k.sizes.size()) - 1;
  for (int d = 0; d < last; ++d) {
    for (const lower::Access& a : k.inputs) {
      // An input the kernel also writes is read where it is written, never through a tile.
      if (a.buffer == k.output.buffer) continue;
      if (is_literal(a.strides[d], 1) && !is_literal(a.strides[last], 0) &&
          !is_literal(a.strides[last], 1)) {
        return d;
      }
    }
  }
  return -1;
}

// The tiled path (v[kTiledSlot]): blocks stride over kTileT x kTileL tiles of (t, last) times the
// other dims. Threads first take the tile's points with threadIdx along t (the transposed input's
// contiguous dim: coalesced reads) and keep each value in shared memory, then write them with
// threadIdx along the last dim (coalesced writes). (32 x 32 tiles, four points per thread, left
// a transposing copy at 67% of copy on an H200.) Every point is visited once with its own `lin`,
// so errors rank as on the other paths. The tile loop is uniform across a block (barriers).
std::string tiled_body(const Kernel& k, KernelCode& code, const std::vector<bool>& pre) {
  const int t = code.tile_dim, last = code.rank - 1;
  const std::string tt = "j" + std::to_string(t), tl = "j" + std::to_string(last);
  const std::string et = std::to_string(kTileT), el = std::to_string(kTileL);
  std::vector<int> others, all;
  for (int d = 0; d < code.rank; ++d) {
    all.push_back(d);
    if (d != t && d != last) others.push_back(d);
  }
  // A second emission of the same body: the same slots and ordinals (collect() ran once).
  BodyEmitter body(k, code, "lin", "          ");
  body.preload(pre, "[u]");
  std::string result = body.emit(*k.body);
  const std::string value = detail::storage_value(k, result, k.body->dtype);
  const std::string lin = detail::row_major_index(code);
  const std::string size_t_ = islot(code.size_slot(t)), size_l = islot(code.size_slot(last));
  std::string out;
  // [last][t], a row padded by one so that a warp reading along last hits distinct banks.
  out += "    __shared__ " + std::string(detail::storage_type(k.output.dtype)) + " sf_tile[" + el +
         "][" + et + " + 1];\n";
  out += "    const I tiles_t = (" + size_t_ + " + " + et + " - 1) / " + et + ";\n";
  out += "    const I tiles_l = (" + size_l + " + " + el + " - 1) / " + el + ";\n";
  out += "    const I n_tiles = n / (" + size_t_ + " * " + size_l + ") * tiles_t * tiles_l;\n";
  out += "    const I tx = (I)threadIdx.x % 32, ty = (I)threadIdx.x / 32;\n";
  out += "    for (I tile = (I)blockIdx.x; tile < n_tiles; tile += (I)gridDim.x) {\n";
  out += "      I trest = tile;\n";
  out += "      const I t_l = trest % tiles_l;\n      trest /= tiles_l;\n";
  out += "      const I t_t = trest % tiles_t;\n      trest /= tiles_t;\n";
  out += decompose(code, others, "trest", "rest", "      ");
  out += input_offsets(code, body, others, "tile_off", "", "      ");
  // Reads: point u of a thread is (t: tx, last: ty + 8u) within the tile.
  std::string setup = "const I " + tt + " = t_t * " + et + " + tx;\nconst I " + tl + " = t_l * " +
                      el + " + tk;\nconst sf_i64 lin = " + lin + ";\n" +
                      input_offsets(code, body, {t, last}, "off", "tile_off", "");
  std::string point =
      body.statements() + "          sf_tile[" + tl + " - t_l * " + el + "][tx] = " + value + ";\n";
  out += unrolled_points(
      k, code, body, pre, {t, last}, "tk", "ty + (I)u * 8",
      "t_t * " + et + " + tx < " + size_t_ + " && t_l * " + el + " + tk < " + size_l, setup, point,
      true, "      ", kTilePoints);
  out += "      __syncthreads();\n";
  // Writes: point u of a thread is (t: ty + 8 (u / 2), last: tx + 32 (u % 2)).
  out += "#pragma unroll\n";
  out += "      for (int u = 0; u < " + std::to_string(kTilePoints) + "; ++u) {\n";
  out += "        const I lt = ty + (I)(u / 2) * 8, ll = tx + (I)(u % 2) * 32;\n";
  out += "        const I " + tt + " = t_t * " + et + " + lt;\n";
  out += "        const I " + tl + " = t_l * " + el + " + ll;\n";
  out += "        if (" + tt + " >= " + size_t_ + " || " + tl + " >= " + size_l + ") continue;\n";
  out += "        const sf_i64 lin = " + lin + ";\n";
  out += "        const I po = " +
         offset_expr(code, code.num_inputs, all, islot(code.offset_slot(code.num_inputs))) + ";\n";
  // The tile holds stored values already: a store of the output's own dtype converts nothing.
  out += store(code, k, "sf_tile[ll][lt]", k.output.dtype, body.ordinals(), "        ");
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
  std::string body = reduction ? detail::reduction_body(k, code) : pointwise_body(k, code);
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
  if (reduction) src += "  char* partials;\n";
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
