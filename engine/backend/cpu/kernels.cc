// Kernel interpretation: each body node is evaluated over every iteration point at once
// (a column), which keeps the interpreter's per-element cost to one tight loop per node.
#include "engine/backend/cpu/kernels.h"

#include <cmath>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/program/elementwise.h"

namespace sf::backend::cpu {

namespace {

using lower::KExpr;

struct Column {
  DType dtype = DType::kInt64;
  std::vector<int64_t> i;  // i64 and bool
  std::vector<float> f;    // f32
};

struct Ctx {
  const lower::Kernel& k;
  const SymbolEnv& sigma;
  std::map<int, Storage>& buffers;
  std::vector<int64_t> sizes;
  int64_t n = 0;
  std::vector<std::vector<int64_t>> input_offsets;
  std::vector<std::vector<int64_t>> index_columns;  // lazily, per dim
};

Column make(DType d, int64_t n) {
  Column c;
  c.dtype = d;
  if (d == DType::kFloat32) {
    c.f.resize(n);
  } else {
    c.i.resize(n);
  }
  return c;
}

const std::vector<int64_t>& index_column(Ctx& ctx, int dim) {
  if (ctx.index_columns.empty()) ctx.index_columns.resize(ctx.sizes.size());
  std::vector<int64_t>& col = ctx.index_columns.at(dim);
  if (!col.empty() || ctx.n == 0) return col;
  col.resize(ctx.n);
  int64_t inner = 1;
  for (size_t d = dim + 1; d < ctx.sizes.size(); ++d) inner *= ctx.sizes[d];
  for (int64_t e = 0; e < ctx.n; ++e) col[e] = (e / inner) % ctx.sizes[dim];
  return col;
}

Column cast(const Column& c, DType to) {
  if (c.dtype == to) return c;
  Column out = make(to, static_cast<int64_t>(c.dtype == DType::kFloat32 ? c.f.size() : c.i.size()));
  int64_t n = static_cast<int64_t>(to == DType::kFloat32 ? out.f.size() : out.i.size());
  for (int64_t e = 0; e < n; ++e) {
    if (to == DType::kFloat32) {
      out.f[e] = static_cast<float>(c.i[e]);
    } else if (to == DType::kBool) {
      out.i[e] = c.dtype == DType::kFloat32 ? (c.f[e] != 0.0f) : (c.i[e] != 0);  // NaN is true
    } else {
      out.i[e] = c.dtype == DType::kFloat32 ? program::float_to_int(c.f[e]) : c.i[e];
    }
  }
  return out;
}

Column eval(Ctx& ctx, const KExpr& e);

Column load(Ctx& ctx, const KExpr& e) {
  const Storage& s = ctx.buffers.at(ctx.k.inputs.at(e.input).buffer);
  Column out = make(e.dtype, ctx.n);
  const std::vector<int64_t>& offs = ctx.input_offsets.at(e.input);
  std::vector<int64_t> gathered;
  if (e.gather) {
    Column idx = cast(eval(ctx, *e.gather), DType::kInt64);
    int64_t size = ctx.sigma.eval_int(e.gather_size), stride = ctx.sigma.eval_int(e.gather_stride);
    gathered.resize(ctx.n);
    for (int64_t k = 0; k < ctx.n; ++k) {
      int64_t v = idx.i[k];
      if (v < 0 || v >= size) {  // index_select does not wrap negatives (PyTorch's neither)
        throw_user_error(UserErrorKind::kIndex, ctx.k.name + ": index " + std::to_string(v) +
                                                    " is out of bounds for dim " +
                                                    std::to_string(e.gather_dim) + " of size " +
                                                    std::to_string(size));
      }
      gathered[k] = offs[k] + v * stride;
    }
  }
  const std::vector<int64_t>& at = e.gather ? gathered : offs;
  for (int64_t k = 0; k < ctx.n; ++k) {
    SF_CHECK(at[k] >= 0 && at[k] < s.size())
        << ctx.k.name << " reads element " << at[k] << " of a buffer of " << s.size();
    if (e.dtype == DType::kFloat32) {
      out.f[k] = s.floats[at[k]];
    } else {
      out.i[k] = s.ints[at[k]];
    }
  }
  return out;
}

Column eval(Ctx& ctx, const KExpr& e) {
  switch (e.kind) {
    case KExpr::Kind::kConst: {
      Column c = make(e.dtype, ctx.n);
      if (e.dtype == DType::kFloat32) {
        std::fill(c.f.begin(), c.f.end(), static_cast<float>(e.fvalue));
      } else {
        std::fill(c.i.begin(), c.i.end(), e.ivalue);
      }
      return c;
    }
    case KExpr::Kind::kScalar: {
      sym::Concrete v = ctx.sigma.eval(e.scalar);
      Column c = make(e.dtype, ctx.n);
      if (e.dtype == DType::kFloat32) {
        std::fill(c.f.begin(), c.f.end(), static_cast<float>(v.as_double()));
      } else if (e.dtype == DType::kBool) {
        std::fill(c.i.begin(), c.i.end(),
                  v.type == sym::ExprType::kBool ? v.b : v.as_double() != 0);
      } else {
        std::fill(c.i.begin(), c.i.end(), v.type == sym::ExprType::kBool ? int64_t{v.b} : v.i);
      }
      return c;
    }
    case KExpr::Kind::kLoad:
      return load(ctx, e);
    case KExpr::Kind::kIndex: {
      Column c = make(DType::kInt64, ctx.n);
      c.i = index_column(ctx, e.dim);
      return c;
    }
    case KExpr::Kind::kCast:
      return cast(eval(ctx, *e.args[0]), e.dtype);
    case KExpr::Kind::kUnary: {
      Column a = eval(ctx, *e.args[0]);
      Column out = make(e.dtype, ctx.n);
      for (int64_t k = 0; k < ctx.n; ++k) {
        if (a.dtype == DType::kFloat32) {
          float r = program::float_unary(e.unary, a.f[k]);
          if (e.dtype == DType::kFloat32) {
            out.f[k] = r;
          } else {
            out.i[k] = r != 0.0f;
          }
        } else {
          out.i[k] = program::int_unary(e.unary, a.i[k]);
        }
      }
      return out;
    }
    case KExpr::Kind::kBinary: {
      Column a = eval(ctx, *e.args[0]), b = eval(ctx, *e.args[1]);
      Column out = make(e.dtype, ctx.n);
      bool zero = false;
      for (int64_t k = 0; k < ctx.n; ++k) {
        if (a.dtype == DType::kFloat32) {
          float r = program::float_binary(e.binary, a.f[k], b.f[k]);
          if (e.dtype == DType::kFloat32) {
            out.f[k] = r;
          } else {
            out.i[k] = r != 0.0f;
          }
        } else {
          out.i[k] = program::int_binary(e.binary, a.i[k], b.i[k], &zero);
          if (zero) {
            throw_user_error(UserErrorKind::kZeroDivision,
                             ctx.k.name + ": integer division by zero");
          }
        }
      }
      return out;
    }
    case KExpr::Kind::kWhere: {
      Column c = eval(ctx, *e.args[0]), a = eval(ctx, *e.args[1]), b = eval(ctx, *e.args[2]);
      for (int64_t k = 0; k < ctx.n; ++k) {
        if (c.i[k]) continue;
        if (a.dtype == DType::kFloat32) {
          a.f[k] = b.f[k];
        } else {
          a.i[k] = b.i[k];
        }
      }
      return a;
    }
  }
  SF_UNREACHABLE();
}

void reduce(Ctx& ctx, const Column& v, Storage& out, const std::vector<int64_t>& out_offs) {
  const lower::Kernel& k = ctx.k;
  int64_t m = out.size();
  std::vector<double> facc(m, 0.0);
  std::vector<int64_t> iacc(m, k.reduce == lower::ReduceOp::kAll ? 1 : 0);
  std::vector<bool> seen(m, false);
  bool is_float = v.dtype == DType::kFloat32;
  for (int64_t e = 0; e < ctx.n; ++e) {
    int64_t o = out_offs[e];
    switch (k.reduce) {
      case lower::ReduceOp::kSum:
        if (is_float) {
          facc[o] += v.f[e];
        } else {
          iacc[o] =
              static_cast<int64_t>(static_cast<uint64_t>(iacc[o]) + static_cast<uint64_t>(v.i[e]));
        }
        break;
      case lower::ReduceOp::kMax:
      case lower::ReduceOp::kMin: {
        bool max = k.reduce == lower::ReduceOp::kMax;
        if (is_float) {
          double x = v.f[e];
          if (!seen[o] || std::isnan(x)) {
            facc[o] = x;
          } else if (!std::isnan(facc[o]) && (max ? x > facc[o] : x < facc[o])) {
            facc[o] = x;
          }
        } else if (!seen[o] || (max ? v.i[e] > iacc[o] : v.i[e] < iacc[o])) {
          iacc[o] = v.i[e];
        }
        seen[o] = true;
        break;
      }
      case lower::ReduceOp::kAny:
        iacc[o] = iacc[o] || v.i[e];
        break;
      case lower::ReduceOp::kAll:
        iacc[o] = iacc[o] && v.i[e];
        break;
    }
  }
  for (int64_t o = 0; o < m; ++o) {
    if (out.dtype == DType::kFloat32) {
      out.floats[o] = static_cast<float>(facc[o]);
    } else {
      out.ints[o] = iacc[o];
    }
  }
}

}  // namespace

void run_kernel(const lower::Kernel& k, const SymbolEnv& sigma, std::map<int, Storage>& buffers) {
  Ctx ctx{k, sigma, buffers};
  for (const ExprRef& s : k.sizes) ctx.sizes.push_back(sigma.eval_int(s));
  ctx.n = 1;
  for (int64_t s : ctx.sizes) ctx.n *= s;
  auto offsets = [&](const lower::Access& a) {
    std::vector<int64_t> strides;
    for (const ExprRef& s : a.strides) strides.push_back(sigma.eval_int(s));
    return strided_offsets(ctx.sizes, strides, sigma.eval_int(a.offset));
  };
  for (const lower::Access& a : k.inputs) ctx.input_offsets.push_back(offsets(a));
  std::vector<int64_t> out_offs = offsets(k.output);
  Storage& out = buffers.at(k.output.buffer);
  if (k.kind == lower::Kernel::Kind::kReduction) {
    // Even over an empty iteration space: every output element gets the op's identity.
    Column v = ctx.n == 0 ? make(k.body->dtype, 0) : eval(ctx, *k.body);
    reduce(ctx, v, out, out_offs);
    return;
  }
  if (ctx.n == 0) return;
  Column v = eval(ctx, *k.body);
  v = cast(v, out.dtype);
  for (int64_t e = 0; e < ctx.n; ++e) {
    SF_CHECK(out_offs[e] >= 0 && out_offs[e] < out.size())
        << k.name << " writes element " << out_offs[e] << " of a buffer of " << out.size();
    if (out.dtype == DType::kFloat32) {
      out.floats[out_offs[e]] = v.f[e];
    } else {
      out.ints[out_offs[e]] = v.i[e];
    }
  }
}

}  // namespace sf::backend::cpu
