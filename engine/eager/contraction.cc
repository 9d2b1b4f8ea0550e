// mm, bmm and matmul: sums of products over the contracted dim, f32 accumulating in double and
// rounded once (as sum), i64 wrapping. matmul follows torch.matmul: a 1-D operand gets a dim of
// size 1 (prepended for the first, appended for the second) that the result drops again, and the
// batch dims broadcast; mm takes two matrices, bmm two batches of equal size.
#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"

namespace sf::eager::internal {

namespace {

// The operands as [batch..., rows, cols] with their (row-major) element strides.
struct Matrices {
  Shape sizes;
  Shape strides;
};

Matrices as_matrices(const HostTensor& t, bool is_first) {
  Matrices m{t.sizes, contiguous_strides(t.sizes)};
  if (t.sizes.size() == 1) {  // a vector: a row (first operand) or a column (second)
    size_t at = is_first ? 0 : 1;
    m.sizes.insert(m.sizes.begin() + at, 1);
    m.strides.insert(m.strides.begin() + at, 0);
  }
  return m;
}

std::string dims_str(const Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}

}  // namespace

Value contraction(const Call& c) {
  const HostTensor& a = c.tensor(0);
  const HostTensor& b = c.tensor(1);
  size_t ra = a.sizes.size(), rb = b.sizes.size();
  switch (c.op()) {
    case OpKind::kMm:
      if (ra != 2 || rb != 2) {
        c.fail(UserErrorKind::kShape, "both operands must be matrices (2-D), got shapes " +
                                          shape_str(a.sizes) + " and " + shape_str(b.sizes));
      }
      break;
    case OpKind::kBmm:
      if (ra != 3 || rb != 3) {
        c.fail(UserErrorKind::kShape,
               "both operands must be batches of matrices (3-D), got "
               "shapes " +
                   shape_str(a.sizes) + " and " + shape_str(b.sizes));
      }
      if (a.sizes[0] != b.sizes[0]) {
        c.fail(UserErrorKind::kShape,
               "batch sizes differ: " + shape_str(a.sizes) + " and " + shape_str(b.sizes));
      }
      break;
    default:
      if (ra == 0 || rb == 0) {
        c.fail(UserErrorKind::kShape, "both operands need at least one dim, got shapes " +
                                          shape_str(a.sizes) + " and " + shape_str(b.sizes));
      }
      break;
  }
  if (a.dtype != b.dtype) {
    c.fail(UserErrorKind::kInvalidProgram, "operands must have the same dtype, got " +
                                               c.arg(0).describe() + " and " + c.arg(1).describe());
  }
  if (a.dtype == DType::kBool) {
    c.fail(UserErrorKind::kInvalidProgram, "bool operands are not supported (as PyTorch's)");
  }
  Matrices x = as_matrices(a, true), y = as_matrices(b, false);
  size_t nx = x.sizes.size(), ny = y.sizes.size();
  int64_t m = x.sizes[nx - 2], k = x.sizes[nx - 1], k2 = y.sizes[ny - 2], n = y.sizes[ny - 1];
  if (k != k2) {
    c.fail(UserErrorKind::kShape,
           "shapes cannot be multiplied (" + dims_str(a.sizes) + " and " + dims_str(b.sizes) + ")");
  }
  Shape xb(x.sizes.begin(), x.sizes.end() - 2), yb(y.sizes.begin(), y.sizes.end() - 2);
  Shape batch = broadcast_shapes(c, {xb, yb});
  // Each batch's first element in a and b: the batch strides, 0 where a batch dim broadcasts.
  auto batch_strides = [&](const Shape& sizes, const Matrices& mat) {
    Shape out(batch.size(), 0);
    size_t lead = batch.size() - sizes.size();
    for (size_t d = 0; d < sizes.size(); ++d) {
      out[lead + d] = sizes[d] == 1 ? 0 : mat.strides[d];
    }
    return out;
  };
  std::vector<int64_t> xo = strided_offsets(batch, batch_strides(xb, x));
  std::vector<int64_t> yo = strided_offsets(batch, batch_strides(yb, y));
  Shape out_shape = batch;
  if (ra > 1) out_shape.push_back(m);
  if (rb > 1) out_shape.push_back(n);
  HostTensor out = alloc(c, a.dtype, out_shape);
  int64_t xr = x.strides[nx - 2], xk = x.strides[nx - 1], yk = y.strides[ny - 2],
          yc = y.strides[ny - 1];
  int64_t pos = 0;
  for (size_t bi = 0; bi < xo.size(); ++bi) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j, ++pos) {
        int64_t xa = xo[bi] + i * xr, ya = yo[bi] + j * yc;
        if (out.is_float()) {
          // Each product rounded to f32, the sum in double: what the compiled reduction does.
          double acc = 0.0;
          for (int64_t t = 0; t < k; ++t) acc += a.floats[xa + t * xk] * b.floats[ya + t * yk];
          out.floats[pos] = static_cast<float>(acc);
        } else {
          uint64_t acc = 0;
          for (int64_t t = 0; t < k; ++t) {
            acc += static_cast<uint64_t>(a.ints[xa + t * xk]) *
                   static_cast<uint64_t>(b.ints[ya + t * yk]);
          }
          out.ints[pos] = static_cast<int64_t>(acc);
        }
      }
    }
  }
  return Value::of_tensor(std::move(out));
}

}  // namespace sf::eager::internal
