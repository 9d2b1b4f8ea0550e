// Meta functions for views: view/reshape, permute, transpose, (un)squeeze, expand, slice, narrow,
// select, flatten, split_with_sizes, tensor_split. Views share storage; slicing bounds stay
// symbolic (Python clamping as Piecewise/Max/Min expressions the ShapeEnv simplifies where ranges
// allow).
#include "engine/base/check.h"
#include "engine/fake/meta/meta_internal.h"
#include "engine/fake/meta/slice_geometry.h"
#include "engine/shape_env/contiguity.h"
#include "engine/sym/make.h"

namespace sf::fake::detail {

using program::OpKind;

std::vector<SymInt> infer_reshape(MetaContext& ctx, const FakeTensor& a,
                                  const std::vector<SymInt>& shape) {
  int infer_at = -1;
  SymInt known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].is_constant() && shape[i].as_int() == -1) {
      if (infer_at >= 0) fail(ctx, UserErrorKind::kShape, "only one dimension can be inferred");
      infer_at = static_cast<int>(i);
      continue;
    }
    require(ctx, sym_ge(shape[i], 0), UserErrorKind::kShape,
            "invalid shape dimension " + shape[i].str() + " in " + shape_str(shape));
    known = known * shape[i];
  }
  SymInt numel = a.numel();
  std::vector<SymInt> out = shape;
  if (infer_at >= 0) {
    require(ctx, sym_ne(known, 0), UserErrorKind::kShape,
            "cannot infer -1 in " + shape_str(shape) + ": the other sizes multiply to 0");
    out[infer_at] = simplified(ctx, floordiv(numel, known));
  }
  SymInt total = 1;
  for (const SymInt& s : out) total = total * s;
  require(ctx, sym_eq(total, numel), UserErrorKind::kShape,
          "shape " + shape_str(shape) + " is invalid for input of size " + numel.str() +
              " (shape " + shape_str(a.sizes()) + ")");
  return out;
}

