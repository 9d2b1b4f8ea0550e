// Meta functions for mm, bmm and matmul (eager's contraction.cc): the ranks and dtypes are
// static checks; the contracted sizes and bmm's batch sizes must be equal, a guard over backed
// sizes and a deferred runtime assert over unbacked ones (PyTorch's torch._check in the meta
// function); matmul's batch dims broadcast as pointwise operands do.
#include "engine/fake/meta/meta_internal.h"
#include "engine/program/schema.h"

namespace sf::fake::detail {

using program::OpKind;

Value meta_contraction(MetaContext& ctx, OpKind op, const std::vector<MetaArg>& args) {
  const FakeTensor& a = tensor_arg(ctx, args[0], "a");
  const FakeTensor& b = tensor_arg(ctx, args[1], "b");
  const std::string name = program::op_name(op);
  const std::string shapes = " (shapes " + a.type_str() + " and " + b.type_str() + ")";
  int64_t ra = a.dim(), rb = b.dim();
  if (op == OpKind::kMm && (ra != 2 || rb != 2)) {
    fail(ctx, UserErrorKind::kShape, name + ": both operands must be matrices (2-D)" + shapes);
  }
  if (op == OpKind::kBmm) {
    if (ra != 3 || rb != 3) {
      fail(ctx, UserErrorKind::kShape,
           name + ": both operands must be batches of matrices (3-D)" + shapes);
    }
    require(ctx, sym_eq(a.sizes()[0], b.sizes()[0]), UserErrorKind::kShape,
            name + ": batch sizes differ" + shapes);
  }
  if (op == OpKind::kMatmul && (ra == 0 || rb == 0)) {
    fail(ctx, UserErrorKind::kShape, name + ": both operands need at least one dim" + shapes);
  }
  if (a.dtype() != b.dtype()) {
    fail(ctx, UserErrorKind::kInvalidProgram,
         name + ": operands must have the same dtype" + shapes);
  }
  if (a.dtype() == DType::kBool) {
    fail(ctx, UserErrorKind::kInvalidProgram, name + ": bool operands are not supported");
  }
  // As matrices: a vector is a row (first operand) or a column (second).
  std::vector<SymInt> x = a.sizes(), y = b.sizes();
  if (ra == 1) x.insert(x.begin(), SymInt(1));
  if (rb == 1) y.push_back(SymInt(1));
  const SymInt& k = x.back();
  const SymInt& k2 = y[y.size() - 2];
  if (!k.same_as(k2)) {
    require(ctx, sym_eq(k, k2), UserErrorKind::kShape,
            name + ": shapes cannot be multiplied" + shapes);
  }
  std::vector<SymInt> xb(x.begin(), x.end() - 2), yb(y.begin(), y.end() - 2);
  std::vector<SymInt> out = broadcast(ctx, xb, yb);
  if (ra > 1) out.push_back(x[x.size() - 2]);
  if (rb > 1) out.push_back(y.back());
  return Value::tensor(ctx.mode.make_contiguous(a.dtype(), out));
}

}  // namespace sf::fake::detail
