// Meta functions for the ops that reduce, scan or order along a dim: argmax, argmin, cumsum,
// sort, argsort, topk, histc, searchsorted. Their output shapes are the input's (or k, or bins);
// the checks are PyTorch's meta registrations' (torch._check: deferred when sizes are unbacked).
#include "engine/base/check.h"
#include "engine/fake/meta/meta_internal.h"
#include "engine/program/schema.h"

namespace sf::fake::detail {

using program::OpKind;

namespace {

// The shape of a reduction over `dim` (every dim when absent), as amax's.
std::vector<SymInt> reduced_shape(const FakeTensor& a, std::optional<int64_t> dim, bool keepdim) {
  std::vector<SymInt> out;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (dim && d != *dim) {
      out.push_back(a.sizes()[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}

Value arg_reduction(MetaContext& ctx, OpKind op, const FakeTensor& a,
                    const std::vector<MetaArg>& args) {
  const std::string name = program::op_name(op);
  if (a.dtype() == DType::kBool) {
    fail(ctx, UserErrorKind::kInvalidProgram,
         name + ": not implemented for bool, got " + a.type_str());
  }
  std::optional<int64_t> dim;
  if (args[1].present) {
    dim = normalize_dim(ctx, args[1].dims[0], a.dim());
    // PyTorch's zero_numel_check_dims: the reduced dim of a tensor with dims must not be empty.
    if (a.dim() > 0) {
      require(ctx, sym_ne(a.sizes()[*dim], 0), UserErrorKind::kIndex,
              name + ": expected reduction dim " + std::to_string(*dim) +
                  " to have non-zero size, got " + a.type_str());
    }
  } else {
    require(ctx, sym_ne(a.numel(), 0), UserErrorKind::kIndex,
            name + ": expected a reduction dim to be given for an empty input " + a.type_str());
  }
  if (a.dim() == 0) dim.reset();  // a 0-dim tensor reduces to a 0-dim index
  return Value::tensor(
      ctx.mode.make_contiguous(DType::kInt64, reduced_shape(a, dim, args[2].flag)));
}

Value topk(MetaContext& ctx, const FakeTensor& a, const std::vector<MetaArg>& args) {
  if (a.dtype() == DType::kBool) {  // PyTorch CPU: "topk does not support bool dtypes"
    fail(ctx, UserErrorKind::kInvalidProgram,
         "topk: not implemented for bool, got " + a.type_str());
  }
  if (!is_scalar(args[1].value) || scalar_dtype(args[1].value) != DType::kInt64) {
    fail(ctx, UserErrorKind::kInvalidProgram, "topk: k must be an int");
  }
  SymInt k = args[1].value.as_int();
  int64_t d = normalize_dim(ctx, args[2].dims[0], a.dim());
  SymInt slice = a.dim() == 0 ? SymInt(1) : a.sizes()[d];
  require(ctx, sym_ge(k, 0), UserErrorKind::kIndex, "topk: k " + k.str() + " must be >= 0");
  require(ctx, sym_le(k, slice), UserErrorKind::kIndex,
          "topk: k " + k.str() + " is out of range for dim " + std::to_string(d) + " of " +
              a.type_str());
  std::vector<SymInt> out = a.sizes();
  if (!out.empty()) out[d] = k;
  return Value::tuple({Value::tensor(ctx.mode.make_contiguous(a.dtype(), out)),
                       Value::tensor(ctx.mode.make_contiguous(DType::kInt64, out))});
}

Value histc(MetaContext& ctx, const FakeTensor& a, const std::vector<MetaArg>& args) {
  if (a.dtype() != DType::kFloat32) {
    fail(ctx, UserErrorKind::kInvalidProgram, "histc: input must be f32, got " + a.type_str());
  }
  if (!is_scalar(args[1].value) || scalar_dtype(args[1].value) != DType::kInt64) {
    fail(ctx, UserErrorKind::kInvalidProgram, "histc: bins must be an int");
  }
  // An int parameter: a symbolic count is specialized (a guard), as Dynamo does.
  int64_t bins = ctx.env().guard_int(args[1].value.as_int());
  if (bins <= 0) {
    fail(ctx, UserErrorKind::kValue, "histc: bins must be > 0, got " + std::to_string(bins));
  }
  for (size_t i : {2, 3}) {
    if (!is_scalar(args[i].value)) {
      fail(ctx, UserErrorKind::kInvalidProgram, "histc: min and max must be numbers");
    }
  }
  return Value::tensor(ctx.mode.make_contiguous(DType::kFloat32, {SymInt(bins)}));
}

Value searchsorted(MetaContext& ctx, const std::vector<MetaArg>& args) {
  const FakeTensor& seq = tensor_arg(ctx, args[0], "sorted_sequence");
  const FakeTensor& values = tensor_arg(ctx, args[1], "values");
  if (seq.dtype() != values.dtype() || seq.dtype() == DType::kBool) {
    fail(ctx, UserErrorKind::kInvalidProgram,
         "searchsorted: sorted_sequence and values must have the same f32 or i64 dtype, got " +
             seq.type_str() + " and " + values.type_str());
  }
  if (seq.dim() == 0) {
    fail(ctx, UserErrorKind::kShape, "searchsorted: sorted_sequence must have a dim");
  }
  if (seq.dim() != 1) {  // N-D: one sorted row per leading index of the values
    if (seq.dim() != values.dim()) {
      fail(ctx, UserErrorKind::kShape,
           "searchsorted: a sorted_sequence of several dims must have the values' rank: " +
               seq.type_str() + " vs " + values.type_str());
    }
    for (int64_t d = 0; d + 1 < seq.dim(); ++d) {
      if (seq.sizes()[d].same_as(values.sizes()[d])) continue;
      require(ctx, sym_eq(seq.sizes()[d], values.sizes()[d]), UserErrorKind::kShape,
              "searchsorted: the leading dims of sorted_sequence " + seq.type_str() +
                  " and values " + values.type_str() + " must match");
    }
  }
  return Value::tensor(ctx.mode.make_contiguous(DType::kInt64, values.sizes()));
}

}  // namespace

Value meta_sorting(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
  if (op == OpKind::kSearchsorted) return searchsorted(ctx, args);
  const FakeTensor& a = tensor_arg(ctx, args[0], "a");
  switch (op) {
    case OpKind::kArgmax:
    case OpKind::kArgmin:
      return arg_reduction(ctx, op, a, args);
    case OpKind::kCumsum: {
      normalize_dim(ctx, args[1].dims[0], a.dim());
      DType dtype = program::result_dtype(program::schema(op).dtype_rule, a.dtype());
      return Value::tensor(ctx.mode.make_contiguous(dtype, a.sizes()));
    }
    case OpKind::kSort:
    case OpKind::kArgsort: {
      normalize_dim(ctx, args[1].dims[0], a.dim());
      Value indices = Value::tensor(ctx.mode.make_contiguous(DType::kInt64, a.sizes()));
      if (op == OpKind::kArgsort) return indices;
      return Value::tuple({Value::tensor(ctx.mode.make_contiguous(a.dtype(), a.sizes())), indices});
    }
    case OpKind::kTopk:
      return topk(ctx, a, args);
    case OpKind::kHistc:
      return histc(ctx, a, args);
    default:
      break;
  }
  SF_UNREACHABLE() << program::op_name(op) << " is not a sorting op";
}

}  // namespace sf::fake::detail
