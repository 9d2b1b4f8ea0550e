// A ShapeEnv API-sequence generator shaped like real traces (inputs, data-dependent ops, checks,
// guards, retraces), with user errors counted rather than propagated.
#include "fuzz/gen/shape_env_gen.h"

#include <memory>
#include <vector>

#include "engine/base/errors.h"
#include "engine/sym/make.h"

namespace sf::fuzz {

namespace {

// A wrapper tensor subclass (spec §2.6 case 2): its metadata is its inner tensors'.
class WrapperMeta : public TensorMeta {
 public:
  WrapperMeta(std::vector<SymInt> sizes, std::vector<std::pair<std::string, Value>> inner)
      : TensorMeta(*TensorMeta::contiguous(std::move(sizes))), inner_(std::move(inner)) {}
  std::vector<std::pair<std::string, Value>> inner_tensors() const override { return inner_; }

 private:
  std::vector<std::pair<std::string, Value>> inner_;
};

// Where a data-dependent op's output exposes its fresh symbol u: each layout reaches one
// binding-path kind of spec §2.6 that the program language's ops never produce.
enum class Layout { kStride, kStorageOffset, kMultiple, kInnerTensor, kCount };
const char* const kLayoutNames[] = {"stride", "storage_offset", "multiple", "inner"};

Value exposing(Layout layout, const SymInt& u, int64_t c) {
  switch (layout) {
    case Layout::kStride:  // a view whose stride is data-dependent (as_strided-like)
      return Value::tensor(std::make_shared<TensorMeta>(std::vector<SymInt>{SymInt(2), SymInt(3)},
                                                        std::vector<SymInt>{u, SymInt(1)}));
    case Layout::kStorageOffset:  // a view at a data-dependent offset
      return Value::tensor(std::make_shared<TensorMeta>(std::vector<SymInt>{SymInt(2)},
                                                        std::vector<SymInt>{SymInt(1)}, u));
    case Layout::kMultiple:  // a fake kernel returning c*u elements (T47's custom op)
      return Value::tensor(TensorMeta::contiguous({SymInt(c) * u, SymInt(2)}));
    case Layout::kInnerTensor:
    case Layout::kCount:
      break;
  }
  // A subclass whose data and per-row scales both have u rows.
  return Value::tensor(std::make_shared<WrapperMeta>(
      std::vector<SymInt>{u, SymInt(4)},
      std::vector<std::pair<std::string, Value>>{
          {"data", Value::tensor(TensorMeta::contiguous({u, SymInt(4)}))},
          {"scale", Value::tensor(TensorMeta::contiguous({u}))}}));
}

}  // namespace

SymBool relation(size_t op, const SymInt& a, const SymInt& b) {
  switch (op % kNumRelations) {
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

const char* relation_name(size_t op) {
  static const char* const kNames[kNumRelations] = {"==", "!=", "<", "<=", ">", ">="};
  return kNames[op % kNumRelations];
}

DriveStats drive_shape_env(FuzzSource& src, ShapeEnv& env, int steps,
                           std::vector<std::string>* script) {
  DriveStats stats;
  std::vector<SymInt> ints;
  std::vector<std::pair<size_t, Bindings>> binding_sites;  // for retrace renames
  // Script lines are built only when asked for: the fuzzer and the timed bench runs skip them.
  auto log = [&](auto&& make_line) {
    if (script) script->push_back(make_line());
  };
  auto pick = [&]() { return src.pick(ints.size()); };
  auto ref = [](size_t i) { return "I[" + std::to_string(i) + "]"; };
  for (int step = 0; step < steps; ++step) {
    size_t op = ints.empty() ? 0 : src.weighted({3, 4, 2, 5, 3, 3, 2, 2, 2});
    ++stats.calls;
    try {
      switch (op) {
        case 0: {  // an input dimension
          int64_t hint = src.range(0, 64);
          bool unbacked = src.chance(1, 5);
          DimDynamic d = unbacked ? DimDynamic::kSizeLikeUnbacked : DimDynamic::kDuck;
          log([&] {
            return "input " + std::to_string(ints.size()) + " " + std::to_string(hint) + " " +
                   (unbacked ? "unbacked" : "duck");
          });
          SymInt s = env.create_symbol(hint, "in" + std::to_string(step) + ".size(0)", d);
          if (unbacked) env.compute_unbacked_bindings(Value(s));
          ints.push_back(s);
          break;
        }
        case 1: {  // nonzero-like: fresh size-like symbol bounded by a numel, bound at its node
          int64_t max = src.range(1, 128);
          log([&] { return "nonzero " + std::to_string(ints.size()) + " " + std::to_string(max); });
          SymInt u = env.create_unbacked_symint();
          ints.push_back(u);
          env.constrain_range_for_size(u.expr(), std::nullopt, max);
          Value v = Value::tensor(TensorMeta::contiguous({u, SymInt(2)}));
          std::optional<Bindings> b = env.compute_unbacked_bindings(v);
          if (b) binding_sites.emplace_back(ints.size() - 1, *b);
          if (b) stats.exposed.emplace_back(v, *b);
          break;
        }
        case 8: {  // a fresh symbol exposed in a stride, an offset, as c*u, or in an inner tensor
          auto layout = static_cast<Layout>(src.pick(static_cast<size_t>(Layout::kCount)));
          int64_t c = src.range(2, 10);
          log([&] {
            return "expose " + std::to_string(ints.size()) + " " +
                   kLayoutNames[static_cast<size_t>(layout)] + " " + std::to_string(c);
          });
          SymInt u = env.create_unbacked_symint();
          ints.push_back(u);
          env.constrain_range_for_size(u.expr(), std::nullopt, std::nullopt);
          Value v = exposing(layout, u, c);
          std::optional<Bindings> b = env.compute_unbacked_bindings(v);
          if (b) stats.exposed.emplace_back(v, *b);
          break;
        }
        case 2: {  // item(): unconstrained
          log([&] { return "item " + std::to_string(ints.size()); });
          SymInt u = env.create_unbacked_symint();
          ints.push_back(u);
          std::optional<Bindings> b = env.compute_unbacked_bindings(Value(u));
          if (b) binding_sites.emplace_back(ints.size() - 1, *b);
          if (b) stats.exposed.emplace_back(Value(u), *b);
          break;
        }
        case 3: {  // check(...)
          size_t a = pick(), b = pick(), r = src.pick(kNumRelations);
          int64_t c = src.range(-3, 3);
          log([&] {
            return "check (" + ref(a) + " + " + std::to_string(c) + ") " + relation_name(r) + " " +
                   ref(b);
          });
          env.check(relation(r, ints[a] + SymInt(c), ints[b]), "generated check");
          break;
        }
        case 4: {  // a guard (DDE on unbacked is a user error)
          size_t a = pick(), r = src.pick(kNumRelations);
          int64_t c = src.range(0, 8);
          log([&] { return "guard " + ref(a) + " " + relation_name(r) + " " + std::to_string(c); });
          env.guard_bool(relation(r, ints[a], SymInt(c)));
          break;
        }
        case 5: {  // static queries and fallbacks
          size_t a = pick(), b = pick(), r1 = src.pick(kNumRelations), c = pick(),
                 r2 = src.pick(kNumRelations), d = pick();
          int64_t k = src.range(0, 4), m = src.range(0, 7);
          log([&] {
            return "static " + ref(a) + " " + relation_name(r1) + " " + ref(b) + " | " + ref(c) +
                   " " + relation_name(r2) + " " + std::to_string(k) + " | (" + ref(d) + " * 4 + " +
                   std::to_string(m) + ") // 4";
          });
          env.statically_known_true(relation(r1, ints[a], ints[b]));
          env.guard_or_false(relation(r2, ints[c], SymInt(k)));
          env.simplify(floordiv(ints[d] * SymInt(4) + SymInt(m), SymInt(4)).expr());
          break;
        }
        case 6: {  // a retrace of a binding site: fresh symbol renamed back
          if (binding_sites.empty()) break;
          auto& site = binding_sites[src.pick(binding_sites.size())];
          const auto old = site.first;  // named, not a structured binding: clang 14 lambdas
          auto& bindings = site.second;
          bool scalar = bindings.begin()->second.empty();
          log([&] {
            return "rebind " + std::to_string(old) + " " + (scalar ? "scalar" : "tensor");
          });
          SymInt fresh = env.create_unbacked_symint();
          Value v =
              scalar ? Value(fresh) : Value::tensor(TensorMeta::contiguous({fresh, SymInt(2)}));
          env.compute_unbacked_bindings(v);
          env.rebind_unbacked(bindings, v, false);
          break;
        }
        default: {  // divisibility facts
          size_t a = pick();
          int64_t m = src.range(2, 6);
          log([&] { return "divisible " + ref(a) + " % " + std::to_string(m) + " == 0"; });
          env.check(sym_eq(mod(ints[a], SymInt(m)), SymInt(0)), "divisible");
          if (!env.pending_fresh_unbacked_symbols().empty()) {
            std::vector<Value> exposed;
            for (const ExprRef& s : env.pending_fresh_unbacked_symbols()) {
              exposed.push_back(Value(SymInt(s)));
            }
            env.compute_unbacked_bindings(Value::tuple(exposed));
          }
          break;
        }
      }
    } catch (const UserError&) {
      ++stats.user_errors;
      env.clear_pending_fresh_unbacked_symbols();
    }
  }
  return stats;
}

}  // namespace sf::fuzz
