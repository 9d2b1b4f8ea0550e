// A ShapeEnv API-sequence generator shaped like real traces (inputs, data-dependent ops, checks,
// guards, retraces), with user errors counted rather than propagated.
#include "fuzz/gen/shape_env_gen.h"

#include <vector>

#include "engine/base/errors.h"
#include "engine/sym/make.h"

namespace sf::fuzz {

namespace {

SymBool random_relation(FuzzSource& src, const SymInt& a, const SymInt& b) {
  switch (src.pick(6)) {
    case 0:
      return sym_eq(a, b);
    case 1:
      return sym_ne(a, b);
    case 2:
      return sym_lt(a, b);
    case 3:
      return sym_le(a, b);
    case 4:
      return sym_gt(a, b);
    default:
      return sym_ge(a, b);
  }
}

}  // namespace

DriveStats drive_shape_env(FuzzSource& src, ShapeEnv& env, int steps) {
  DriveStats stats;
  std::vector<SymInt> ints;
  std::vector<std::pair<SymInt, Bindings>> binding_sites;  // for retrace renames
  auto pick_int = [&]() { return ints[src.pick(ints.size())]; };
  for (int step = 0; step < steps; ++step) {
    size_t op = ints.empty() ? 0 : src.weighted({3, 4, 2, 5, 3, 3, 2, 2});
    ++stats.calls;
    try {
      switch (op) {
        case 0: {  // an input dimension
          int64_t hint = src.range(0, 64);
          DimDynamic d = src.chance(1, 5) ? DimDynamic::kSizeLikeUnbacked : DimDynamic::kDuck;
          SymInt s = env.create_symbol(hint, "in" + std::to_string(step) + ".size(0)", d);
          if (d == DimDynamic::kSizeLikeUnbacked) env.compute_unbacked_bindings(Value(s));
          ints.push_back(s);
          break;
        }
        case 1: {  // nonzero-like: fresh size-like symbol bounded by a numel, bound at its node
          SymInt u = env.create_unbacked_symint();
          env.constrain_range_for_size(u.expr(), std::nullopt, src.range(1, 128));
          Value v = Value::tensor(TensorMeta::contiguous({u, SymInt(2)}));
          std::optional<Bindings> b = env.compute_unbacked_bindings(v);
          if (b) binding_sites.emplace_back(u, *b);
          ints.push_back(u);
          break;
        }
        case 2: {  // item(): unconstrained
          SymInt u = env.create_unbacked_symint();
          std::optional<Bindings> b = env.compute_unbacked_bindings(Value(u));
          if (b) binding_sites.emplace_back(u, *b);
          ints.push_back(u);
          break;
        }
        case 3:  // check(...)
          env.check(random_relation(src, pick_int() + SymInt(src.range(-3, 3)), pick_int()),
                    "generated check");
          break;
        case 4:  // a guard (DDE on unbacked is a user error)
          env.guard_bool(random_relation(src, pick_int(), SymInt(src.range(0, 8))));
          break;
        case 5:  // static queries and fallbacks
          env.statically_known_true(random_relation(src, pick_int(), pick_int()));
          env.guard_or_false(random_relation(src, pick_int(), SymInt(src.range(0, 4))));
          env.simplify(
              floordiv(pick_int() * SymInt(4) + SymInt(src.range(0, 7)), SymInt(4)).expr());
          break;
        case 6: {  // a retrace of a binding site: fresh symbol renamed back
          if (binding_sites.empty()) break;
          auto& [old, bindings] = binding_sites[src.pick(binding_sites.size())];
          SymInt fresh = env.create_unbacked_symint();
          Value v = bindings.begin()->second.empty()
                        ? Value(fresh)
                        : Value::tensor(TensorMeta::contiguous({fresh, SymInt(2)}));
          env.compute_unbacked_bindings(v);
          env.rebind_unbacked(bindings, v, false);
          break;
        }
        default:  // divisibility facts
          env.check(sym_eq(mod(pick_int(), SymInt(src.range(2, 6))), SymInt(0)), "divisible");
          if (!env.pending_fresh_unbacked_symbols().empty()) {
            std::vector<Value> exposed;
            for (const ExprRef& s : env.pending_fresh_unbacked_symbols())
              exposed.push_back(Value(SymInt(s)));
            env.compute_unbacked_bindings(Value::tuple(exposed));
          }
          break;
      }
    } catch (const UserError&) {
      ++stats.user_errors;
      env.clear_pending_fresh_unbacked_symbols();
    }
  }
  return stats;
}

}  // namespace sf::fuzz
