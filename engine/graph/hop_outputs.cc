// cond output merging, while_loop outputs and invoke_subgraph outputs.
#include "engine/graph/hop_outputs.h"

#include <algorithm>

#include "engine/base/errors.h"
#include "engine/base/faults.h"
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

// Kept as it is: every symbol of it is one of the region's inputs.
bool over_inputs(const ExprRef& e, const std::set<ExprRef, sym::ExprLess>& inputs) {
  for (const ExprRef& s : sym::free_symbols(e)) {
    if (!inputs.count(s)) return false;
  }
  return true;
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
    // Kept in its canonical form: a symbol specialized since the trace (s0 == 2 after a later
    // guard) is the number it now is, as upstream's re-propagation computes it.
    if (keep(env, a.expr(), b.expr())) return Value(SymInt(env.replace(a.expr())));
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
    sizes.push_back(keep(env, x, y) ? SymInt(env.replace(x)) : fresh_hull(env, x, y, true));
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

std::set<ExprRef, sym::ExprLess> symbols_of(const std::vector<Value>& values) {
  std::set<ExprRef, sym::ExprLess> out;
  auto add = [&](const ExprRef& e) {
    for (const ExprRef& x : sym::free_symbols(e)) out.insert(x);
  };
  for (const Value& v : values) {
    if (v.kind() == Value::Kind::kTensor) {
      const TensorLike& t = *v.tensor();
      for (const SymInt& x : t.sizes()) add(x.expr());
      for (const SymInt& x : t.strides()) add(x.expr());
      add(t.storage_offset().expr());
    } else if (v.kind() == Value::Kind::kInt) {
      add(v.expr());
    }
  }
  return out;
}

Value invoke_subgraph_output(fake::FakeMode& mode, const Value& v,
                             const std::set<ExprRef, sym::ExprLess>& inputs,
                             const std::string& where) {
  ShapeEnv& env = mode.env();
  if (v.kind() == Value::Kind::kInt) {
    if (over_inputs(v.expr(), inputs)) return v;
    return Value(fresh_hull(env, v.expr(), v.expr(), false));
  }
  if (v.kind() != Value::Kind::kTensor) {
    throw_user_error(
        UserErrorKind::kUnsupported,
        where + ": invoke_subgraph: a region returns tensors and ints, got " + v.str());
  }
  const fake::FakeTensor& t = fake::fake_of(v);
  std::vector<SymInt> sizes;
  for (const SymInt& x : t.sizes())
    sizes.push_back(over_inputs(x.expr(), inputs) ? x : fresh_hull(env, x.expr(), x.expr(), true));
  return Value::tensor(mode.make_contiguous(t.dtype(), sizes));
}

Value map_output(fake::FakeMode& mode, const Value& step, const SymInt& n,
                 const std::set<ExprRef, sym::ExprLess>& inputs, const std::string& where) {
  if (step.kind() != Value::Kind::kTensor) {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     where + ": map: the function returns tensors only, got " + step.str());
  }
  const fake::FakeTensor& t = fake::fake_of(step);
  std::vector<SymInt> sizes{n};
  if (fault_on(Fault::kMapOutputNotStacked)) sizes.clear();  // the step's shape (PR #124203)
  for (const SymInt& x : t.sizes()) {
    if (!over_inputs(x.expr(), inputs)) {
      throw_user_error(UserErrorKind::kUnsupported,
                       where + ": map: a step returns " + t.type_str() + ", whose size " + x.str() +
                           " is made inside the function and may differ from row to row (the "
                           "steps' outputs are stacked: return a shape the rows determine)");
    }
    sizes.push_back(x);
  }
  return Value::tensor(mode.make_contiguous(t.dtype(), sizes));
}

}  // namespace sf::graph
