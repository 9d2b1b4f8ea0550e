// Factories with local folding: constants, identities, expansion, canonical relations and
// boolean connectives. Nothing here depends on value ranges; that is the simplifier's job.
#include "engine/sym/make.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/sym/context.h"
#include "engine/sym/numeric.h"
#include "engine/sym/poly.h"
#include "engine/sym/slot_index.h"

namespace sf::sym {

namespace {

Context& ctx() { return Context::get(); }

ExprRef intern(ExprKind kind, ExprType type, std::vector<ExprRef> args) {
  return ctx().intern(kind, type, 0, 0.0, std::move(args));
}

void require_numeric(const ExprRef& a, const char* op) {
  SF_CHECK(a && !a->is_bool()) << op << " needs a numeric operand, got " << (a ? a->str() : "null");
}
void require_int(const ExprRef& a, const char* op) {
  SF_CHECK(a && a->is_int()) << op << " needs an integer operand, got " << (a ? a->str() : "null");
}
void require_bool(const ExprRef& a, const char* op) {
  SF_CHECK(a && a->is_bool()) << op << " needs a boolean operand, got " << (a ? a->str() : "null");
}

[[noreturn]] void zero_division(const char* op, const ExprRef& a) {
  throw_user_error(UserErrorKind::kZeroDivision,
                   std::string(op) + "(" + a->str() + ", 0): division by zero");
}

bool is_int_const(const ExprRef& e, int64_t v) {
  return e->is(ExprKind::kInteger) && e->int_value() == v;
}

// Builds a relation of the given kind from the difference polynomial d (Le: d >= 0, Lt: d > 0,
// Eq: d == 0, Ne: d != 0) in canonical form: positive terms right, negated negative terms left,
// constant on the side where it is non-negative; integer relations are gcd-reduced and Lt is
// tightened to Le.
ExprRef relation_from_difference(ExprKind kind, Poly d) {
  bool is_float = d.has_float();
  if (d.is_constant()) {
    double v = d.constant.as_double();
    bool r = kind == ExprKind::kLe   ? v >= 0
             : kind == ExprKind::kLt ? v > 0
             : kind == ExprKind::kEq ? v == 0
                                     : v != 0;
    if (!d.constant.is_float) {
      int64_t iv = d.constant.i;
      r = kind == ExprKind::kLe   ? iv >= 0
          : kind == ExprKind::kLt ? iv > 0
          : kind == ExprKind::kEq ? iv == 0
                                  : iv != 0;
    }
    return boolean(r);
  }
  if (!is_float) {
    if (kind == ExprKind::kLt) {  // d > 0 ⇔ d - 1 >= 0 over the integers
      d.constant = d.constant + Number::of(-1);
      kind = ExprKind::kLe;
    }
    int64_t g = 0;
    for (const Term& t : d.terms) g = gcd_i64(g, t.coef.i);
    if (g > 1) {
      int64_t k = d.constant.i, q;
      if (kind == ExprKind::kLe) {
        py_floordiv(k, g, &q);  // T + k >= 0 ⇔ T/g >= ceil(-k/g) ⇔ T/g + floor(k/g) >= 0
      } else {
        if (k % g != 0) return boolean(kind == ExprKind::kNe);
        q = k / g;
      }
      d.constant = Number::of(q);
      for (Term& t : d.terms) t.coef = Number::of(t.coef.i / g);
    }
  }
  if ((kind == ExprKind::kEq || kind == ExprKind::kNe) && d.terms[0].coef.is_negative()) {
    d = poly_scale(d, Number::of(-1));
  }
  Poly pos, negs;
  for (const Term& t : d.terms) {
    if (t.coef.is_negative()) {
      negs.terms.push_back(Term{t.mono, t.coef.negated()});
    } else {
      pos.terms.push_back(t);
    }
  }
  if (is_float) {  // keep both sides float-typed zero constants where needed
    pos.constant = Number::of_float(0.0);
    negs.constant = Number::of_float(0.0);
  }
  if (kind == ExprKind::kEq || kind == ExprKind::kNe) {
    negs.constant = negs.constant + d.constant.negated();  // P + k == N ⇔ P == N - k
    return intern(kind, ExprType::kBool, {expr_of(pos), expr_of(negs)});
  }
  // P - N + k >= 0: a lone side keeps the constant ("u0 <= 5", "u0 >= 5"); otherwise the
  // constant goes where it is non-negative ("u0 <= u1 + 5", "u0 + 2 <= u1").
  bool constant_left = pos.terms.empty()    ? false
                       : negs.terms.empty() ? true
                                            : d.constant.is_negative();
  if (constant_left) {
    negs.constant = negs.constant + d.constant.negated();
  } else {
    pos.constant = pos.constant + d.constant;
  }
  return intern(kind, ExprType::kBool, {expr_of(negs), expr_of(pos)});
}

// The binary factories whose canonical form goes through polynomials (relations, add, sub,
// mul) are called with the same operands over and over: negations, implications, rewrites
// after a replacement, strides. A direct-mapped memo keeps the last result per slot; it holds
// its operands, so a slot never matches a node recycled at the same address, and only small
// operands are kept (at most kMemoSlots x 2 x kMemoMaxOperand nodes stay alive for it).
// A factory that raises stores nothing, so a hit never skips an operand check. 2^17 slots (4 MB):
// a 10,000-operation ShapeEnv trace asks for more distinct results than 4,096 slots held, and
// keeping them cut its instructions per operation by 19% (RESULTS.md).
enum class MemoOp : uint8_t { kEq, kNe, kLt, kLe, kAdd, kSub, kMul };
struct MemoSlot {
  MemoOp op = MemoOp::kEq;
  ExprRef a, b, out;
};
constexpr int kMemoBits = 17;
constexpr size_t kMemoSlots = size_t{1} << kMemoBits;
constexpr uint32_t kMemoMaxOperand = 32;

std::vector<MemoSlot>& memo_slots() {
  static std::vector<MemoSlot>* slots =
      new std::vector<MemoSlot>(kMemoSlots);  // never destroyed, like the nodes
  return *slots;
}

template <typename F>
ExprRef memoized(MemoOp op, const ExprRef& a, const ExprRef& b, F compute) {
  if (a->size() > kMemoMaxOperand || b->size() > kMemoMaxOperand) return compute();
  uint64_t h = a->hash() * 0x9e3779b97f4a7c15ULL ^ (b->hash() + static_cast<uint64_t>(op));
  MemoSlot& slot = memo_slots()[slot_index(h, kMemoBits)];
  if (slot.out && slot.op == op && slot.a == a && slot.b == b) return slot.out;
  ExprRef out = compute();
  slot = MemoSlot{op, a, b, out};
  return out;
}

MemoOp memo_op_of_relation(ExprKind kind) {
  return kind == ExprKind::kEq   ? MemoOp::kEq
         : kind == ExprKind::kNe ? MemoOp::kNe
         : kind == ExprKind::kLt ? MemoOp::kLt
                                 : MemoOp::kLe;
}

ExprRef make_relation_uncached(ExprKind kind, const ExprRef& a, const ExprRef& b);

ExprRef make_relation(ExprKind kind, const ExprRef& a, const ExprRef& b) {
  return memoized(memo_op_of_relation(kind), a, b,
                  [&] { return make_relation_uncached(kind, a, b); });
}

ExprRef make_relation_uncached(ExprKind kind, const ExprRef& a, const ExprRef& b) {
  if (a->is_bool() || b->is_bool()) {
    SF_CHECK(a->is_bool() && b->is_bool() && (kind == ExprKind::kEq || kind == ExprKind::kNe))
        << "cannot order booleans: " << a->str() << ", " << b->str();
    ExprRef same = or_(and_(a, b), and_(not_(a), not_(b)));
    return kind == ExprKind::kEq ? same : not_(same);
  }
  Poly d = poly_add(poly_of(b), poly_scale(poly_of(a), Number::of(-1)));
  return relation_from_difference(kind, std::move(d));
}

// Flattens nested nodes of `kind`, sorts, and removes duplicates.
std::vector<ExprRef> flatten_sorted(ExprKind kind, const std::vector<ExprRef>& args) {
  std::vector<ExprRef> flat;
  for (const ExprRef& a : args) {
    if (a->is(kind)) {
      flat.insert(flat.end(), a->args().begin(), a->args().end());
    } else {
      flat.push_back(a);
    }
  }
  std::sort(flat.begin(), flat.end(), ExprLess());
  flat.erase(std::unique(flat.begin(), flat.end()), flat.end());
  return flat;
}

ExprRef make_minmax(ExprKind kind, const std::vector<ExprRef>& args) {
  SF_CHECK(!args.empty());
  for (const ExprRef& a : args) require_numeric(a, kind == ExprKind::kMax ? "Max" : "Min");
  std::vector<ExprRef> flat = flatten_sorted(kind, args);
  // Fold all numeric constants into one (they sort first).
  std::vector<ExprRef> out;
  bool any_float = false;
  for (const ExprRef& a : flat) {
    any_float = any_float || a->is_float();
    if (a->is_number() && !out.empty() && out.back()->is_number()) {
      double x = Number::of_expr(out.back()).as_double(), y = Number::of_expr(a).as_double();
      bool take_new = kind == ExprKind::kMax ? y > x : y < x;
      if (out.back()->is(ExprKind::kInteger) && a->is(ExprKind::kInteger)) {
        take_new = kind == ExprKind::kMax ? a->int_value() > out.back()->int_value()
                                          : a->int_value() < out.back()->int_value();
      }
      if (take_new) out.back() = a;
    } else {
      out.push_back(a);
    }
  }
  if (out.size() == 1) return any_float ? to_float(out[0]) : out[0];
  return intern(kind, any_float ? ExprType::kFloat : ExprType::kInt, std::move(out));
}

ExprRef make_connective(ExprKind kind, const std::vector<ExprRef>& args) {
  bool is_and = kind == ExprKind::kAnd;
  for (const ExprRef& a : args) require_bool(a, is_and ? "And" : "Or");
  std::vector<ExprRef> flat = flatten_sorted(kind, args);
  std::vector<ExprRef> out;
  for (const ExprRef& a : flat) {
    if (a->is(ExprKind::kBoolConst)) {
      if (a->bool_value() != is_and) return a;  // absorbing element
      continue;                                 // identity element
    }
    out.push_back(a);
  }
  // x & ~x == False, x | ~x == True
  for (const ExprRef& a : out) {
    ExprRef na = not_(a);
    if (std::binary_search(out.begin(), out.end(), na, ExprLess())) return boolean(!is_and);
  }
  if (out.empty()) return boolean(is_and);
  if (out.size() == 1) return out[0];
  return intern(kind, ExprType::kBool, std::move(out));
}

// a / c as a polynomial when the positive constant c divides every coefficient of a.
bool divide_by_constant(const ExprRef& a, const ExprRef& b, ExprRef* out) {
  if (!b->is(ExprKind::kInteger) || b->int_value() <= 1) return false;
  int64_t c = b->int_value();
  Poly p = poly_of(a);
  if (p.has_float() || p.constant.i % c != 0) return false;
  for (const Term& t : p.terms) {
    if (t.coef.i % c != 0) return false;
  }
  Poly q;
  q.constant = Number::of(p.constant.i / c);
  for (const Term& t : p.terms) q.terms.push_back(Term{t.mono, Number::of(t.coef.i / c)});
  *out = expr_of(q);
  return true;
}

}  // namespace

ExprRef integer(int64_t v) {
  if (const ExprRef* c = ctx().small_integer(v)) return *c;
  return ctx().intern(ExprKind::kInteger, ExprType::kInt, v, 0.0, {});
}
ExprRef real(double v) { return ctx().intern(ExprKind::kFloat, ExprType::kFloat, 0, v, {}); }
ExprRef boolean(bool v) { return ctx().boolean(v); }
ExprRef true_expr() { return boolean(true); }
ExprRef false_expr() { return boolean(false); }

ExprRef symbol(SymKind kind, int64_t index) {
  SF_CHECK(index >= 0 && index < (int64_t{1} << 56)) << "symbol index out of range: " << index;
  ExprType type = (kind == SymKind::kFloat || kind == SymKind::kUnbackedFloat) ? ExprType::kFloat
                                                                               : ExprType::kInt;
  int64_t payload = (static_cast<int64_t>(kind) << 56) | index;
  return ctx().intern(ExprKind::kSymbol, type, payload, 0.0, {});
}

ExprRef add(const ExprRef& a, const ExprRef& b) {
  require_numeric(a, "Add");
  require_numeric(b, "Add");
  if (is_int_const(a, 0) && b->is_int()) return b;
  if (is_int_const(b, 0) && a->is_int()) return a;
  return memoized(MemoOp::kAdd, a, b, [&] { return expr_of(poly_add(poly_of(a), poly_of(b))); });
}

ExprRef add(const std::vector<ExprRef>& terms) {
  Poly p;
  for (const ExprRef& t : terms) {
    require_numeric(t, "Add");
    p = poly_add(p, poly_of(t));
  }
  return expr_of(p);
}

ExprRef neg(const ExprRef& a) {
  require_numeric(a, "Neg");
  return expr_of(poly_scale(poly_of(a), Number::of(-1)));
}

ExprRef sub(const ExprRef& a, const ExprRef& b) {
  require_numeric(a, "Sub");
  require_numeric(b, "Sub");
  return memoized(MemoOp::kSub, a, b, [&] {
    return expr_of(poly_add(poly_of(a), poly_scale(poly_of(b), Number::of(-1))));
  });
}

ExprRef mul(const ExprRef& a, const ExprRef& b) {
  require_numeric(a, "Mul");
  require_numeric(b, "Mul");
  if (is_int_const(a, 1) && b->is_int()) return b;
  if (is_int_const(b, 1) && a->is_int()) return a;
  return memoized(MemoOp::kMul, a, b, [&] { return expr_of(poly_mul(poly_of(a), poly_of(b))); });
}

ExprRef mul(const std::vector<ExprRef>& factors) {
  ExprRef out = integer(1);
  for (const ExprRef& f : factors) out = mul(out, f);
  return out;
}

ExprRef pow(const ExprRef& base, int64_t exp) {
  require_numeric(base, "Pow");
  SF_CHECK(exp >= 0) << "negative exponent " << exp;
  if (exp == 0) return base->is_float() ? real(1.0) : integer(1);
  // By squaring: O(log exp) products (a base of 0, 1 or -1 never overflows, whatever exp).
  Poly acc = poly_of(base), square = acc;
  for (int64_t rest = exp - 1; rest > 0;) {
    if (rest & 1) acc = poly_mul(acc, square);
    rest >>= 1;
    if (rest > 0) square = poly_mul(square, square);
  }
  return expr_of(acc);
}

ExprRef floordiv(const ExprRef& a, const ExprRef& b) {
  require_int(a, "FloorDiv");
  require_int(b, "FloorDiv");
  if (is_int_const(b, 0)) zero_division("FloorDiv", a);
  if (a->is(ExprKind::kInteger) && b->is(ExprKind::kInteger)) {
    int64_t q;
    if (!py_floordiv(a->int_value(), b->int_value(), &q)) {
      throw_user_error(UserErrorKind::kTooComplex,
                       "integer overflow in FloorDiv(" + a->str() + ", " + b->str() + ")");
    }
    return integer(q);
  }
  if (is_int_const(b, 1)) return a;
  if (is_int_const(b, -1)) return neg(a);
  if (is_int_const(a, 0)) return a;
  if (a == b) return integer(1);
  ExprRef quotient;
  if (divide_by_constant(a, b, &quotient)) return quotient;  // FloorDiv(10*u0, 10) == u0
  return intern(ExprKind::kFloorDiv, ExprType::kInt, {a, b});
}

ExprRef mod(const ExprRef& a, const ExprRef& b) {
  require_int(a, "Mod");
  require_int(b, "Mod");
  if (is_int_const(b, 0)) zero_division("PythonMod", a);
  if (a->is(ExprKind::kInteger) && b->is(ExprKind::kInteger)) {
    int64_t r = 0;
    py_mod(a->int_value(), b->int_value(), &r);
    return integer(r);
  }
  if (is_int_const(b, 1) || is_int_const(b, -1) || is_int_const(a, 0) || a == b) {
    return integer(0);
  }
  ExprRef quotient;
  if (divide_by_constant(a, b, &quotient)) return integer(0);
  return intern(ExprKind::kMod, ExprType::kInt, {a, b});
}

ExprRef clean_div(const ExprRef& a, const ExprRef& b) {
  require_int(a, "CleanDiv");
  require_int(b, "CleanDiv");
  if (is_int_const(b, 0)) zero_division("CleanDiv", a);
  if ((a->is(ExprKind::kInteger) && b->is(ExprKind::kInteger)) || is_int_const(b, 1) ||
      is_int_const(b, -1) || is_int_const(a, 0) || a == b) {
    return floordiv(a, b);
  }
  ExprRef quotient;
  if (divide_by_constant(a, b, &quotient)) return quotient;
  return intern(ExprKind::kCleanDiv, ExprType::kInt, {a, b});
}

ExprRef max(const ExprRef& a, const ExprRef& b) { return make_minmax(ExprKind::kMax, {a, b}); }
ExprRef max(const std::vector<ExprRef>& args) { return make_minmax(ExprKind::kMax, args); }
ExprRef min(const ExprRef& a, const ExprRef& b) { return make_minmax(ExprKind::kMin, {a, b}); }
ExprRef min(const std::vector<ExprRef>& args) { return make_minmax(ExprKind::kMin, args); }

ExprRef where(const ExprRef& cond, const ExprRef& then_value, const ExprRef& else_value) {
  require_bool(cond, "Piecewise");
  SF_CHECK(then_value->is_bool() == else_value->is_bool())
      << "Piecewise branches of different kinds: " << then_value->str() << ", "
      << else_value->str();
  bool is_float = then_value->is_float() || else_value->is_float();
  auto keep_type = [&](const ExprRef& x) { return is_float && x->is_int() ? to_float(x) : x; };
  if (cond->is(ExprKind::kBoolConst))
    return keep_type(cond->bool_value() ? then_value : else_value);
  if (then_value == else_value) return then_value;
  if (then_value->is_bool()) {
    return or_(and_(cond, then_value), and_(not_(cond), else_value));
  }
  ExprType type =
      then_value->is_float() || else_value->is_float() ? ExprType::kFloat : ExprType::kInt;
  return intern(ExprKind::kWhere, type, {cond, then_value, else_value});
}

ExprRef to_float(const ExprRef& a) {
  require_numeric(a, "ToFloat");
  if (a->is_float()) return a;
  if (a->is(ExprKind::kInteger)) return real(static_cast<double>(a->int_value()));
  return intern(ExprKind::kToFloat, ExprType::kFloat, {a});
}

ExprRef trunc_to_int(const ExprRef& a) {
  require_numeric(a, "TruncToInt");
  if (a->is_int()) return a;
  if (a->is(ExprKind::kFloat)) {
    double v = std::trunc(a->float_value());
    if (!(v >= -9.2233720368547758e18 && v < 9.2233720368547758e18)) {
      throw_user_error(UserErrorKind::kValue,
                       "TruncToInt(" + a->str() + "): value is not a finite int64");
    }
    return integer(static_cast<int64_t>(v));
  }
  if (a->is(ExprKind::kToFloat)) return a->arg(0);
  return intern(ExprKind::kTruncToInt, ExprType::kInt, {a});
}

ExprRef true_div(const ExprRef& a, const ExprRef& b) {
  require_numeric(a, "TrueDiv");
  require_numeric(b, "TrueDiv");
  if (b->is_number() && Number::of_expr(b).as_double() == 0.0) zero_division("TrueDiv", a);
  if (a->is_number() && b->is_number()) {
    return real(Number::of_expr(a).as_double() / Number::of_expr(b).as_double());
  }
  if (b->is_number() && Number::of_expr(b).as_double() == 1.0) return to_float(a);
  return intern(ExprKind::kTrueDiv, ExprType::kFloat, {to_float(a), to_float(b)});
}

ExprRef eq(const ExprRef& a, const ExprRef& b) { return make_relation(ExprKind::kEq, a, b); }
ExprRef ne(const ExprRef& a, const ExprRef& b) { return make_relation(ExprKind::kNe, a, b); }
ExprRef lt(const ExprRef& a, const ExprRef& b) { return make_relation(ExprKind::kLt, a, b); }
ExprRef le(const ExprRef& a, const ExprRef& b) { return make_relation(ExprKind::kLe, a, b); }
ExprRef gt(const ExprRef& a, const ExprRef& b) { return make_relation(ExprKind::kLt, b, a); }
ExprRef ge(const ExprRef& a, const ExprRef& b) { return make_relation(ExprKind::kLe, b, a); }

ExprRef and_(const ExprRef& a, const ExprRef& b) { return make_connective(ExprKind::kAnd, {a, b}); }
ExprRef and_(const std::vector<ExprRef>& args) { return make_connective(ExprKind::kAnd, args); }
ExprRef or_(const ExprRef& a, const ExprRef& b) { return make_connective(ExprKind::kOr, {a, b}); }
ExprRef or_(const std::vector<ExprRef>& args) { return make_connective(ExprKind::kOr, args); }

ExprRef not_(const ExprRef& a) {
  require_bool(a, "Not");
  switch (a->kind()) {
    case ExprKind::kBoolConst:
      return boolean(!a->bool_value());
    case ExprKind::kEq:
      return intern(ExprKind::kNe, ExprType::kBool, {a->arg(0), a->arg(1)});
    case ExprKind::kNe:
      return intern(ExprKind::kEq, ExprType::kBool, {a->arg(0), a->arg(1)});
    case ExprKind::kLe:  // ~(x <= y) ⇔ y < x
      return lt(a->arg(1), a->arg(0));
    case ExprKind::kLt:
      return le(a->arg(1), a->arg(0));
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      std::vector<ExprRef> negated;
      for (const ExprRef& x : a->args()) negated.push_back(not_(x));
      return a->is(ExprKind::kAnd) ? or_(negated) : and_(negated);
    }
    case ExprKind::kNot:
      return a->arg(0);
    case ExprKind::kInteger:
    case ExprKind::kFloat:
    case ExprKind::kSymbol:
    case ExprKind::kAdd:
    case ExprKind::kMul:
    case ExprKind::kPow:
    case ExprKind::kFloorDiv:
    case ExprKind::kMod:
    case ExprKind::kCleanDiv:
    case ExprKind::kMax:
    case ExprKind::kMin:
    case ExprKind::kWhere:
    case ExprKind::kToFloat:
    case ExprKind::kTruncToInt:
    case ExprKind::kTrueDiv:
      return intern(ExprKind::kNot, ExprType::kBool, {a});
  }
  SF_UNREACHABLE();
}

