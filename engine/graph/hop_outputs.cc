// cond output merging and while_loop outputs.
#include "engine/graph/hop_outputs.h"

#include <algorithm>

#include "engine/base/errors.h"
#include "engine/fake/fake_tensor.h"
#include "engine/sym/walk.h"

namespace sf::graph {

namespace {

SymInt fresh_hull(ShapeEnv& env, const ExprRef& a, const ExprRef& b, bool is_size) {
  sym::ValueRange ra = env.bound(a), rb = env.bound(b);
  SymInt u = env.create_unbacked_symint();
  sym::ExtInt lo = std::min(ra.lo(), rb.lo()), hi = std::max(ra.hi(), rb.hi());
  if (is_size) {
    env.constrain_range_for_size(
        u.expr(), lo.is_finite() ? std::max<int64_t>(lo.value(), 0) : 0,
        hi.is_finite() ? std::optional<int64_t>(hi.value()) : std::nullopt);
  } else {
    env.constrain_symbol_range(u.expr(), lo, hi);
  }
  return u;
}

// Kept as it is: the same expression on both sides, with no unbacked symbol (a size leaking
// from a branch always gets a new symbol bound at the cond node, PR #148206).
bool keep(const ShapeEnv& env, const ExprRef& a, const ExprRef& b) {
  return env.replace(a) == env.replace(b) && sym::free_unbacked_symbols(a).empty() &&
         sym::free_unbacked_symbols(b).empty();
}

}  // namespace

Value merge_cond_output(fake::FakeMode& mode, const Value& a, const Value& b, size_t i,
                        const std::string& where) {
  ShapeEnv& env = mode.env();
  auto mismatch = [&](const std::string& what) {
    throw_user_error(UserErrorKind::kInvalidProgram, where + ": cond: output " + std::to_string(i) +
                                                         " of the branches " + what + " (" +
                                                         a.str() + " vs " + b.str() + ")");
  };
  if (a.kind() != b.kind()) mismatch("differ in kind");
  if (a.kind() == Value::Kind::kInt) {
    if (keep(env, a.expr(), b.expr())) return a;
    return Value(fresh_hull(env, a.expr(), b.expr(), false));
  }
  if (a.kind() != Value::Kind::kTensor) {
    throw_user_error(UserErrorKind::kUnsupported,
                     where + ": cond: branches return tensors and ints, got " + a.str());
  }
  const fake::FakeTensor &ta = fake::fake_of(a), &tb = fake::fake_of(b);
  if (ta.dtype() != tb.dtype()) mismatch("differ in dtype");
  if (ta.dim() != tb.dim()) mismatch("differ in rank");
  std::vector<SymInt> sizes;
  for (int64_t d = 0; d < ta.dim(); ++d) {
    const ExprRef &x = ta.sizes()[d].expr(), &y = tb.sizes()[d].expr();
    sizes.push_back(keep(env, x, y) ? ta.sizes()[d] : fresh_hull(env, x, y, true));
  }
  // Strides are re-derived from the merged sizes: the output is contiguous (a branch returning
  // another layout is copied at run time; docs/decisions.md).
  return Value::tensor(mode.make_contiguous(ta.dtype(), sizes));
}

Value while_loop_output(fake::FakeMode& mode, const Value& carry) {
  if (carry.kind() == Value::Kind::kInt) return Value(mode.env().create_unbacked_symint());
  const fake::FakeTensor& f = fake::fake_of(carry);
  return Value::tensor(mode.make_contiguous(f.dtype(), f.sizes()));
}

}  // namespace sf::graph
