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

namespace {

// One operation kind per method, each catching its own user errors: the unwinder then walks
// one frame of ours with a small call-site table, and cleans up and catches in one landing pad
// (with every operation inlined in one loop, it read ~150 call-site records per user error).
class Driver {
 public:
  Driver(FuzzSource& src, ShapeEnv& env, std::vector<std::string>* script)
      : src_(src), env_(env), script_(script) {}

  DriveStats drive(int steps) {
    for (int step = 0; step < steps; ++step) {
      static const std::vector<uint32_t> kWeights = {3, 4, 2, 5, 3, 3, 2, 2, 2};
      size_t op = ints_.empty() ? 0 : src_.weighted(kWeights);
      ++stats_.calls;
      switch (op) {
        case 0:
          input(step);
          break;
        case 1:
          nonzero();
          break;
        case 2:
          item();
          break;
        case 3:
          check();
          break;
        case 4:
          guard();
          break;
        case 5:
          static_queries();
          break;
        case 6:
          rebind();
          break;
        case 8:
          expose();
          break;
        default:
          divisible();
          break;
      }
    }
    return std::move(stats_);
  }

 private:
  // Script lines are built only when asked for: the fuzzer and the timed bench runs skip them.
  template <typename F>
  void log(F&& make_line) {
    if (script_) script_->push_back(make_line());
  }
  size_t pick() { return src_.pick(ints_.size()); }
  static std::string ref(size_t i) { return "I[" + std::to_string(i) + "]"; }
  // Runs one operation's body (inlined into its method, the handler frame), counting a user
  // error instead of propagating it.
  template <typename F>
  __attribute__((always_inline)) void counting_user_errors(F&& body) {
    try {
      body();
    } catch (const UserError&) {
      count_user_error();
    }
  }
  // A user error, thrown or returned by a try_ call (guards and checks, the frequent ones).
  void count_user_error() {
    ++stats_.user_errors;
    env_.clear_pending_fresh_unbacked_symbols();
  }

  __attribute__((noinline)) void input(int step) {  // an input dimension
    counting_user_errors([&]() __attribute__((always_inline)) {
      int64_t hint = src_.range(0, 64);
      bool unbacked = src_.chance(1, 5);
      DimDynamic d = unbacked ? DimDynamic::kSizeLikeUnbacked : DimDynamic::kDuck;
      log([&] {
        return "input " + std::to_string(ints_.size()) + " " + std::to_string(hint) + " " +
               (unbacked ? "unbacked" : "duck");
      });
      SymInt s = env_.create_symbol(hint, "in" + std::to_string(step) + ".size(0)", d);
      if (unbacked) env_.compute_unbacked_bindings(Value(s));
      ints_.push_back(s);
    });
  }

  // nonzero-like: a fresh size-like symbol bounded by a numel, bound at its node
  __attribute__((noinline)) void nonzero() {
    counting_user_errors([&]() __attribute__((always_inline)) {
      int64_t max = src_.range(1, 128);
      log([&] { return "nonzero " + std::to_string(ints_.size()) + " " + std::to_string(max); });
      SymInt u = env_.create_unbacked_symint();
      ints_.push_back(u);
      env_.constrain_range_for_size(u.expr(), std::nullopt, max);
      Value v = Value::tensor(TensorMeta::contiguous({u, SymInt(2)}));
      std::optional<Bindings> b = env_.compute_unbacked_bindings(v);
      if (b) binding_sites_.emplace_back(ints_.size() - 1, *b);
      if (b) stats_.exposed.emplace_back(v, *b);
    });
  }

  // a fresh symbol exposed in a stride, an offset, as c*u, or in an inner tensor
  __attribute__((noinline)) void expose() {
    counting_user_errors([&]() __attribute__((always_inline)) {
      auto layout = static_cast<Layout>(src_.pick(static_cast<size_t>(Layout::kCount)));
      int64_t c = src_.range(2, 10);
      log([&] {
        return "expose " + std::to_string(ints_.size()) + " " +
               kLayoutNames[static_cast<size_t>(layout)] + " " + std::to_string(c);
      });
      SymInt u = env_.create_unbacked_symint();
      ints_.push_back(u);
      env_.constrain_range_for_size(u.expr(), std::nullopt, std::nullopt);
      Value v = exposing(layout, u, c);
      std::optional<Bindings> b = env_.compute_unbacked_bindings(v);
      if (b) stats_.exposed.emplace_back(v, *b);
    });
  }