ExprRef bool_to_int(const ExprRef& b) {
  require_bool(b, "bool_to_int");
  return where(b, integer(1), integer(0));
}

ExprRef relation_difference(const ExprRef& rel) {
  SF_CHECK(rel->is_relation()) << "not a relation: " << rel->str();
  return sub(rel->arg(1), rel->arg(0));
}

ExprRef rebuild(const ExprRef& e, const std::vector<ExprRef>& args) {
  switch (e->kind()) {
    case ExprKind::kInteger:
    case ExprKind::kFloat:
    case ExprKind::kBoolConst:
    case ExprKind::kSymbol:
      return e;
    case ExprKind::kAdd:
      return add(args);
    case ExprKind::kMul:
      return mul(args);
    case ExprKind::kPow:
      return pow(args[0], e->pow_exponent());
    case ExprKind::kFloorDiv:
      return floordiv(args[0], args[1]);
    case ExprKind::kMod:
      return mod(args[0], args[1]);
    case ExprKind::kCleanDiv:
      return clean_div(args[0], args[1]);
    case ExprKind::kMax:
      return max(args);
    case ExprKind::kMin:
      return min(args);
    case ExprKind::kWhere:
      return where(args[0], args[1], args[2]);
    case ExprKind::kToFloat:
      return to_float(args[0]);
    case ExprKind::kTruncToInt:
      return trunc_to_int(args[0]);
    case ExprKind::kTrueDiv:
      return true_div(args[0], args[1]);
    case ExprKind::kEq:
      return eq(args[0], args[1]);
    case ExprKind::kNe:
      return ne(args[0], args[1]);
    case ExprKind::kLt:
      return lt(args[0], args[1]);
    case ExprKind::kLe:
      return le(args[0], args[1]);
    case ExprKind::kAnd:
      return and_(args);
    case ExprKind::kOr:
      return or_(args);
    case ExprKind::kNot:
      return not_(args[0]);
  }
  SF_UNREACHABLE();
}

void release_factory_memo() {
  for (MemoSlot& slot : memo_slots()) slot = MemoSlot{};
}

}  // namespace sf::sym
