// Concrete evaluation with definedness: undefined on division by zero, int64 overflow,
// non-finite float-to-int conversion, or a symbol without a value.
#include "engine/sym/eval.h"

#include <cmath>
#include <unordered_map>

#include "engine/base/check.h"
#include "engine/sym/numeric.h"

namespace sf::sym {

double Concrete::as_double() const {
  switch (type) {
    case ExprType::kInt:
      return static_cast<double>(i);
    case ExprType::kFloat:
      return f;
    case ExprType::kBool:
      return b ? 1.0 : 0.0;
  }
  return 0.0;
}

bool Concrete::operator==(const Concrete& o) const {
  if (type != o.type) return false;
  switch (type) {
    case ExprType::kInt:
      return i == o.i;
    case ExprType::kFloat:
      return f == o.f || (std::isnan(f) && std::isnan(o.f));
    case ExprType::kBool:
      return b == o.b;
  }
  return false;
}

std::string Concrete::str() const {
  switch (type) {
    case ExprType::kInt:
      return std::to_string(i);
    case ExprType::kFloat:
      return std::to_string(f);
    case ExprType::kBool:
      return b ? "True" : "False";
  }
  return "?";
}

namespace {

class Evaluator {
 public:
  explicit Evaluator(const Assignment& values) : values_(values) {}

  EvalResult run(const ExprRef& e) {
    auto it = memo_.find(e.get());
    if (it != memo_.end()) return it->second;
    EvalResult r = eval(e);
    memo_.emplace(e.get(), r);
    return r;
  }

 private:
  static EvalResult ok(Concrete c) { return EvalResult{true, c, ""}; }
  static EvalResult undefined(std::string why) { return EvalResult{false, Concrete{}, why}; }

  EvalResult eval(const ExprRef& e) {
    switch (e->kind()) {
      case ExprKind::kInteger:
        return ok(Concrete::of_int(e->int_value()));
      case ExprKind::kFloat:
        return ok(Concrete::of_float(e->float_value()));
      case ExprKind::kBoolConst:
        return ok(Concrete::of_bool(e->bool_value()));
      case ExprKind::kSymbol: {
        auto it = values_.find(e);
        if (it == values_.end()) return undefined("no value for " + e->str());
        return ok(it->second);
      }
      case ExprKind::kWhere: {  // lazy: only the chosen branch must be defined
        EvalResult c = run(e->arg(0));
        if (!c.defined) return c;
        return coerce(run(c.value.b ? e->arg(1) : e->arg(2)), e->type());
      }
      default:
        break;
    }
    std::vector<Concrete> args;
    args.reserve(e->num_args());
    for (const ExprRef& a : e->args()) {
      EvalResult r = run(a);
      if (!r.defined) return r;
      args.push_back(r.value);
    }
    return apply(e, args);
  }

  static EvalResult coerce(EvalResult r, ExprType type) {
    if (r.defined && type == ExprType::kFloat && r.value.type == ExprType::kInt) {
      r.value = Concrete::of_float(static_cast<double>(r.value.i));
    }
    return r;
  }

  static bool all_int(const std::vector<Concrete>& v) {
    for (const Concrete& c : v) {
      if (c.type != ExprType::kInt) return false;
    }
    return true;
  }

