// An own walk of keypaths (not key_get), so a wrong path and a wrong walker cannot agree.
#include "oracles/invariants/binding_paths.h"

#include <optional>

namespace sf::oracles {

namespace {

// The value a path prefix reaches, or a reason it reaches nothing.
struct Step {
  std::optional<Value> value;
  std::string error;
};

Step follow(const Value& root, const KeyPath& path, size_t end) {
  Value cur = root;
  for (size_t i = 0; i < end; ++i) {
    const KeyEntry& k = path[i];
    switch (k.kind) {
      case KeyEntry::Kind::kSequence:
        if (cur.kind() != Value::Kind::kTuple) return {std::nullopt, "[i] on a non-sequence"};
        if (k.index < 0 || static_cast<size_t>(k.index) >= cur.elems().size())
          return {std::nullopt, "index " + std::to_string(k.index) + " out of range"};
        cur = cur.elems()[static_cast<size_t>(k.index)];
        break;
      case KeyEntry::Kind::kCallMethod: {
        if (cur.kind() != Value::Kind::kTensor) return {std::nullopt, "a method on a non-tensor"};
        const TensorLike& t = *cur.tensor();
        if (k.method == TensorMethod::kStorageOffset) {
          cur = Value(t.storage_offset());
          break;
        }
        // size() and stride() take the next entry as their index.
        if (i + 1 >= end || path[i + 1].kind != KeyEntry::Kind::kSequence)
          return {std::nullopt, "size/stride without an index"};
        const std::vector<SymInt>& xs = k.method == TensorMethod::kSize ? t.sizes() : t.strides();
        int64_t d = path[++i].index;
        if (d < 0 || static_cast<size_t>(d) >= xs.size())
          return {std::nullopt, "dim " + std::to_string(d) + " out of range"};
        cur = Value(xs[static_cast<size_t>(d)]);
        break;
      }
      case KeyEntry::Kind::kInnerTensor: {
        if (cur.kind() != Value::Kind::kTensor) return {std::nullopt, ".attr on a non-tensor"};
        std::optional<Value> inner;
        for (const auto& [attr, v] : cur.tensor()->inner_tensors()) {
          if (attr == k.attr) inner = v;
        }
        if (!inner) return {std::nullopt, "no inner tensor ." + k.attr};
        cur = *inner;
        break;
      }
      case KeyEntry::Kind::kDivideBy:
      case KeyEntry::Kind::kConvertInt:
        return {std::nullopt, "a conversion before the last entry"};
    }
  }
  return {cur, ""};
}

bool is_product_of(const ExprRef& e, const ExprRef& a, const ExprRef& b) {
  if (!e->is(sym::ExprKind::kMul) || e->num_args() != 2) return false;
  return (e->arg(0) == a && e->arg(1) == b) || (e->arg(0) == b && e->arg(1) == a);
}

}  // namespace

std::vector<Violation> check_binding_paths(const Value& value, const Bindings& bindings) {
  std::vector<Violation> out;
  for (const auto& binding : bindings) {
    // Named, not a structured binding: clang 14 cannot capture those in the lambda below.
    const ExprRef& s = binding.first;
    const KeyPath& path = binding.second;
    bool converts = !path.empty() && (path.back().kind == KeyEntry::Kind::kDivideBy ||
                                      path.back().kind == KeyEntry::Kind::kConvertInt);
    Step at = follow(value, path, converts ? path.size() - 1 : path.size());
    auto fail = [&](const std::string& why) {
      out.push_back(
          {"INV-4", s->str() + " at " + keypath_str(path) + " of " + value.str() + ": " + why});
    };
    if (!at.value) {
      fail(at.error);
      continue;
    }
    const Value& v = *at.value;
    bool scalar = v.kind() == Value::Kind::kInt || v.kind() == Value::Kind::kFloat ||
                  v.kind() == Value::Kind::kBool;
    if (!scalar) {
      fail("the path ends at a " + std::string(v.kind() == Value::Kind::kTensor  ? "tensor"
                                               : v.kind() == Value::Kind::kTuple ? "sequence"
                                                                                 : "None"));
      continue;
    }
    const ExprRef& e = v.expr();
    if (!converts) {
      if (v.kind() == Value::Kind::kBool || !(e == s)) fail("reaches " + e->str());
    } else if (path.back().kind == KeyEntry::Kind::kDivideBy) {
      const ExprRef& d = path.back().divisor;
      bool positive = !d->is(sym::ExprKind::kInteger) || d->int_value() > 0;
      if (v.kind() != Value::Kind::kInt || !is_product_of(e, d, s) || !positive)
        fail("reaches " + e->str() + ", not " + d->str() + "*" + s->str());
    } else if (v.kind() != Value::Kind::kBool || !e->is(sym::ExprKind::kEq) || !(e->arg(0) == s) ||
               !e->arg(1)->is(sym::ExprKind::kInteger) || e->arg(1)->int_value() != 1) {
      fail("reaches " + e->str() + ", not Eq(" + s->str() + ", 1)");
    }
  }
  return out;
}

}  // namespace sf::oracles