  __attribute__((noinline)) void item() {  // item(): unconstrained
    counting_user_errors([&]() __attribute__((always_inline)) {
      log([&] { return "item " + std::to_string(ints_.size()); });
      SymInt u = env_.create_unbacked_symint();
      ints_.push_back(u);
      std::optional<Bindings> b = env_.compute_unbacked_bindings(Value(u));
      if (b) binding_sites_.emplace_back(ints_.size() - 1, *b);
      if (b) stats_.exposed.emplace_back(Value(u), *b);
    });
  }

  __attribute__((noinline)) void check() {  // check(...)
    counting_user_errors([&]() __attribute__((always_inline)) {
      size_t a = pick(), b = pick(), r = src_.pick(kNumRelations);
      int64_t c = src_.range(-3, 3);
      log([&] {
        return "check (" + ref(a) + " + " + std::to_string(c) + ") " + relation_name(r) + " " +
               ref(b);
      });
      if (!env_.try_check(relation(r, ints_[a] + SymInt(c), ints_[b]), "generated check")) {
        count_user_error();
      }
    });
  }

  __attribute__((noinline)) void guard() {  // a guard (DDE on unbacked is a user error)
    counting_user_errors([&]() __attribute__((always_inline)) {
      size_t a = pick(), r = src_.pick(kNumRelations);
      int64_t c = src_.range(0, 8);
      log([&] { return "guard " + ref(a) + " " + relation_name(r) + " " + std::to_string(c); });
      if (!env_.try_guard_bool(relation(r, ints_[a], SymInt(c))).has_value()) count_user_error();
    });
  }

  __attribute__((noinline)) void static_queries() {  // static queries and fallbacks
    counting_user_errors([&]() __attribute__((always_inline)) {
      size_t a = pick(), b = pick(), r1 = src_.pick(kNumRelations), c = pick(),
             r2 = src_.pick(kNumRelations), d = pick();
      int64_t k = src_.range(0, 4), m = src_.range(0, 7);
      log([&] {
        return "static " + ref(a) + " " + relation_name(r1) + " " + ref(b) + " | " + ref(c) + " " +
               relation_name(r2) + " " + std::to_string(k) + " | (" + ref(d) + " * 4 + " +
               std::to_string(m) + ") // 4";
      });
      env_.statically_known_true(relation(r1, ints_[a], ints_[b]));
      env_.guard_or_false(relation(r2, ints_[c], SymInt(k)));
      env_.simplify(floordiv(ints_[d] * SymInt(4) + SymInt(m), SymInt(4)).expr());
    });
  }

  // a retrace of a binding site: fresh symbol renamed back
  __attribute__((noinline)) void rebind() {
    counting_user_errors([&]() __attribute__((always_inline)) {
      if (binding_sites_.empty()) return;
      auto& site = binding_sites_[src_.pick(binding_sites_.size())];
      const auto old = site.first;  // named, not a structured binding: clang 14 lambdas
      auto& bindings = site.second;
      bool scalar = bindings.begin()->second.empty();
      log([&] { return "rebind " + std::to_string(old) + " " + (scalar ? "scalar" : "tensor"); });
      SymInt fresh = env_.create_unbacked_symint();
      Value v = scalar ? Value(fresh) : Value::tensor(TensorMeta::contiguous({fresh, SymInt(2)}));
      env_.compute_unbacked_bindings(v);
      env_.rebind_unbacked(bindings, v, false);
    });
  }

  __attribute__((noinline)) void divisible() {  // divisibility facts
    counting_user_errors([&]() __attribute__((always_inline)) {
      size_t a = pick();
      int64_t m = src_.range(2, 6);
      log([&] { return "divisible " + ref(a) + " % " + std::to_string(m) + " == 0"; });
      if (!env_.try_check(sym_eq(mod(ints_[a], SymInt(m)), SymInt(0)), "divisible")) {
        count_user_error();
        return;
      }
      if (!env_.pending_fresh_unbacked_symbols().empty()) {
        std::vector<Value> exposed;
        for (const ExprRef& s : env_.pending_fresh_unbacked_symbols()) {
          exposed.push_back(Value(SymInt(s)));
        }
        env_.compute_unbacked_bindings(Value::tuple(exposed));
      }
    });
  }

  FuzzSource& src_;
  ShapeEnv& env_;
  std::vector<std::string>* script_;
  DriveStats stats_;
  std::vector<SymInt> ints_;
  std::vector<std::pair<size_t, Bindings>> binding_sites_;  // for retrace renames
};

}  // namespace

DriveStats drive_shape_env(FuzzSource& src, ShapeEnv& env, int steps,
                           std::vector<std::string>* script) {
  return Driver(src, env, script).drive(steps);
}

}  // namespace sf::fuzz
