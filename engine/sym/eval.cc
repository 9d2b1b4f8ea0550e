// Concrete evaluation with definedness: undefined on division by zero, non-finite float-to-int
// conversion, a symbol without a value, or a final integer outside int64. Integer arithmetic runs
// in 128 bits, so the result does not depend on argument order (Python ints are unbounded; int64
// overflow of the *value* is what we call undefined).
#include "engine/sym/eval.h"

#include <cmath>
#include <unordered_map>

#include "engine/base/check.h"

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
      // NaN's sign is not part of its value (x86 makes 0/0 negative, CUDA positive).
      return std::isnan(f) ? "nan" : std::to_string(f);
    case ExprType::kBool:
      return b ? "True" : "False";
  }
  return "?";
}

namespace {

using i128 = __int128;
constexpr i128 kI64Max = INT64_MAX;
constexpr i128 kI64Min = INT64_MIN;

// The evaluator's internal value: integers are 128-bit.
struct Val {
  ExprType type = ExprType::kInt;
  i128 i = 0;
  double f = 0.0;
  bool b = false;
  double as_double() const {
    return type == ExprType::kFloat ? f : (type == ExprType::kBool ? (b ? 1.0 : 0.0) : double(i));
  }
};

struct Result {
  bool defined = false;
  Val value;
  std::string why;
};

Result ok(Val v) { return Result{true, v, ""}; }
Result undefined(std::string why) { return Result{false, Val{}, std::move(why)}; }
Val int_val(i128 v) { return Val{ExprType::kInt, v, 0.0, false}; }
Val float_val(double v) { return Val{ExprType::kFloat, 0, v, false}; }
Val bool_val(bool v) { return Val{ExprType::kBool, 0, 0.0, v}; }

i128 floordiv128(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

i128 mod128(i128 a, i128 b) {
  i128 r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

class Evaluator {
 public:
  explicit Evaluator(const Assignment& values) : values_(values) {}

  Result run(const ExprRef& e) {
    auto it = memo_.find(e.get());
    if (it != memo_.end()) return it->second;
    Result r = eval(e);
    memo_.emplace(e.get(), r);
    return r;
  }

 private:
  Result eval(const ExprRef& e) {
    switch (e->kind()) {
      case ExprKind::kInteger:
        return ok(int_val(e->int_value()));
      case ExprKind::kFloat:
        return ok(float_val(e->float_value()));
      case ExprKind::kBoolConst:
        return ok(bool_val(e->bool_value()));
      case ExprKind::kSymbol: {
        auto it = values_.find(e);
        if (it == values_.end()) return undefined("no value for " + e->str());
        const Concrete& c = it->second;
        if (c.type == ExprType::kInt) return ok(int_val(c.i));
        if (c.type == ExprType::kFloat) return ok(float_val(c.f));
        return ok(bool_val(c.b));
      }
      case ExprKind::kWhere: {  // lazy: only the chosen branch must be defined
        Result c = run(e->arg(0));
        if (!c.defined) return c;
        Result r = run(c.value.b ? e->arg(1) : e->arg(2));
        if (r.defined && e->is_float() && r.value.type == ExprType::kInt) {
          r.value = float_val(static_cast<double>(r.value.i));
        }
        return r;
      }
      case ExprKind::kAdd:
      case ExprKind::kMul:
      case ExprKind::kPow:
      case ExprKind::kFloorDiv:
      case ExprKind::kMod:
      case ExprKind::kCleanDiv:
      case ExprKind::kMax:
      case ExprKind::kMin:
      case ExprKind::kToFloat:
      case ExprKind::kTruncToInt:
      case ExprKind::kTrueDiv:
      case ExprKind::kEq:
      case ExprKind::kNe:
      case ExprKind::kLt:
      case ExprKind::kLe:
      case ExprKind::kAnd:
      case ExprKind::kOr:
      case ExprKind::kNot:
        break;
    }
    std::vector<Val> args;
    args.reserve(e->num_args());
    for (const ExprRef& a : e->args()) {
      Result r = run(a);
      if (!r.defined) return r;
      args.push_back(r.value);
    }
    return apply(e, args);
  }

  static bool all_int(const std::vector<Val>& v) {
    for (const Val& c : v) {
      if (c.type != ExprType::kInt) return false;
    }
    return true;
  }

  Result apply(const ExprRef& e, const std::vector<Val>& a) {
    auto fail = [&](const char* what) { return undefined(std::string(what) + " in " + e->str()); };
    switch (e->kind()) {
      case ExprKind::kAdd:
      case ExprKind::kMul: {
        bool is_add = e->is(ExprKind::kAdd);
        if (all_int(a)) {
          i128 acc = is_add ? 0 : 1;
          for (const Val& c : a) {
            bool overflow = is_add ? __builtin_add_overflow(acc, c.i, &acc)
                                   : __builtin_mul_overflow(acc, c.i, &acc);
            if (overflow) return fail("128-bit overflow");
          }
          return ok(int_val(acc));
        }
        double acc = is_add ? 0.0 : 1.0;
        for (const Val& c : a) acc = is_add ? acc + c.as_double() : acc * c.as_double();
        return ok(float_val(acc));
      }
      case ExprKind::kPow: {
        if (a[0].type == ExprType::kInt) {
          i128 r = 1;
          for (int64_t k = 0; k < e->pow_exponent(); ++k) {
            if (__builtin_mul_overflow(r, a[0].i, &r)) return fail("128-bit overflow");
          }
          return ok(int_val(r));
        }
        return ok(float_val(std::pow(a[0].f, static_cast<double>(e->pow_exponent()))));
      }
      case ExprKind::kFloorDiv:
      case ExprKind::kCleanDiv:
        if (a[1].i == 0) return fail("division by zero");
        return ok(int_val(floordiv128(a[0].i, a[1].i)));
      case ExprKind::kMod:
        if (a[1].i == 0) return fail("modulo by zero");
        return ok(int_val(mod128(a[0].i, a[1].i)));
      case ExprKind::kMax:
      case ExprKind::kMin: {
        bool is_max = e->is(ExprKind::kMax);
        if (all_int(a)) {
          i128 acc = a[0].i;
          for (const Val& c : a) acc = is_max ? std::max(acc, c.i) : std::min(acc, c.i);
          return ok(int_val(acc));
        }
        double acc = a[0].as_double();
        for (const Val& c : a) {
          acc = is_max ? std::fmax(acc, c.as_double()) : std::fmin(acc, c.as_double());
        }
        return ok(float_val(acc));
      }
      case ExprKind::kToFloat:
        return ok(float_val(a[0].as_double()));
      case ExprKind::kTruncToInt: {
        double v = std::trunc(a[0].as_double());
        if (!(v >= -9.2233720368547758e18 && v < 9.2233720368547758e18)) {
          return fail("non-finite or out-of-range TruncToInt");
        }
        return ok(int_val(static_cast<int64_t>(v)));
      }
      case ExprKind::kTrueDiv:
        if (a[1].as_double() == 0.0) return fail("division by zero");
        return ok(float_val(a[0].as_double() / a[1].as_double()));
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
        return ok(bool_val(r));
      }
      case ExprKind::kAnd:
      case ExprKind::kOr: {
        bool is_and = e->is(ExprKind::kAnd);
        bool acc = is_and;
        for (const Val& c : a) acc = is_and ? (acc && c.b) : (acc || c.b);
        return ok(bool_val(acc));
      }
      case ExprKind::kNot:
        return ok(bool_val(!a[0].b));
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
  std::unordered_map<const Expr*, Result> memo_;
};

}  // namespace

EvalResult evaluate(const ExprRef& e, const Assignment& values) {
  Result r = Evaluator(values).run(e);
  EvalResult out;
  out.defined = r.defined;
  out.why = r.why;
  if (!r.defined) return out;
  switch (r.value.type) {
    case ExprType::kInt:
      if (r.value.i > kI64Max || r.value.i < kI64Min) {
        out.defined = false;
        out.why = "value of " + e->str() + " does not fit in int64";
        return out;
      }
      out.value = Concrete::of_int(static_cast<int64_t>(r.value.i));
      break;
    case ExprType::kFloat:
      out.value = Concrete::of_float(r.value.f);
      break;
    case ExprType::kBool:
      out.value = Concrete::of_bool(r.value.b);
      break;
  }
  return out;
}

}  // namespace sf::sym
