// Extern kernels of the CUDA backend: each densifies its inputs on the device, calls the CUB
// routines of cuda_externs.cu, reads back only the size it must report (or item's value), and
// raises the user errors eager raises, with eager's messages. Externs without a device
// implementation run eager's on the host (run_on_host).
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cuda/cuda_backend_internal.h"
#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/eager/tensor_util.h"
#include "engine/program/op_cases.h"
#include "engine/program/schema.h"

namespace sf::backend::cuda {

namespace {

namespace ei = eager::internal;
using ei::shape_str;

constexpr int64_t kMaxItems = (int64_t{1} << 31) - 1;  // CUB's int item counts

[[noreturn]] void fail(const lower::Extern& e, UserErrorKind kind, const std::string& msg) {
  throw_user_error(kind, std::string(program::op_name(e.op)) + ": " + msg);
}

int64_t product(const std::vector<int64_t>& s, size_t from = 0, size_t to = SIZE_MAX) {
  int64_t n = 1;
  for (size_t d = from; d < s.size() && d < to; ++d) n *= s[d];
  return n;
}

// `l` viewed with broadcast strides over `shape` (aligned at the trailing dims).
ResolvedLayout broadcast_to(const ResolvedLayout& l, const std::vector<int64_t>& shape) {
  ResolvedLayout r = l;
  r.sizes = shape;
  r.strides.assign(shape.size(), 0);
  size_t lead = shape.size() - l.sizes.size();
  for (size_t d = 0; d < l.sizes.size(); ++d) {
    r.strides[lead + d] = l.sizes[d] == 1 && shape[lead + d] != 1 ? 0 : l.strides[d];
  }
  return r;
}

// Arena memory owned for the duration of one extern.
struct Owned {
  DeviceArena& arena;
  void* p = nullptr;
  ~Owned() { arena.release(p); }
};

}  // namespace

void CudaBackend::user_error(const lower::Extern& e, UserErrorKind kind, const std::string& msg) {
  if (unchecked_launches_) check_device_error();  // an earlier kernel's error comes first
  fail(e, kind, msg);
}

void CudaBackend::check_numel(const lower::Extern& e, const std::vector<int64_t>& shape) {
  try {
    ei::checked_numel(ei::Call(e.op, {}), shape);
  } catch (const UserError&) {
    if (unchecked_launches_) check_device_error();  // an earlier kernel's error comes first
    throw;
  }
}

ExternOutputs CudaBackend::run_extern(const lower::Plan&, const lower::Extern& e,
                                      const std::vector<ResolvedLayout>& in,
                                      const SymbolEnv& sigma) {
  SF_CHECK(!in.empty()) << e.name << " has no inputs";
  for (const ResolvedLayout& l : in) {
    if (l.numel() > kMaxItems) {
      user_error(
          e, UserErrorKind::kTooComplex,
          "an input of " + std::to_string(l.numel()) + " elements is beyond the CUDA extern limit");
    }
  }
  // One layout per tensor argument; tolerate a plan that lists a repeated tensor once.
  const ResolvedLayout& second = in.size() > 1 ? in[1] : in[0];
  switch (e.op) {
    case program::OpKind::kItem:
      return run_item(e, in[0]);
    case program::OpKind::kNonzero:
      return run_nonzero(e, in[0]);
    case program::OpKind::kIndex:
      return run_index(e, in[0], second);
    case program::OpKind::kMaskedSelect:
      return run_masked_select(e, in[0], second);
    case program::OpKind::kUnique:
      return run_unique(e, in[0]);
    case program::OpKind::kRepeatInterleave:  // output_size (a symbolic int): on the host
      if (e.args.size() > 3 && e.args[3].kind != lower::ExternArg::Kind::kNone) {
        return run_on_host(e, in, sigma);
      }
      return run_repeat_interleave(e, in);
    case program::OpKind::kTolist:  // expanded into select + item by the tracer
      SF_CHECK(false) << "no CUDA extern for " << e.name;
    case program::OpKind::kUniqueConsecutive:
    case program::OpKind::kUniqueDim:
    case program::OpKind::kArgwhere:
    case program::OpKind::kBincount:
#define SF_OP SF_NO_UNBACKED_CASE
#include "engine/program/ops.def"
      // Every other extern (sort, topk, cumsum, histc, scatter_add, index_add, searchsorted,
      // one_hot, index_put_ and these data-dependent ops) has no device implementation yet: it
      // runs on the host.
      return run_on_host(e, in, sigma);
  }
  SF_UNREACHABLE();
}

// The host fallback: inputs downloaded (after any earlier kernel's error is raised), eager's
// implementation run, outputs uploaded into the buffers the extern allocates.
ExternOutputs CudaBackend::run_on_host(const lower::Extern& e,
                                       const std::vector<ResolvedLayout>& in,
                                       const SymbolEnv& sigma) {
  std::vector<program::HostTensor> host;
  for (const ResolvedLayout& l : in) host.push_back(download(l));
  return cpu::run_eager_extern(
      e, std::move(host), sigma,
      [&](int buffer, const program::HostTensor& t) { upload_input(buffer, t); });
}

ExternOutputs CudaBackend::run_item(const lower::Extern& e, const ResolvedLayout& l) {
  if (l.numel() != 1) {
    user_error(e, UserErrorKind::kShape,
               "a tensor with " + std::to_string(l.numel()) +
                   " elements cannot be converted to a scalar (shape " + shape_str(l.sizes) + ")");
  }
  Dense d(*mem_);
  densify(l, d);
  ExternOutputs out;
  const Driver& drv = Driver::get();
  auto copy = [&](void* dst, size_t bytes) {
    drv.check(drv.api().memcpy_dtoh(dst, reinterpret_cast<CUdeviceptr>(d.ptr), bytes),
              "cuMemcpyDtoH(item)");
  };
  switch (l.dtype) {
    case DType::kBool: {
      uint8_t b = 0;
      copy(&b, 1);
      out.scalar = sym::Concrete::of_bool(b != 0);
      break;
    }
    case DType::kInt64: {
      int64_t v = 0;
      copy(&v, 8);
      out.scalar = sym::Concrete::of_int(v);
      break;
    }
    case DType::kFloat32: {
      float f = 0;
      copy(&f, 4);
      out.scalar = sym::Concrete::of_float(f);
      break;
    }
  }
  // The value is garbage if an earlier kernel failed: that kernel's error comes first.
  if (unchecked_launches_) check_device_error();
  return out;
}

ExternOutputs CudaBackend::run_nonzero(const lower::Extern& e, const ResolvedLayout& l) {
  Dense x(*mem_);
  densify(l, x);
  Compaction c = count_truthy(x.ptr, elem_type(x.dtype), x.numel, *mem_);
  Owned own{*mem_, c.tile_ends};
  if (unchecked_launches_) check_device_error();
  int64_t count = c.count;
  int64_t rank = static_cast<int64_t>(l.sizes.size());
  check_numel(e, {count, rank});
  void* out = mem_->alloc(count * rank * sizeof(int64_t));
  set_output(e.outputs.at(0), DType::kInt64, count * rank, out);
  write_nonzero(c, x.ptr, elem_type(x.dtype), x.numel, l.sizes, static_cast<int64_t*>(out));
  return ExternOutputs{{{count, rank}}, std::nullopt};
}

ExternOutputs CudaBackend::run_index(const lower::Extern& e, const ResolvedLayout& a,
                                     const ResolvedLayout& mask) {
  size_t mrank = mask.sizes.size();
  bool leading =
      mrank <= a.sizes.size() && std::equal(mask.sizes.begin(), mask.sizes.end(), a.sizes.begin());
  if (mask.dtype != DType::kBool)
    user_error(e, UserErrorKind::kInvalidProgram, "mask must be a bool tensor");
  if (!leading) {
    user_error(e, UserErrorKind::kShape,
               "mask shape " + shape_str(mask.sizes) +
                   " does not match the leading dims of the indexed shape " + shape_str(a.sizes));
  }
  Dense m(*mem_), x(*mem_);
  densify(mask, m);
  densify(a, x);
  int32_t* idx = nullptr;
  int64_t count = select_truthy(m.ptr, ElemType::kBool, m.numel, *mem_, &idx);
  Owned own{*mem_, idx};
  if (unchecked_launches_) check_device_error();
  std::vector<int64_t> shape{count};
  shape.insert(shape.end(), a.sizes.begin() + mrank, a.sizes.end());
  check_numel(e, shape);
  int64_t inner = product(a.sizes, mrank), numel = count * inner;
  size_t elem = elem_size(elem_type(a.dtype));
  void* out = mem_->alloc(numel * elem);
  set_output(e.outputs.at(0), a.dtype, numel, out);
  gather_rows(x.ptr, elem, 1, m.numel, idx, count, inner, out);
  return ExternOutputs{{shape}, std::nullopt};
}

ExternOutputs CudaBackend::run_masked_select(const lower::Extern& e, const ResolvedLayout& a,
                                             const ResolvedLayout& mask) {
  if (mask.dtype != DType::kBool)
    user_error(e, UserErrorKind::kInvalidProgram, "mask must be a bool tensor");
  std::vector<int64_t> shape;
  try {
    shape = ei::broadcast_shapes(ei::Call(e.op, {}), {a.sizes, mask.sizes});
  } catch (const UserError&) {
    if (unchecked_launches_) check_device_error();  // an earlier kernel's error comes first
    throw;
  }
  if (product(shape) > kMaxItems)
    user_error(e, UserErrorKind::kTooComplex, "broadcast shape too large");
  Dense m(*mem_), x(*mem_);
  densify(broadcast_to(mask, shape), m);
  densify(broadcast_to(a, shape), x);
  Compaction c = count_truthy(m.ptr, ElemType::kBool, m.numel, *mem_);
  Owned own{*mem_, c.tile_ends};
  int64_t count = c.count;
  if (unchecked_launches_) check_device_error();
  check_numel(e, {count});
  size_t elem = elem_size(elem_type(a.dtype));
  void* out = mem_->alloc(count * elem);
  set_output(e.outputs.at(0), a.dtype, count, out);
  write_selected(c, m.ptr, m.numel, x.ptr, elem, out);
  return ExternOutputs{{{count}}, std::nullopt};
}

ExternOutputs CudaBackend::run_unique(const lower::Extern& e, const ResolvedLayout& a) {
  Dense x(*mem_);
  densify(a, x);
  int32_t *first = nullptr, *counts = nullptr;
  int64_t runs = unique_runs(x.ptr, elem_type(a.dtype), x.numel, *mem_, &first, &counts);
  Owned own_first{*mem_, first}, own_counts{*mem_, counts};
  if (unchecked_launches_) check_device_error();
  check_numel(e, {runs});
  size_t elem = elem_size(elem_type(a.dtype));
  void* values = mem_->alloc(runs * elem);
  set_output(e.outputs.at(0), a.dtype, runs, values);
  gather_rows(x.ptr, elem, 1, x.numel, first, runs, 1, values);
  ExternOutputs out{{{runs}}, std::nullopt};
  if (e.flag_arg(1)) {  // return_counts
    void* c = mem_->alloc(runs * sizeof(int64_t));
    set_output(e.outputs.at(1), DType::kInt64, runs, c);
    widen(counts, runs, static_cast<int64_t*>(c));
    out.shapes.push_back({runs});
  }
  return out;
}

ExternOutputs CudaBackend::run_repeat_interleave(const lower::Extern& e,
                                                 const std::vector<ResolvedLayout>& in) {
  // repeat_interleave(repeats) is the indices form; (a, repeats, dim) repeats a's rows.
  const bool repeats_only = e.args.at(1).kind == lower::ExternArg::Kind::kNone;
  const ResolvedLayout& r = repeats_only ? in[0] : (in.size() > 1 ? in[1] : in[0]);
  if (r.dtype != DType::kInt64)
    user_error(e, UserErrorKind::kInvalidProgram, "repeats must be an i64 tensor");
  if (r.sizes.size() != 1) {
    user_error(e, UserErrorKind::kShape, "repeats must be 1-D, got shape " + shape_str(r.sizes));
  }
  Dense rep(*mem_);
  densify(r, rep);
  const int64_t* reps = static_cast<const int64_t*>(rep.ptr);
  RepeatsSummary sum = summarize_repeats(reps, rep.numel, *mem_);
  if (unchecked_launches_) check_device_error();
  if (sum.min < 0) {  // the error path only: read the counts back for eager's message
    program::HostTensor host = download(r);
    for (int64_t k = 0; k < host.numel(); ++k) {
      if (host.ints[k] >= 0) continue;
      user_error(e, UserErrorKind::kValue,
                 "repeats must be non-negative, got " + std::to_string(host.ints[k]) +
                     " at index " + std::to_string(k) + " of " + host.str());
    }
  }
  std::vector<int64_t> src_sizes;  // the input as eager sees it: flattened without a dim
  int64_t d = 0;
  if (!repeats_only) {
    const ResolvedLayout& a = in[0];
    std::optional<int64_t> dim = e.int_arg(2);
    if (dim && *dim < 0) *dim += static_cast<int64_t>(a.sizes.size());
    src_sizes = dim ? a.sizes : std::vector<int64_t>{a.numel()};
    d = dim ? *dim : 0;
    SF_CHECK(d < static_cast<int64_t>(src_sizes.size())) << e.name << ": dim out of range";
    if (rep.numel != src_sizes[d]) {
      user_error(e, UserErrorKind::kShape,
                 "repeats has " + std::to_string(rep.numel) + " entries but the input has size " +
                     std::to_string(src_sizes[d]) + " in dim " + std::to_string(d) + " (shape " +
                     shape_str(src_sizes) + ")");
    }
  }
  check_numel(e, {sum.total});
  int64_t total = sum.total;
  int32_t* rows = static_cast<int32_t*>(mem_->alloc(total * sizeof(int32_t)));
  Owned own{*mem_, rows};
  expand_repeats(reps, rep.numel, total, *mem_, rows);
  if (repeats_only) {
    void* out = mem_->alloc(total * sizeof(int64_t));
    set_output(e.outputs.at(0), DType::kInt64, total, out);
    widen(rows, total, static_cast<int64_t*>(out));
    return ExternOutputs{{{total}}, std::nullopt};
  }
  std::vector<int64_t> shape = src_sizes;
  shape[d] = total;
  check_numel(e, shape);
  Dense x(*mem_);
  densify(in[0], x);
  size_t elem = elem_size(elem_type(in[0].dtype));
  int64_t outer = product(src_sizes, 0, d), inner = product(src_sizes, d + 1);
  void* out = mem_->alloc(outer * total * inner * elem);
  set_output(e.outputs.at(0), in[0].dtype, outer * total * inner, out);
  gather_rows(x.ptr, elem, outer, src_sizes[d], rows, total, inner, out);
  return ExternOutputs{{shape}, std::nullopt};
}

}  // namespace sf::backend::cuda