  EvalResult apply(const ExprRef& e, const std::vector<Concrete>& a) {
    auto fail = [&](const char* what) { return undefined(std::string(what) + " in " + e->str()); };
    switch (e->kind()) {
      case ExprKind::kAdd:
      case ExprKind::kMul: {
        bool is_add = e->is(ExprKind::kAdd);
        if (all_int(a)) {
          int64_t acc = is_add ? 0 : 1;
          for (const Concrete& c : a) {
            bool fine = is_add ? checked_add(acc, c.i, &acc) : checked_mul(acc, c.i, &acc);
            if (!fine) return fail("int64 overflow");
          }
          return ok(Concrete::of_int(acc));
        }
        double acc = is_add ? 0.0 : 1.0;
        for (const Concrete& c : a) acc = is_add ? acc + c.as_double() : acc * c.as_double();
        return ok(Concrete::of_float(acc));
      }
      case ExprKind::kPow: {
        if (a[0].type == ExprType::kInt) {
          int64_t r;
          if (!checked_pow(a[0].i, e->pow_exponent(), &r)) return fail("overflow");
          return ok(Concrete::of_int(r));
        }
        return ok(Concrete::of_float(std::pow(a[0].f, static_cast<double>(e->pow_exponent()))));
      }
      case ExprKind::kFloorDiv:
      case ExprKind::kCleanDiv: {
        int64_t r;
        if (a[1].i == 0) return fail("division by zero");
        if (!py_floordiv(a[0].i, a[1].i, &r)) return fail("overflow");
        return ok(Concrete::of_int(r));
      }
      case ExprKind::kMod: {
        int64_t r;
        if (!py_mod(a[0].i, a[1].i, &r)) return fail("modulo by zero");
        return ok(Concrete::of_int(r));
      }
      case ExprKind::kMax:
      case ExprKind::kMin: {
        bool is_max = e->is(ExprKind::kMax);
        if (all_int(a)) {
          int64_t acc = a[0].i;
          for (const Concrete& c : a) acc = is_max ? std::max(acc, c.i) : std::min(acc, c.i);
          return ok(Concrete::of_int(acc));
        }
        double acc = a[0].as_double();
        for (const Concrete& c : a) {
          acc = is_max ? std::fmax(acc, c.as_double()) : std::fmin(acc, c.as_double());
        }
        return ok(Concrete::of_float(acc));
      }
      case ExprKind::kToFloat:
        return ok(Concrete::of_float(a[0].as_double()));
      case ExprKind::kTruncToInt: {
        double v = std::trunc(a[0].as_double());
        if (!(v >= -9.2233720368547758e18 && v < 9.2233720368547758e18)) {
          return fail("non-finite or out-of-range TruncToInt");
        }
        return ok(Concrete::of_int(static_cast<int64_t>(v)));
      }
      case ExprKind::kTrueDiv: {
        if (a[1].as_double() == 0.0) return fail("division by zero");
        return ok(Concrete::of_float(a[0].as_double() / a[1].as_double()));
      }
      case ExprKind::kEq:
      case ExprKind::kNe:
      case ExprKind::kLt:
      case ExprKind::kLe: {
        int c;  // -1, 0, 1 or 2 for unordered (NaN)
        if (all_int(a)) {
          c = a[0].i < a[1].i ? -1 : (a[0].i > a[1].i ? 1 : 0);
        } else {
          double x = a[0].as_double(), y = a[1].as_double();
          c = x < y ? -1 : (x > y ? 1 : (x == y ? 0 : 2));
        }
        bool r = e->is(ExprKind::kEq)   ? c == 0
                 : e->is(ExprKind::kNe) ? c != 0
                 : e->is(ExprKind::kLt) ? c == -1
                                        : (c == -1 || c == 0);
        return ok(Concrete::of_bool(r));
      }
      case ExprKind::kAnd:
      case ExprKind::kOr: {
        bool is_and = e->is(ExprKind::kAnd);
        bool acc = is_and;
        for (const Concrete& c : a) acc = is_and ? (acc && c.b) : (acc || c.b);
        return ok(Concrete::of_bool(acc));
      }
      case ExprKind::kNot:
        return ok(Concrete::of_bool(!a[0].b));
      case ExprKind::kInteger:
      case ExprKind::kFloat:
      case ExprKind::kBoolConst:
      case ExprKind::kSymbol:
      case ExprKind::kWhere:
        break;
    }
    SF_UNREACHABLE() << e->str();
  }

  const Assignment& values_;
  std::unordered_map<const Expr*, EvalResult> memo_;
};

}  // namespace

EvalResult evaluate(const ExprRef& e, const Assignment& values) {
  return Evaluator(values).run(e);
}

}  // namespace sf::sym
