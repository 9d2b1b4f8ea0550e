// Binding-site discovery and re-propagation (spec §2.6–§2.8, §2.12): which node exposes each
// fresh unbacked symbol, by which keypath; and renaming fresh retrace symbols back to old names.
#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/make.h"

namespace sf {

using sym::ExprKind;

namespace {

bool in_pending(const std::vector<ExprRef>& pending, const ExprRef& s) {
  return std::find(pending.begin(), pending.end(), s) != pending.end();
}

void erase_pending(std::vector<ExprRef>& pending, const ExprRef& s) {
  pending.erase(std::remove(pending.begin(), pending.end(), s), pending.end());
}

// The eight cases of §2.6, in order, over raw (never replaced) expressions.
// `path` is where `a` sits; it is extended in place for each child and restored after it.
void walk(const ShapeEnv& env, const Value& a, KeyPath& path, std::vector<ExprRef>& pending,
          Bindings& out) {
  if (pending.empty()) return;  // every case binds a pending symbol: nothing left to find
  auto extended = [&](KeyEntry k) {
    KeyPath p = path;
    p.push_back(std::move(k));
    return p;
  };
  auto child = [&](KeyEntry k, const Value& v) {
    path.push_back(std::move(k));
    walk(env, v, path, pending, out);
    path.pop_back();
  };
  switch (a.kind()) {
    case Value::Kind::kTuple:
      for (size_t i = 0; i < a.elems().size(); ++i) {
        child(KeyEntry::sequence(static_cast<int64_t>(i)), a.elems()[i]);
      }
      return;
    case Value::Kind::kTensor: {
      const TensorLike& t = *a.tensor();
      auto inner = t.inner_tensors();
      if (!inner.empty()) {  // case 2: a wrapper subclass is walked through its inner tensors
        for (auto& [attr, value] : inner) child(KeyEntry::inner_tensor(attr), value);
        return;
      }
      auto seq = [&](TensorMethod m, const std::vector<SymInt>& xs) {
        path.push_back(KeyEntry::call_method(m));
        for (size_t i = 0; i < xs.size(); ++i) {
          child(KeyEntry::sequence(static_cast<int64_t>(i)), Value(xs[i]));
        }
        path.pop_back();
      };
      seq(TensorMethod::kSize, t.sizes());
      seq(TensorMethod::kStride, t.strides());
      child(KeyEntry::call_method(TensorMethod::kStorageOffset), Value(t.storage_offset()));
      return;
    }
    case Value::Kind::kInt:
    case Value::Kind::kFloat: {
      const ExprRef& e = a.expr();
      if (e->is(ExprKind::kSymbol) && in_pending(pending, e)) {  // case 5
        out.emplace(e, path);
        erase_pending(pending, e);
        return;
      }
      // case 6: c*u or s*u with exactly one factor pending and a constant/backed coefficient
      if (a.kind() == Value::Kind::kInt && e->is(ExprKind::kMul) && e->num_args() == 2) {
        const ExprRef& lhs = e->arg(0);
        const ExprRef& rhs = e->arg(1);
        bool lhs_ok = lhs->is(ExprKind::kInteger) || lhs->is(ExprKind::kSymbol);
        if (lhs_ok && rhs->is(ExprKind::kSymbol)) {
          bool lp = lhs->is(ExprKind::kSymbol) && in_pending(pending, lhs);
          bool rp = in_pending(pending, rhs);
          if (lp != rp) {
            const ExprRef& u = lp ? lhs : rhs;
            const ExprRef& coeff = lp ? rhs : lhs;
            if (coeff->is(ExprKind::kInteger) || env.is_backed(coeff)) {
              out.emplace(u, extended(KeyEntry::divide_by(coeff)));
              erase_pending(pending, u);
            }
          }
        }
      }
      return;
    }
    case Value::Kind::kBool: {  // case 7: Eq(u, 1) from create_unbacked_symbool
      const ExprRef& e = a.expr();
      if (e->is(ExprKind::kEq) && e->arg(0)->is(ExprKind::kSymbol) &&
          e->arg(1)->is(ExprKind::kInteger) && e->arg(1)->int_value() == 1 &&
          in_pending(pending, e->arg(0))) {
        // The fault leaves out the int conversion, so the path reaches the SymBool (#114157).
        out.emplace(e->arg(0), fault_on(Fault::kConvertIntKeyDropped)
                                   ? path
                                   : extended(KeyEntry::convert_int()));
        erase_pending(pending, e->arg(0));
      }
      return;
    }
    case Value::Kind::kNone:
      return;  // case 8
  }
}

}  // namespace

Bindings binding_paths(const ShapeEnv& env, const Value& v, const std::vector<ExprRef>& symbols) {
  std::vector<ExprRef> pending = symbols;
  Bindings out;
  KeyPath root;
  walk(env, v, root, pending, out);
  return out;
}

namespace {

std::optional<ExprRef> replaced_symbol(const ShapeEnv& env, const Value& v) {
  if (v.kind() != Value::Kind::kInt && v.kind() != Value::Kind::kFloat) return std::nullopt;
  ExprRef e = env.replace(v.expr());
  if (!e->is(ExprKind::kSymbol)) return std::nullopt;
  return e;
}

// The record's copy of the old value, made only when the call is recorded.
struct CopyIfGiven {
  const Value* value;
  operator std::optional<Value>() const {
    return value ? std::optional<Value>(*value) : std::nullopt;
  }
};

}  // namespace

std::optional<Bindings> ShapeEnv::compute_unbacked_bindings(const Value& v, const Value* old,
                                                            bool peek) {
  CopyIfGiven old_copy{old};
  return recorded<event::ComputeUnbackedBindings>(
      std::tie(v, old_copy, peek), [&]() -> std::optional<Bindings> {
        if (symbols_.pending().empty()) return std::nullopt;
        std::vector<ExprRef> pending = peek ? symbols_.pending() : symbols_.take_pending();
        Bindings result;
        KeyPath root;
        walk(*this, v, root, pending, result);
        if (!peek && !pending.empty()) {
          std::string names;
          for (const ExprRef& s : pending) names += (names.empty() ? "" : ", ") + s->str();
          throw PendingUnbackedSymbolNotFound("Pending unbacked symbols {" + names +
                                              "} not in returned outputs " + v.str() +
                                              ". Did an op allocate an unbacked symbol (item(), "
                                              "nonzero(), new_dynamic_size()) more "
                                              "times than its output exposes? Every fresh symbol "
                                              "must appear in the output as a size, "
                                              "stride, offset, scalar, c*u or Eq(u, 1).");
        }
        if (old) {
          // Re-propagation of an existing node: equate fresh symbols with what the old value had.
          for (const auto& [s, path] : result) {
            std::optional<ExprRef> new_s = replaced_symbol(*this, key_get(v, path));
            if (!new_s) continue;
            Value old_v = key_get(*old, path);
            if (old_v.kind() == Value::Kind::kInt || old_v.kind() == Value::Kind::kFloat) {
              ExprRef old_e = replace(old_v.expr());
              if (old_e->is_number()) {
                eliminate_unbacked(*new_s, old_e);
              } else if (old_e != *new_s) {
                bool rename =
                    old_e->is(ExprKind::kSymbol) &&
                    (old_e->is_unbacked_symbol() || fault_on(Fault::kRebindRenamesBackedOld));
                if (rename) {
                  rename_unbacked_to(*new_s, old_e);
                } else {
                  eliminate_unbacked(*new_s, old_e);
                }
              }
            }
          }
        }
        return result;
      });
}

ExprRef ShapeEnv::resolve_renaming(const ExprRef& s) const {
  return replacements_.resolve_renaming(s);
}

Bindings ShapeEnv::resolve_unbacked_bindings(const Bindings& b) const {
  Bindings out;
  for (const auto& [s, path] : b) out.emplace(resolve_renaming(s), path);
  return out;
}

void ShapeEnv::rebind_unbacked(const Bindings& node_bindings, const Value& result,
                               bool is_placeholder) {
  return recorded<event::RebindUnbacked>(std::tie(node_bindings, result, is_placeholder), [&] {
    if (is_placeholder || node_bindings.empty()) return;
    for (const auto& [raw_u0, path] : resolve_unbacked_bindings(node_bindings)) {
      Value u1 = key_get(result, path);
      if (u1.is_constant_scalar()) continue;  // constant-ified on retrace: nothing to bind
      SF_CHECK(u1.kind() == Value::Kind::kInt || u1.kind() == Value::Kind::kFloat)
          << "binding path " << keypath_str(path) << " reaches " << u1.str();
      ExprRef raw_u1 = replace(u1.expr());
      // A fresh symbol its own range asserts pinned to a constant (the size of a slice of an
      // empty dim) still renames to the old one, as upstream, which reads the raw symbol: the
      // old symbol's asserts then stay placed at this node.
      if (raw_u1->is_ground() && u1.expr()->is_unbacked_symbol() && u1.expr() != raw_u0) {
        raw_u1 = u1.expr();
      }
      if (has_hint(raw_u1) && !raw_u1->is_unbacked_symbol()) continue;  // backed now
      // Undo int(bool(x)): Piecewise((1, Eq(x, 1)), (0, True)) with x in [0, 1] is x itself.
      if (raw_u1->is(ExprKind::kWhere) && !fault_on(Fault::kSymboolRebindNoUnwrap)) {
        const ExprRef& c = raw_u1->arg(0);
        if (c->is(ExprKind::kEq) && c->arg(0)->is(ExprKind::kSymbol) &&
            c->arg(1) == sym::integer(1) && raw_u1->arg(1) == sym::integer(1) &&
            raw_u1->arg(2) == sym::integer(0) &&
            var_range(c->arg(0)).issubset(ValueRange::ints(0, 1))) {
          ExprRef x = c->arg(0);
          SF_CHECK(sym::bool_to_int(sym::eq(x, sym::integer(1))) == raw_u1)
              << "re-packing the SymBool does not reproduce " << raw_u1->str();
          raw_u1 = x;
        }
      }
      if (!raw_u1->is(ExprKind::kSymbol)) {
        if (fault_on(Fault::kSymboolRebindNoUnwrap)) continue;  // taken for a folded constant
        SF_CHECK(raw_u1->is_ground()) << "rebind: " << raw_u0->str() << " re-propagated to "
                                      << raw_u1->str() << ", which should have been a constant";
        continue;
      }
      if (raw_u0 == raw_u1) {
        throw EngineBug("possible memo disaster: re-propagating the binding site of " +
                        raw_u0->str() + " (path " + keypath_str(path) +
                        ") allocated no fresh symbol; a memo survived the epoch bump");
      }
      if (fault_on(Fault::kRenameWrongDirection)) {
        rename_unbacked_to(raw_u0, raw_u1);  // old -> fresh: the name keeps changing (#124782)
      } else {
        rename_unbacked_to(raw_u1, raw_u0);
      }
    }
  });
}

}  // namespace sf
