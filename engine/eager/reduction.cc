// Reductions over a list of dims (all dims when absent or empty, as PyTorch's sum(dim=[])):
// sum (f32 accumulates in double, rounded once), amax/amin (NaN propagates; an empty extent is a
// shape error), any/all, count_nonzero.
#include <cmath>

#include "engine/base/check.h"
#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"

namespace sf::eager::internal {

namespace {

const char* reduce_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kAmax:
      return "amax";
    case ReduceOp::kAmin:
      return "amin";
    case ReduceOp::kAny:
      return "any";
    case ReduceOp::kAll:
      return "all";
    case ReduceOp::kCountNonzero:
      return "count_nonzero";
  }
  return "?";
}

DType out_dtype(ReduceOp op, DType in) {
  switch (op) {
    case ReduceOp::kSum:
      return in == DType::kFloat32 ? in : DType::kInt64;
    case ReduceOp::kAmax:
    case ReduceOp::kAmin:
      return in;
    case ReduceOp::kAny:
    case ReduceOp::kAll:
      return DType::kBool;
    case ReduceOp::kCountNonzero:
      return DType::kInt64;
  }
  SF_UNREACHABLE();
}

// Which dims of a rank-`rank` tensor are reduced (a 0-dim tensor accepts dims 0 and -1).
std::vector<bool> reduced_dims(const Call& c, const std::optional<Shape>& dims, int64_t rank) {
  std::vector<bool> red(rank, !dims || dims->empty());
  if (!dims) return red;
  std::vector<bool> seen(std::max<int64_t>(rank, 1), false);
  for (int64_t d : *dims) {
    int64_t w = wrap_dim(c, d, rank);
    if (seen[w]) {
      c.fail(UserErrorKind::kShape, "dim " + std::to_string(w) +
                                        " appears multiple times in the list of dims " +
                                        shape_str(*dims));
    }
    seen[w] = true;
    if (rank > 0) red[w] = true;
  }
  return red;
}

}  // namespace

Value reduce(const Call& c, ReduceOp op) {
  const HostTensor& t = c.tensor(0);
  int64_t rank = static_cast<int64_t>(t.sizes.size());
  std::vector<bool> red = reduced_dims(c, c.dims(1), rank);
  bool keepdim = op != ReduceOp::kCountNonzero && c.flag(2);

  Shape keep_shape, out_shape;
  for (int64_t d = 0; d < rank; ++d) {
    keep_shape.push_back(red[d] ? 1 : t.sizes[d]);
    if (!red[d] || keepdim) out_shape.push_back(keep_shape.back());
    if (red[d] && t.sizes[d] == 0 && (op == ReduceOp::kAmax || op == ReduceOp::kAmin)) {
      c.fail(UserErrorKind::kShape, "cannot reduce over the empty dim " + std::to_string(d) +
                                        " of shape " + shape_str(t.sizes) + " (" + reduce_name(op) +
                                        " needs at least one element)");
    }
  }
  Shape strides = contiguous_strides(keep_shape);
  for (int64_t d = 0; d < rank; ++d) {
    if (red[d]) strides[d] = 0;
  }
  std::vector<int64_t> dst = strided_offsets(t.sizes, strides);

  HostTensor out = alloc(c, out_dtype(op, t.dtype), out_shape);
  int64_t n_out = out.numel();
  std::vector<double> acc(n_out, 0.0);   // f32 sum, f32 amax/amin
  std::vector<int64_t> iacc(n_out, 0);   // i64 sum, i64/bool amax/amin, counts, any/all
  std::vector<bool> seen(n_out, false);  // amax/amin: first element taken as is
  if (op == ReduceOp::kAll) iacc.assign(n_out, 1);
  for (size_t k = 0; k < dst.size(); ++k) {
    int64_t o = dst[k];
    switch (op) {
      case ReduceOp::kSum:
        if (t.is_float()) {
          acc[o] += t.floats[k];
        } else {
          iacc[o] = static_cast<int64_t>(static_cast<uint64_t>(iacc[o]) +
                                         static_cast<uint64_t>(t.ints[k]));  // wraps
        }
        break;
      case ReduceOp::kAmax:
      case ReduceOp::kAmin: {
        bool max = op == ReduceOp::kAmax;
        if (t.is_float()) {
          double v = t.floats[k];
          if (!seen[o] || std::isnan(v)) {
            acc[o] = v;
          } else if (!std::isnan(acc[o]) && (max ? v > acc[o] : v < acc[o])) {
            acc[o] = v;
          }
        } else {
          int64_t v = t.ints[k];
          if (!seen[o] || (max ? v > iacc[o] : v < iacc[o])) iacc[o] = v;
        }
        seen[o] = true;
        break;
      }
      case ReduceOp::kAny:
        iacc[o] = iacc[o] || truthy(t, k);
        break;
      case ReduceOp::kAll:
        iacc[o] = iacc[o] && truthy(t, k);
        break;
      case ReduceOp::kCountNonzero:
        iacc[o] += truthy(t, k);
        break;
    }
  }
  for (int64_t o = 0; o < n_out; ++o) {
    if (out.is_float()) {
      out.floats[o] = static_cast<float>(acc[o]);
    } else {
      out.ints[o] = iacc[o];
    }
  }
  return Value::of_tensor(std::move(out));
}

}  // namespace sf::eager::internal
