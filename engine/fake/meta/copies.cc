// Meta functions for the joins that copy an input into a new shape or add into one: repeat, tile
// (a size exposed only as `repeats * size`), constant pad, scatter_add and index_add.
#include "engine/base/check.h"
#include "engine/fake/meta/meta_internal.h"
#include "engine/program/schema.h"

namespace sf::fake::detail {

using program::OpKind;

namespace {

Value repeat(MetaContext& ctx, const FakeTensor& a, std::vector<SymInt> repeats, const char* op) {
  if (static_cast<int64_t>(repeats.size()) < a.dim()) {
    fail(ctx, UserErrorKind::kShape,
         std::string(op) + ": " + std::to_string(repeats.size()) +
             " repeats are fewer than the dims of " + a.type_str());
  }
  std::vector<SymInt> sizes(repeats.size() - a.dim(), SymInt(1));
  sizes.insert(sizes.end(), a.sizes().begin(), a.sizes().end());
  for (size_t d = 0; d < repeats.size(); ++d) {
    require(ctx, sym_ge(repeats[d], 0), UserErrorKind::kValue,
            std::string(op) + ": repeats must be non-negative, got " + repeats[d].str());
    sizes[d] = simplified(ctx, repeats[d] * sizes[d]);
  }
  return Value::tensor(ctx.mode.make_contiguous(a.dtype(), sizes));
}

Value pad(MetaContext& ctx, const FakeTensor& a, const std::vector<MetaArg>& args) {
  const std::vector<SymInt>& pad = args[1].ints;
  if (pad.size() % 2 != 0) {
    fail(ctx, UserErrorKind::kValue,
         "pad: the padding length must be even, got " + std::to_string(pad.size()));
  }
  if (static_cast<int64_t>(pad.size() / 2) > a.dim()) {
    fail(ctx, UserErrorKind::kValue,
         "pad: " + std::to_string(pad.size()) + " pads are too many for " + a.type_str());
  }
  if (!is_scalar(args[2].value))
    fail(ctx, UserErrorKind::kInvalidProgram, "pad: value must be a scalar");
  std::vector<SymInt> sizes = a.sizes();
  // PyTorch narrows by the negative pads first, dim by dim from the first: each narrow needs a
  // non-negative length (a value error, as narrow's), before the padded size is checked.
  for (int64_t d = a.dim() - static_cast<int64_t>(pad.size() / 2); d < a.dim(); ++d) {
    size_t p = static_cast<size_t>(a.dim() - 1 - d);
    SymInt cropped = sizes[d] + sym_min(pad[2 * p], 0);
    require(ctx, sym_ge(cropped, 0), UserErrorKind::kValue,
            "pad: cropping " + pad[2 * p].str() + " from dim " + std::to_string(d) + " of size " +
                sizes[d].str() + " leaves a negative length");
    require(ctx, sym_ge(cropped + sym_min(pad[2 * p + 1], 0), 0), UserErrorKind::kValue,
            "pad: cropping " + pad[2 * p + 1].str() + " more from dim " + std::to_string(d) +
                " of size " + sizes[d].str() + " leaves a negative length");
  }
  for (size_t p = 0; p < pad.size() / 2; ++p) {  // pairs from the last dim backwards
    SymInt& s = sizes[a.dim() - 1 - p];
    SymInt out = simplified(ctx, s + pad[2 * p] + pad[2 * p + 1]);
    require(ctx, sym_ge(out, 0), UserErrorKind::kShape,
            "pad: the size " + s.str() + " padded by " + pad[2 * p].str() + " and " +
                pad[2 * p + 1].str() + " is negative");
    s = out;
  }
  return Value::tensor(ctx.mode.make_contiguous(a.dtype(), sizes));
}

void require_same_dtype(MetaContext& ctx, const char* op, const FakeTensor& a,
                        const FakeTensor& b) {
  if (a.dtype() != b.dtype()) {
    fail(ctx, UserErrorKind::kInvalidProgram,
         std::string(op) + ": the source " + b.type_str() + " must have the dtype of " +
             a.type_str());
  }
}

void require_i64_index(MetaContext& ctx, const char* op, const FakeTensor& index) {
  if (index.dtype() != DType::kInt64) {
    fail(ctx, UserErrorKind::kInvalidProgram,
         std::string(op) + ": index must be an i64 tensor, got " + index.type_str());
  }
}

// scatter_add: index, src and a share a rank; the index fits in src everywhere and in a off dim.
Value scatter_add(MetaContext& ctx, const FakeTensor& a, const std::vector<MetaArg>& args) {
  const FakeTensor& index = tensor_arg(ctx, args[2], "index");
  const FakeTensor& src = tensor_arg(ctx, args[3], "src");
  int64_t dim = normalize_dim(ctx, args[1].dims[0], a.dim());
  require_i64_index(ctx, "scatter_add", index);
  require_same_dtype(ctx, "scatter_add", a, src);
  int64_t rank = std::max<int64_t>(a.dim(), 1);
  auto rank_of = [](const FakeTensor& t) { return std::max<int64_t>(t.dim(), 1); };
  if (rank_of(index) != rank || rank_of(src) != rank) {
    fail(ctx, UserErrorKind::kShape,
         "scatter_add: index " + index.type_str() + ", src " + src.type_str() + " and " +
             a.type_str() + " must have the same number of dims");
  }
  auto size = [](const FakeTensor& t, int64_t d) {
    return t.dim() == 0 ? SymInt(1) : t.sizes()[d];
  };
  for (int64_t d = 0; d < rank; ++d) {
    SymInt i = size(index, d);
    if (!i.same_as(size(src, d))) {
      require(ctx, sym_le(i, size(src, d)), UserErrorKind::kShape,
              "scatter_add: index " + index.type_str() + " is larger than src " + src.type_str() +
                  " in dim " + std::to_string(d));
    }
    if (d != dim && !i.same_as(size(a, d))) {
      require(ctx, sym_le(i, size(a, d)), UserErrorKind::kShape,
              "scatter_add: index " + index.type_str() + " is larger than " + a.type_str() +
                  " in dim " + std::to_string(d));
    }
  }
  return Value::tensor(ctx.mode.make_contiguous(a.dtype(), a.sizes()));
}

// index_add: a 1-D index of the source's length along dim; the source is a's shape elsewhere.
Value index_add(MetaContext& ctx, const FakeTensor& a, const std::vector<MetaArg>& args) {
  const FakeTensor& index = tensor_arg(ctx, args[2], "index");
  const FakeTensor& source = tensor_arg(ctx, args[3], "source");
  int64_t dim = normalize_dim(ctx, args[1].dims[0], a.dim());
  require_i64_index(ctx, "index_add", index);
  if (index.dim() > 1) {
    fail(ctx, UserErrorKind::kShape,
         "index_add: index must be 0-D or 1-D, got " + index.type_str());
  }
  require_same_dtype(ctx, "index_add", a, source);
  // As torch 2.15: the source has a's dims exactly (a 0-dim a takes a 0-dim source, which
  // counts as one element along dim); it is a's shape with the index's length along dim.
  int64_t rank = std::max<int64_t>(a.dim(), 1);
  if (source.dim() != a.dim()) {
    fail(ctx, UserErrorKind::kShape,
         "index_add: source " + source.type_str() + " must have the dims of " + a.type_str());
  }
  auto size = [](const FakeTensor& t, int64_t d) {
    return t.dim() == 0 ? SymInt(1) : t.sizes()[d];
  };
  for (int64_t d = 0; d < rank; ++d) {
    SymInt want = d == dim ? index.numel() : size(a, d);
    if (size(source, d).same_as(want)) continue;
    require(ctx, sym_eq(size(source, d), want), UserErrorKind::kShape,
            "index_add: source " + source.type_str() + " must have size " + want.str() +
                " in dim " + std::to_string(d));
  }
  return Value::tensor(ctx.mode.make_contiguous(a.dtype(), a.sizes()));
}

}  // namespace

Value meta_copies(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
  const FakeTensor& a = tensor_arg(ctx, args[0], "a");
  switch (op) {
    case OpKind::kRepeat:
      return repeat(ctx, a, args[1].ints, "repeat");
    case OpKind::kTile: {  // fewer dims than the tensor: leading 1s
      std::vector<SymInt> reps = args[1].ints;
      if (static_cast<int64_t>(reps.size()) < a.dim()) {
        reps.insert(reps.begin(), a.dim() - reps.size(), SymInt(1));
      }
      return repeat(ctx, a, reps, "tile");
    }
    case OpKind::kPad:
      return pad(ctx, a, args);
    case OpKind::kScatterAdd:
      return scatter_add(ctx, a, args);
    case OpKind::kIndexAdd:
      return index_add(ctx, a, args);
    default:
      break;
  }
  SF_UNREACHABLE() << program::op_name(op) << " is not a copying join";
}

}  // namespace sf::fake::detail
