// Meta functions for ops whose output shape or value depends on data (spec §4.2): they allocate
// unbacked symbols with the documented ranges and size-likeness, honour the memos (same version
// and epoch only), and return literal 0 for statically empty inputs instead of a symbol.
#include <cstdint>

#include "engine/base/check.h"
#include "engine/base/faults.h"
#include "engine/fake/meta/meta_internal.h"
#include "engine/sym/make.h"

namespace sf::fake::detail {

using program::OpKind;

namespace {

constexpr int64_t kSysMaxsizeMinusOne = INT64_MAX - 1;

bool statically_empty(MetaContext& ctx, const SymInt& numel) {
  return static_bool(ctx, sym_eq(numel, 0)).value_or(false);
}

// The bound spec §4.2 uses: the static numel, or the product of upper bounds when finite.
std::optional<int64_t> numel_bound(MetaContext& ctx, const SymInt& numel) {
  if (auto c = numel.maybe_as_int()) return *c;
  sym::ValueRange r = ctx.env().bound(numel.expr());
  if (fault_on(Fault::kNonzeroBoundTooTight) && r.lo().is_finite()) return r.lo().value();
  if (r.hi().is_finite()) return r.hi().value();
  return std::nullopt;
}

void require_dynamic(MetaContext& ctx, OpKind op) {
  if (!ctx.env().settings().allow_dynamic_output_shape_ops) {
    fail(ctx, UserErrorKind::kUnsupported,
         std::string(program::op_name(op)) +
             " has a data-dependent output shape "
             "(DynamicOutputShapeException)");
  }
}

// nonzero(mask) with the memo, shared by nonzero, boolean indexing and argwhere (`use_memo`
// false: the bug zoo's argwhere that bypasses it).
SymInt nonzero_count(MetaContext& ctx, const FakeTensor& a, bool use_memo = true) {
  if (std::optional<Value> hit =
          use_memo ? ctx.mode.memo_get(a, &FakeTensor::nonzero_memo) : std::nullopt) {
    return hit->as_int();
  }
  SymInt numel = a.numel();
  SymInt n;
  if (statically_empty(ctx, numel)) {
    n = 0;
  } else {
    n = ctx.env().create_unbacked_symint();
    std::optional<int64_t> max = numel_bound(ctx, numel);
    ctx.env().constrain_range_for_size(n.expr(), 0, max.value_or(kSysMaxsizeMinusOne));
  }
  if (use_memo) ctx.mode.memo_set(a, &FakeTensor::nonzero_memo, Value(n));
  return n;
}

// bincount: a 1-D i64 input; its output length max(max(a) + 1, minlength) is data: a fresh
// size-like symbol of at least minlength (PyTorch 2.15 has no fake impl and graph-breaks with
// DynamicOutputShapeException; docs/decisions.md).
Value bincount(MetaContext& ctx, const FakeTensor& a, const std::vector<MetaArg>& args) {
  if (a.dtype() != DType::kInt64 || a.dim() != 1) {
    fail(ctx, UserErrorKind::kInvalidProgram,
         "bincount: the input must be a 1-D i64 tensor, got " + a.type_str());
  }
  DType dtype = DType::kInt64;
  if (args[1].present) {
    const FakeTensor& w = tensor_arg(ctx, args[1], "weights");
    if (w.dtype() != DType::kFloat32) {
      fail(ctx, UserErrorKind::kInvalidProgram,
           "bincount: weights must be f32, got " + w.type_str());
    }
    require(ctx, sym_eq(w.numel(), a.numel()), UserErrorKind::kShape,
            "bincount: weights " + w.type_str() + " must have the input's length " +
                a.sizes()[0].str());
    if (w.dim() != 1) fail(ctx, UserErrorKind::kShape, "bincount: weights must be 1-D");
    dtype = DType::kFloat32;
  }
  if (!is_scalar(args[2].value) || scalar_dtype(args[2].value) != DType::kInt64) {
    fail(ctx, UserErrorKind::kInvalidProgram, "bincount: minlength must be an int");
  }
  // An int parameter: a symbolic minlength is specialized (a guard), as Dynamo does.
  int64_t minlength = ctx.env().guard_int(args[2].value.as_int());
  if (minlength < 0) {
    fail(ctx, UserErrorKind::kValue,
         "bincount: minlength must be >= 0, got " + std::to_string(minlength));
  }
  require_dynamic(ctx, OpKind::kBincount);
  SymInt n;
  if (statically_empty(ctx, a.numel())) {
    n = minlength;
  } else {
    n = ctx.env().create_unbacked_symint();
    ctx.env().constrain_range_for_size(n.expr(), minlength, kSysMaxsizeMinusOne);
  }
  return Value::tensor(ctx.mode.make_contiguous(dtype, {n}));
}

// one_hot: i64 classes, num_classes given (a literal or a symbolic int). Without it (-1) the
// class count is data: Dynamo refuses that (PyTorch 2.15: "Explicitly set the num_classes
// param"), so the trace does too rather than allocating a symbol PyTorch never makes.
Value one_hot(MetaContext& ctx, const FakeTensor& a, const std::vector<MetaArg>& args) {
  if (a.dtype() != DType::kInt64) {
    fail(ctx, UserErrorKind::kInvalidProgram,
         "one_hot: the input must be an i64 tensor of class indices, got " + a.type_str());
  }
  if (!is_scalar(args[1].value) || scalar_dtype(args[1].value) != DType::kInt64) {
    fail(ctx, UserErrorKind::kInvalidProgram, "one_hot: num_classes must be an int");
  }
  // An int parameter, not a SymInt: a symbolic count is specialized (a guard), an unbacked one
  // cannot be (a data-dependent guard), as Dynamo does.
  int64_t classes = ctx.env().guard_int(args[1].value.as_int());
  if (classes == -1) {
    fail(ctx, UserErrorKind::kDataDependentGuard,
         "one_hot: num_classes=-1 makes the output shape data-dependent, which Dynamo refuses; "
         "pass num_classes");
  }
  if (classes < 0) {
    fail(ctx, UserErrorKind::kValue,
         "one_hot: num_classes must be -1 or non-negative, got " + std::to_string(classes));
  }
  std::vector<SymInt> out = a.sizes();
  out.push_back(classes);
  return Value::tensor(ctx.mode.make_contiguous(DType::kInt64, out));
}

// unique's count of distinct values (or slices): none for a statically empty input, else a fresh
// size-like symbol of at most `bound` when that is static. PyTorch asks has_free_symbols of the
// expression after replacements (a SymNode's expr is replaced): a size pinned by a guard
// (s0 <= 2 with s0 >= 2) is static here.
SymInt unique_count(MetaContext& ctx, const FakeTensor& a, const SymInt& bound) {
  if (statically_empty(ctx, a.numel())) return 0;
  SymInt n = ctx.env().create_unbacked_symint();
  std::optional<int64_t> max = SymInt(ctx.env().replace(bound.expr())).maybe_as_int();
  ctx.env().constrain_range_for_size(n.expr(), 0, max.value_or(kSysMaxsizeMinusOne));
  return n;
}

// unique's values, or with return_counts the tuple (values, i64 counts of length n).
Value with_counts(MetaContext& ctx, Value values, const SymInt& n, bool return_counts) {
  if (!return_counts) return values;
  return Value::tuple(
      {std::move(values), Value::tensor(ctx.mode.make_contiguous(DType::kInt64, {n}))});
}

}  // namespace

Value meta_data_dependent(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
  const FakeTensor& a = tensor_arg(ctx, args[0], "a");
  switch (op) {
    case OpKind::kNonzero: {
      require_dynamic(ctx, op);
      SymInt n = nonzero_count(ctx, a);
      return Value::tensor(ctx.mode.make_contiguous(DType::kInt64, {n, SymInt(a.dim())}));
    }
    case OpKind::kIndex: {
      require_dynamic(ctx, op);
      const FakeTensor& mask = tensor_arg(ctx, args[1], "mask");
      // A 0-d mask selects the whole tensor or nothing: [n, *a.sizes] with n in {0, 1}, as
      // eager (and PyTorch's x[mask]) gives.
      require_leading_mask(ctx, "index", a, mask, UserErrorKind::kShape);
      std::vector<SymInt> out{nonzero_count(ctx, mask)};
      out.insert(out.end(), a.sizes().begin() + mask.dim(), a.sizes().end());
      return Value::tensor(ctx.mode.make_contiguous(a.dtype(), out));
    }
    case OpKind::kMaskedSelect: {
      require_dynamic(ctx, op);
      const FakeTensor& mask = tensor_arg(ctx, args[1], "mask");
      if (mask.dtype() != DType::kBool) {
        fail(ctx, UserErrorKind::kInvalidProgram, "masked_select: the mask must be bool");
      }
      std::vector<SymInt> shape = broadcast(ctx, a.sizes(), mask.sizes());
      SymInt numel = 1;
      for (const SymInt& s : shape) numel = numel * s;
      SymInt n = ctx.env().create_unbacked_symint();
      // PyTorch's fake impl starts from sys.maxsize - 1 and takes the numel's bound only when
      // it is > 2 (spec §4.2); never an unbounded range.
      std::optional<int64_t> max = numel_bound(ctx, numel);
      ctx.env().constrain_range_for_size(n.expr(), 0, max && *max > 2 ? *max : kSysMaxsizeMinusOne);
      return Value::tensor(ctx.mode.make_contiguous(a.dtype(), {n}));
    }
    case OpKind::kUnique:
    case OpKind::kUniqueConsecutive: {
      require_dynamic(ctx, op);
      // unique_consecutive has a memo of its own (PyTorch's unique_consecutive_memo).
      // Bug zoo (fault unique_consecutive_shares_unique_memo): one memo for both.
      Memo FakeTensor::*memo =
          op == OpKind::kUnique || fault_on(Fault::kUniqueConsecutiveSharesUniqueMemo)
              ? &FakeTensor::unique_memo
              : &FakeTensor::unique_consecutive_memo;
      SymInt n;
      if (std::optional<Value> hit = ctx.mode.memo_get(a, memo)) {
        n = hit->as_int();
      } else {
        n = unique_count(ctx, a, a.numel());
        ctx.mode.memo_set(a, memo, Value(n));
      }
      return with_counts(ctx, Value::tensor(ctx.mode.make_contiguous(a.dtype(), {n})), n,
                         args[1].flag);
    }
    case OpKind::kUniqueDim: {
      // PyTorch's fake unique over a dim: never memoized, a fresh size-like count of at most the
      // dim's size when that is static (after replacements), none when the input is empty.
      require_dynamic(ctx, op);
      if (a.dim() == 0) {
        fail(ctx, UserErrorKind::kIndex,
             "unique_dim: dimension specified as " + std::to_string(args[1].dims[0]) +
                 " but the tensor has no dimensions");
      }
      int64_t d = normalize_dim(ctx, args[1].dims[0], a.dim());
      SymInt n = unique_count(ctx, a, a.sizes()[d]);
      std::vector<SymInt> sizes = a.sizes();
      sizes[d] = n;
      return with_counts(ctx, Value::tensor(ctx.mode.make_contiguous(a.dtype(), sizes)), n,
                         args[2].flag);
    }
    case OpKind::kArgwhere: {  // PyTorch's argwhere is nonzero: it shares nonzero's memo
      require_dynamic(ctx, op);
      SymInt n = nonzero_count(ctx, a, !fault_on(Fault::kArgwhereBypassesNonzeroMemo));
      return Value::tensor(ctx.mode.make_contiguous(DType::kInt64, {n, SymInt(a.dim())}));
    }
    case OpKind::kBincount:
      return bincount(ctx, a, args);
    case OpKind::kOneHot:
      return one_hot(ctx, a, args);
    case OpKind::kItem: {
      if (!ctx.env().settings().allow_scalar_outputs) {
        fail(ctx, UserErrorKind::kUnsupported,
             "item: scalar outputs are not allowed "
             "(DataDependentOutputException)");
      }
      require(
          ctx, sym_eq(a.numel(), 1), UserErrorKind::kShape,
          "item: a Tensor with " + a.numel().str() + " elements cannot be converted to a scalar");
      if (std::optional<Value> hit = ctx.mode.memo_get(a, &FakeTensor::item_memo)) return *hit;
      Value v;
      switch (a.dtype()) {
        case DType::kFloat32:
          v = Value(ctx.env().create_unbacked_symfloat());
          break;
        case DType::kInt64:
          v = Value(ctx.env().create_unbacked_symint());
          break;
        case DType::kBool:
          v = Value(ctx.env().create_unbacked_symbool());
          break;
      }
      ctx.mode.memo_set(a, &FakeTensor::item_memo, v);
      return v;
    }
    case OpKind::kTolist:
      // The tracer expands tolist into select + item per element (spec §11 item 6).
      fail(ctx, UserErrorKind::kInvalidProgram, "tolist is expanded by the tracer");
    case OpKind::kRepeatInterleave: {
      require_dynamic(ctx, op);
      const FakeTensor& repeats = args[1].present ? tensor_arg(ctx, args[1], "repeats") : a;
      if (repeats.dtype() != DType::kInt64) {
        fail(ctx, UserErrorKind::kInvalidProgram,
             "repeat_interleave: repeats must be an i64 tensor, got " + repeats.type_str());
      }
      if (repeats.dim() != 1) {
        fail(ctx, UserErrorKind::kShape,
             "repeat_interleave: repeats must be 1-D, got " + repeats.type_str());
      }
      if (!args[1].present && args[2].present) {
        fail(ctx, UserErrorKind::kInvalidProgram, "repeat_interleave: dim given without repeats");
      }
      if (args[1].present && !args[2].present) {
        // Without dim the input is flattened first (as PyTorch).
        require(ctx, sym_eq(repeats.sizes()[0], a.numel()), UserErrorKind::kShape,
                "repeat_interleave: repeats must have the same size as the flattened input (" +
                    repeats.sizes()[0].str() + " vs " + a.numel().str() + ")");
      }
      SymInt n;
      if (args[3].present) {  // the caller's count: no symbol (PyTorch's fake impl)
        if (!is_scalar(args[3].value) || scalar_dtype(args[3].value) != DType::kInt64) {
          fail(ctx, UserErrorKind::kInvalidProgram,
               "repeat_interleave: output_size must be an int");
        }
        n = args[3].value.as_int();
        require(ctx, sym_ge(n, 0), UserErrorKind::kValue,
                "repeat_interleave: output_size must be non-negative, got " + n.str());
      } else {
        n = ctx.env().create_unbacked_symint();
        ctx.env().constrain_range_for_size(n.expr());
      }
      if (!args[1].present) return Value::tensor(ctx.mode.make_contiguous(DType::kInt64, {n}));
      if (!args[2].present) return Value::tensor(ctx.mode.make_contiguous(a.dtype(), {n}));
      int64_t d = normalize_dim(ctx, args[2].dims[0], a.dim());
      require(ctx, sym_eq(repeats.sizes()[0], a.sizes()[d]), UserErrorKind::kShape,
              "repeat_interleave: repeats must have the same size as input along dim " +
                  std::to_string(d) + " (" + repeats.sizes()[0].str() + " vs " +
                  a.sizes()[d].str() + ")");
      std::vector<SymInt> out = a.sizes();
      out[d] = n;
      return Value::tensor(ctx.mode.make_contiguous(a.dtype(), out));
    }
    default:  // ops of other families: run_meta routes by family (see docs/decisions.md)
      break;
  }
  SF_UNREACHABLE() << program::op_name(op) << " is not a data-dependent op";
}

}  // namespace sf::fake::detail