namespace {

Value view_of(MetaContext& ctx, const FakeTensor& a, std::vector<SymInt> sizes,
              std::vector<SymInt> strides, SymInt offset) {
  for (SymInt& s : sizes) s = simplified(ctx, s);
  for (SymInt& s : strides) s = simplified(ctx, s);
  return Value::tensor(ctx.mode.make_view(a, std::move(sizes), std::move(strides),
                                          simplified(ctx, offset), a.dtype()));
}

// reshape semantics: a view when the layout allows (contiguous), otherwise a contiguous copy.
// ATen's computeStride over symbolic sizes and strides, as its SymInt instantiation decides:
// a comparison guards where backed symbols decide it and falls back where it cannot be decided
// (an undecidable "size is 1" is no; an undecidable "chunk continues" is no, ending the chunk),
// so an unbacked layout may be refused that eager views (then reshape).
std::optional<std::vector<SymInt>> view_strides(MetaContext& ctx, const FakeTensor& a,
                                                const std::vector<SymInt>& new_sizes) {
  ShapeEnv& env = ctx.env();
  // Each decision is the trace's again under view_replay, else made now and recorded.
  size_t made = 0;
  auto decide = [&](auto&& now) -> bool {
    bool d = ctx.view_replay && made < ctx.view_replay->size() ? (*ctx.view_replay)[made]
                                                               : static_cast<bool>(now());
    ++made;
    ctx.view_decisions.push_back(d);
    return d;
  };
  const std::vector<SymInt>& old_sizes = a.sizes();
  const std::vector<SymInt>& old_strides = a.strides();
  if (old_sizes.empty()) return std::vector<SymInt>(new_sizes.size(), SymInt(1));
  bool same = old_sizes.size() == new_sizes.size();
  for (size_t d = 0; same && d < old_sizes.size(); ++d) {
    same = decide([&] { return env.guard_or_false(sym_eq(old_sizes[d], new_sizes[d])); });
  }
  // Element-free: the old strides for the same shape, else contiguous ones.
  std::vector<SymInt> empty_case = same ? old_strides : ctx.mode.contiguous_strides(new_sizes);
  SymBool is_empty = sym_eq(a.numel(), 0);
  if (decide([&] { return env.guard_or_false(is_empty); })) return empty_case;
  // An unbacked numel may still be 0 at run time, where the real view takes that branch: the
  // strides say so (the element-free strides when numel is 0), so stride() agrees with eager.
  bool maybe_empty = decide([&] { return !env.statically_known_true(sym_ne(a.numel(), 0)); });
  std::vector<SymInt> out(new_sizes.size(), SymInt(0));
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  SymInt chunk_base_stride = old_strides.back(), tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel = tensor_numel * old_sizes[d];
    bool chunk_ends =
        d == 0 ||
        (decide([&] { return env.guard_or_true(sym_ne(old_sizes[d - 1], 1)); }) && decide([&] {
           return env.guard_or_true(sym_ne(old_strides[d - 1], tensor_numel * chunk_base_stride));
         }));
    if (!chunk_ends) continue;
    while (view_d >= 0 &&
           (decide([&] { return env.guard_or_true(sym_lt(view_numel, tensor_numel)); }) ||
            decide([&] { return env.guard_or_false(sym_eq(new_sizes[view_d], 1)); }))) {
      out[view_d] = view_numel * chunk_base_stride;
      view_numel = view_numel * new_sizes[view_d];
      --view_d;
    }
    if (decide([&] { return env.guard_or_true(sym_ne(view_numel, tensor_numel)); }))
      return std::nullopt;
    if (d > 0) {
      chunk_base_stride = old_strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  if (maybe_empty) {
    for (size_t d = 0; d < out.size(); ++d) {
      out[d] = SymInt(sym::where(is_empty.expr(), empty_case[d].expr(), out[d].expr()));
    }
  }
  return out;
}

Value reshape_to(MetaContext& ctx, const FakeTensor& a, const std::vector<SymInt>& sizes,
                 bool must_view) {
  std::vector<SymInt> out = infer_reshape(ctx, a, sizes);
  if (is_contiguous(ctx.env(), a.sizes(), a.strides())) {
    return view_of(ctx, a, out, ctx.mode.contiguous_strides(out), a.storage_offset());
  }
  if (must_view) {
    if (std::optional<std::vector<SymInt>> strides = view_strides(ctx, a, out)) {
      return view_of(ctx, a, out, *strides, a.storage_offset());
    }
    // Backed sizes decide computeStride through guards, as eager's numbers do: a shape error.
    // Unbacked ones leave it to fallbacks: a data-dependent error (spec T30).
    bool all_static = true;
    for (const std::vector<SymInt>* xs : {&a.sizes(), &a.strides()}) {
      for (const SymInt& s : *xs) {
        all_static = all_static && !sym::has_free_unbacked_symbols(ctx.env().replace(s.expr()));
      }
    }
    if (!all_static) {
      throw GuardOnDataDependentSymNode(ctx.where + ": view " + shape_str(sizes) + " of " +
                                        a.describe() +
                                        ": the layout is not (provably) contiguous; use reshape "
                                        "instead");
    }
    fail(ctx, UserErrorKind::kShape,
         "view size " + shape_str(out) + " is not compatible with input tensor's size " +
             shape_str(a.sizes()) + " and stride " + shape_str(a.strides()) +
             " (at least one dimension spans across two contiguous subspaces); use reshape "
             "instead");
  }
  return Value::tensor(ctx.mode.make_contiguous(a.dtype(), out));
}

// PyTorch's _compute_slice_index: the normalized index when the comparisons decide it (guards
// where backed symbols do, fallbacks where unbacked ones leave it open); nullopt otherwise.
std::optional<SymInt> slice_index(MetaContext& ctx, const SymInt& i, const SymInt& n) {
  ShapeEnv& env = ctx.env();
  if (env.guard_or_false(sym_and(sym_ge(i, 0), sym_le(i, n)))) return i;
  if (env.guard_or_false(sym_and(sym_lt(i, 0), sym_ge(i, -n)))) return simplified(ctx, i + n);
  if (env.guard_or_false(sym_lt(i, -n))) return SymInt(0);
  if (env.guard_or_false(sym_gt(i, n))) return n;
  return std::nullopt;
}

// slice along dim d (PyTorch's slice_forward fake impl): where the clamp of start or end, or
// their order, cannot be decided, the size (and without a start, the storage offset) is a fresh
// unbacked symbol bound at the slice, with range asserts, instead of a Min/Max clamp carried
// into every later shape.
Value slice_along(MetaContext& ctx, const FakeTensor& a, int64_t d,
                  const std::optional<SymInt>& start_arg, const std::optional<SymInt>& end_arg,
                  const SymInt& step) {
  std::vector<SymInt> sizes = a.sizes(), strides = a.strides();
  const SymInt n = sizes[d];
  // Replaying the trace's fresh choices decides nothing again: no guard the trace did not make.
  const auto& replay = ctx.slice_replay;
  bool fresh_by_trace_offset = replay && replay->fresh_offset;
  bool fresh_by_trace_size = replay && replay->fresh_size;
  std::optional<SymInt> start;
  if (!fresh_by_trace_offset) start = start_arg ? slice_index(ctx, *start_arg, n) : SymInt(0);
  std::optional<SymInt> end;
  if (!fresh_by_trace_size) end = end_arg ? slice_index(ctx, *end_arg, n) : n;
  std::optional<SymInt> size;
  if (start && end) {
    if (ctx.env().guard_or_false(sym_ge(*end, *start))) {
      size = floordiv(*end - *start + step - SymInt(1), step);
    } else if (ctx.env().guard_or_false(sym_ge(*start, *end))) {
      size = SymInt(0);
    }
  }
  bool fresh_size = !size, fresh_offset = !start;
  if (!size) {
    size = ctx.env().create_unbacked_symint();
    require(ctx, sym_ge(*size, 0), UserErrorKind::kShape, "slice: negative size " + size->str());
    require(ctx, sym_le(*size, n), UserErrorKind::kShape,
            "slice: size " + size->str() + " exceeds dimension size " + n.str());
  }
  SymInt offset;
  if (start) {
    offset = a.storage_offset() + *start * strides[d];
  } else {
    offset = ctx.env().create_unbacked_symint();
    require(ctx, sym_ge(offset, 0), UserErrorKind::kShape,
            "slice: negative storage offset " + offset.str());
  }
  strides[d] = strides[d] * step;
  // Fresh symbols stay raw, so the node's bindings find them even where their range asserts
  // already pinned them to a constant (as upstream's as_strided keeps the SymInt it is given).
  for (SymInt& x : sizes) x = simplified(ctx, x);
  for (SymInt& x : strides) x = simplified(ctx, x);
  sizes[d] = fresh_size ? *size : simplified(ctx, *size);
  if (!fresh_offset) offset = simplified(ctx, offset);
  return Value::tensor(
      ctx.mode.make_view(a, std::move(sizes), std::move(strides), offset, a.dtype()));
}

}  // namespace

Value meta_view(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
  const FakeTensor& a = tensor_arg(ctx, args[0], "a");
  int64_t rank = a.dim();
  std::vector<SymInt> sizes = a.sizes(), strides = a.strides();
  SymInt offset = a.storage_offset();
  switch (op) {
    case OpKind::kView:
    case OpKind::kReshape:
      return reshape_to(ctx, a, args[1].ints, op == OpKind::kView);
    case OpKind::kFlatten: {
      // ATen's flatten wraps both dims before its 0-d case, so a 0-d tensor takes 0 and -1 only.
      int64_t s = normalize_dim(ctx, args[1].dims[0], rank, "start_dim");
      int64_t e = normalize_dim(ctx, args[2].dims[0], rank, "end_dim");
      if (s > e) fail(ctx, UserErrorKind::kShape, "flatten: start_dim cannot come after end_dim");
      if (rank == 0) return reshape_to(ctx, a, {1}, false);
      std::vector<SymInt> shape(sizes.begin(), sizes.begin() + s);
      SymInt prod = 1;
      for (int64_t d = s; d <= e; ++d) prod = prod * sizes[d];
      shape.push_back(simplified(ctx, prod));
      shape.insert(shape.end(), sizes.begin() + e + 1, sizes.end());
      return reshape_to(ctx, a, shape, false);
    }
    case OpKind::kPermute: {
      const std::vector<int64_t>& dims = args[1].dims;
      if (static_cast<int64_t>(dims.size()) != rank) {
        fail(ctx, UserErrorKind::kShape,
             "permute: number of dims " + std::to_string(dims.size()) + " does not match rank " +
                 std::to_string(rank));
      }
      std::vector<bool> seen(rank, false);
      std::vector<SymInt> ns, nt;
      for (int64_t d : dims) {
        int64_t nd = normalize_dim(ctx, d, rank);
        if (seen[nd])
          fail(ctx, UserErrorKind::kShape, "permute: repeated dim " + std::to_string(d));
        seen[nd] = true;
        ns.push_back(sizes[nd]);
        nt.push_back(strides[nd]);
      }
      return view_of(ctx, a, ns, nt, offset);
    }
    case OpKind::kTranspose: {
      int64_t d0 = normalize_dim(ctx, args[1].dims[0], rank),
              d1 = normalize_dim(ctx, args[2].dims[0], rank);
      if (rank == 0) return view_of(ctx, a, sizes, strides, offset);  // both dims were 0 / -1
      std::swap(sizes[d0], sizes[d1]);
      std::swap(strides[d0], strides[d1]);
      return view_of(ctx, a, sizes, strides, offset);
    }
    case OpKind::kUnsqueeze: {
      int64_t d = normalize_dim(ctx, args[1].dims[0], rank + 1);
      SymInt st = d < rank ? sizes[d] * strides[d] : SymInt(1);
      sizes.insert(sizes.begin() + d, SymInt(1));
      strides.insert(strides.begin() + d, st);
      return view_of(ctx, a, sizes, strides, offset);
    }
    case OpKind::kSqueeze: {
      int64_t d = normalize_dim(ctx, args[1].dims[0], rank);
      if (rank == 0) return view_of(ctx, a, sizes, strides, offset);  // the dim was 0 / -1
      if (ctx.env().guard_or_false(sym_eq(sizes[d], 1))) {
        sizes.erase(sizes.begin() + d);
        strides.erase(strides.begin() + d);
      } else if (!sizes[d].is_constant()) {
        // Kept (an unbacked size is assumed not to be 1): make that assumption checked at run
        // time, so a size that is 1 after all fails loudly instead of giving a wrong shape.
        require(ctx, sym_ne(sizes[d], 1), UserErrorKind::kShape,
                "squeeze: dim " + std::to_string(d) + " of size " + sizes[d].str() +
                    " was assumed not to be 1");
      }
      return view_of(ctx, a, sizes, strides, offset);
    }
    case OpKind::kExpand: {
      const std::vector<SymInt>& target = args[1].ints;
      if (target.size() < sizes.size()) {
        fail(ctx, UserErrorKind::kShape,
             "expand: target " + shape_str(target) + " has fewer dims than " + shape_str(sizes));
      }
      size_t lead = target.size() - sizes.size();
      std::vector<SymInt> ns, nt;
      for (size_t i = 0; i < target.size(); ++i) {
        const SymInt& t = target[i];
        bool keep = t.is_constant() && t.as_int() == -1;
        if (i < lead) {
          if (keep)
            fail(ctx, UserErrorKind::kShape, "expand: -1 is not allowed in a new leading dim");
          require(ctx, sym_ge(t, 0), UserErrorKind::kShape, "expand: negative size " + t.str());
          ns.push_back(t);
          nt.push_back(0);
          continue;
        }
        const SymInt& s = sizes[i - lead];
        if (keep || t.same_as(s)) {
          ns.push_back(s);
          nt.push_back(strides[i - lead]);
        } else if (ctx.env().guard_or_false(sym_eq(s, 1))) {
          require(ctx, sym_ge(t, 0), UserErrorKind::kShape, "expand: negative size " + t.str());
          ns.push_back(t);
          nt.push_back(0);
        } else {
          require(ctx, sym_eq(s, t), UserErrorKind::kShape,
                  "expand: the expanded size " + t.str() + " must match the existing size " +
                      s.str() + " at non-singleton dim " + std::to_string(i));
          ns.push_back(s);
          nt.push_back(strides[i - lead]);
        }
      }
      return view_of(ctx, a, ns, nt, offset);
    }
    case OpKind::kSlice: {
      if (rank == 0) fail(ctx, UserErrorKind::kShape, "slice of a 0-d tensor");
      int64_t d = normalize_dim(ctx, args[1].dims[0], rank);
      SymInt step = args[4].value.as_int();
      require(ctx, sym_gt(step, 0), UserErrorKind::kValue,
              "slice step must be positive, got " + step.str());
      std::optional<SymInt> start, end;
      if (args[2].present) start = args[2].value.as_int();
      if (args[3].present) end = args[3].value.as_int();
      return slice_along(ctx, a, d, start, end, step);
    }
    case OpKind::kNarrow: {
      // ATen's narrow_symint: checks, then the slice [start, start + length).
      if (rank == 0) fail(ctx, UserErrorKind::kShape, "narrow of a 0-d tensor");
      int64_t d = normalize_dim(ctx, args[1].dims[0], rank);
      const SymInt n = sizes[d];
      SymInt start = args[2].value.as_int(), length = args[3].value.as_int();
      require(ctx, sym_ge(length, 0), UserErrorKind::kValue,
              "narrow: negative length " + length.str());
      require(
          ctx, sym_and(sym_ge(start, -n), sym_le(start, n)), UserErrorKind::kIndex,
          "narrow: start " + start.str() + " out of range [" + (-n).str() + ", " + n.str() + "]");
      bool negative = ctx.env().guard_or_false(sym_lt(start, 0));
      if (negative || ctx.env().guard_or_false(sym_ge(start, 0))) {
        SymInt s = negative ? simplified(ctx, start + n) : start;
        require(ctx, sym_le(s + length, n), UserErrorKind::kIndex,
                "narrow: start (" + start.str() + ") + length (" + length.str() +
                    ") exceeds dimension size (" + n.str() + ")");
        return slice_along(ctx, a, d, s, s + length, SymInt(1));
      }
      // The sign of start is unknown: slice to the end narrow means, then the slice's size is
      // the length (a fresh size symbol is replaced by it).
      require(ctx, sym_le(start + length, n), UserErrorKind::kIndex,
              "narrow: start (" + start.str() + ") + length (" + length.str() +
                  ") exceeds dimension size (" + n.str() + ") or start is negative");
      SymInt end(narrow_end(n.expr(), start.expr(), length.expr()));
      Value out = slice_along(ctx, a, d, start, end, SymInt(1));
      require(ctx, sym_eq(fake_of(out).sizes()[d], length), UserErrorKind::kIndex,
              "narrow: the slice of " + n.str() + " from " + start.str() + " has not length " +
                  length.str());
      return out;
    }
    case OpKind::kSplitWithSizes: {
      // PyTorch 2.15's decomposition: every size checked non-negative (torch._check(s >= 0), not
      // _check_is_size: the sizes are not size-like, so their sum being 0 pins each to 0), their
      // sum checked equal to the dim's size (a deferred assert when unbacked), then one narrow each.
      if (rank == 0) fail(ctx, UserErrorKind::kShape, "split_with_sizes of a 0-d tensor");
      int64_t d = normalize_dim(ctx, args[2].dims[0], rank);
      const std::vector<SymInt>& parts = args[1].ints;
      SymInt total = 0;
      for (const SymInt& s : parts) {
        require(ctx, sym_ge(s, 0), UserErrorKind::kValue,
                "split_with_sizes: sizes must be non-negative, got " + s.str());
        total = total + s;
      }
      require(ctx, sym_eq(total, sizes[d]), UserErrorKind::kValue,
              "split_with_sizes: the sizes sum to " + simplified(ctx, total).str() +
                  ", not to the size " + sizes[d].str() + " of dim " + std::to_string(d));
      std::vector<Value> views;
      SymInt start = 0;
      for (const SymInt& s : parts) {
        std::vector<SymInt> part = sizes;
        part[d] = s;
        views.push_back(view_of(ctx, a, part, strides, offset + start * strides[d]));
        start = start + s;
      }
      return Value::tuple(std::move(views));
    }
    case OpKind::kTensorSplit: {
      // ATen's composite: the slices [0, i0), [i0, i1), ..., [ik, end). (The tracer records
      // those slices as nodes, as PyTorch's graph holds them after decomposition.)
      if (rank == 0) {
        fail(ctx, UserErrorKind::kShape,
             "tensor_split: expected at least a 1-dimensional tensor, got a 0-d one");
      }
      int64_t d = normalize_dim(ctx, args[2].dims[0], rank);
      std::vector<Value> parts;
      SymInt start = 0;
      for (const SymInt& index : args[1].ints) {
        parts.push_back(slice_along(ctx, a, d, start, index, SymInt(1)));
        start = index;
      }
      parts.push_back(slice_along(ctx, a, d, start, std::nullopt, SymInt(1)));
      return Value::tuple(std::move(parts));
    }
    case OpKind::kSelect: {
      if (rank == 0) fail(ctx, UserErrorKind::kShape, "select of a 0-d tensor");
      int64_t d = normalize_dim(ctx, args[1].dims[0], rank);
      const SymInt& n = sizes[d];
      SymInt index = args[2].value.as_int();
      require(ctx, sym_and(sym_ge(index, -n), sym_lt(index, n)), UserErrorKind::kIndex,
              "select: index " + index.str() + " out of range for dim " + std::to_string(d) +
                  " of size " + n.str());
      SymInt i =
          simplified(ctx, SymInt(sym::where(sym::lt(index.expr(), sym::integer(0)),
                                            sym::add(index.expr(), n.expr()), index.expr())));
      offset = offset + i * strides[d];
      sizes.erase(sizes.begin() + d);
      strides.erase(strides.begin() + d);
      return view_of(ctx, a, sizes, strides, offset);
    }
    default:  // ops of other families: run_meta routes by family (see docs/decisions.md)
      break;
  }
  SF_UNREACHABLE() << program::op_name(op) << " is not a view op";
}

}  // namespace sf::fake::detail
