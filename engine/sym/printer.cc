// The printer: PyTorch-style text for expressions (u0, s1, zuf0, FloorDiv(u0, 4), Eq(u0, 1),
// u0 >= 0, Piecewise((1, Eq(u0, 1)), (0, True))).
#include <charconv>
#include <string>

#include "engine/sym/expr.h"

namespace sf::sym {

namespace {

std::string float_text(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s == "inf") return "oo";
  if (s == "-inf") return "-oo";
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

void print(const Expr* e, std::string& out);

void print_call(const char* name, const Expr* e, std::string& out) {
  out += name;
  out += '(';
  for (size_t i = 0; i < e->num_args(); ++i) {
    if (i) out += ", ";
    print(e->arg(i).get(), out);
  }
  out += ')';
}

// Prints one product term; `leading` says whether a sign must be written as "-x" or " - x".
void print_term(const Expr* t, std::string& out, bool leading) {
  const Expr* coef = nullptr;
  size_t first = 0;
  if (t->is(ExprKind::kMul) && t->arg(0)->is_number()) {
    coef = t->arg(0).get();
    first = 1;
  }
  bool negative = false;
  std::string coef_text;
  if (coef) {
    if (coef->is(ExprKind::kInteger)) {
      int64_t c = coef->int_value();
      negative = c < 0;
      uint64_t mag = negative ? 0 - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
      if (mag != 1) coef_text = std::to_string(mag);
    } else {
      double c = coef->float_value();
      negative = c < 0;
      coef_text = float_text(negative ? -c : c);
    }
  } else if (t->is(ExprKind::kInteger)) {
    negative = t->int_value() < 0;
    uint64_t v = static_cast<uint64_t>(t->int_value());
    coef_text = std::to_string(negative ? 0 - v : v);
  } else if (t->is(ExprKind::kFloat)) {
    negative = t->float_value() < 0;
    coef_text = float_text(negative ? -t->float_value() : t->float_value());
  }
  if (leading) {
    if (negative) out += '-';
  } else {
    out += negative ? " - " : " + ";
  }
  if (t->is_number()) {
    out += coef_text;
    return;
  }
  if (!t->is(ExprKind::kMul)) {
    print(t, out);
    return;
  }
  bool need_star = false;
  if (!coef_text.empty()) {
    out += coef_text;
    need_star = true;
  }
  for (size_t i = first; i < t->num_args(); ++i) {
    if (need_star) out += '*';
    print(t->arg(i).get(), out);
    need_star = true;
  }
}

void print_bool_operand(const Expr* a, std::string& out) {
  bool wrap = a->is_relation() || a->is(ExprKind::kAnd) || a->is(ExprKind::kOr);
  if (wrap && (a->is(ExprKind::kEq) || a->is(ExprKind::kNe))) wrap = false;
  if (wrap) out += '(';
  print(a, out);
  if (wrap) out += ')';
}

void print(const Expr* e, std::string& out) {
  switch (e->kind()) {
    case ExprKind::kInteger:
      out += std::to_string(e->int_value());
      return;
    case ExprKind::kFloat:
      out += float_text(e->float_value());
      return;
    case ExprKind::kBoolConst:
      out += e->bool_value() ? "True" : "False";
      return;
    case ExprKind::kSymbol:
      out += sym_kind_prefix(e->sym_kind());
      out += std::to_string(e->sym_index());
      return;
    case ExprKind::kAdd: {
      // Sympy style: non-constant terms first, constant last.
      bool leading = true;
      for (size_t i = 0; i < e->num_args(); ++i) {
        if (e->arg(i)->is_number()) continue;
        print_term(e->arg(i).get(), out, leading);
        leading = false;
      }
      if (e->arg(0)->is_number()) print_term(e->arg(0).get(), out, leading);
      return;
    }
    case ExprKind::kMul:
      print_term(e, out, true);
      return;
    case ExprKind::kPow:
      print(e->arg(0).get(), out);
      out += "**";
      out += std::to_string(e->pow_exponent());
      return;
    case ExprKind::kFloorDiv:
      return print_call("FloorDiv", e, out);
    case ExprKind::kMod:
      return print_call("PythonMod", e, out);
    case ExprKind::kCleanDiv:
      return print_call("CleanDiv", e, out);
    case ExprKind::kMax:
      return print_call("Max", e, out);
    case ExprKind::kMin:
      return print_call("Min", e, out);
    case ExprKind::kWhere:
      out += "Piecewise((";
      print(e->arg(1).get(), out);
      out += ", ";
      print(e->arg(0).get(), out);
      out += "), (";
      print(e->arg(2).get(), out);
      out += ", True))";
      return;
    case ExprKind::kToFloat:
      return print_call("ToFloat", e, out);
    case ExprKind::kTruncToInt:
      return print_call("TruncToInt", e, out);
    case ExprKind::kTrueDiv:
      return print_call("FloatTrueDiv", e, out);
    case ExprKind::kEq:
      return print_call("Eq", e, out);
    case ExprKind::kNe:
      return print_call("Ne", e, out);
    case ExprKind::kLt:
    case ExprKind::kLe: {
      // A constant on the left reads better flipped: "u0 >= 0" rather than "0 <= u0".
      const char* op = e->is(ExprKind::kLt) ? " < " : " <= ";
      const char* flipped = e->is(ExprKind::kLt) ? " > " : " >= ";
      if (e->arg(0)->is_number() && !e->arg(1)->is_number()) {
        print(e->arg(1).get(), out);
        out += flipped;
        print(e->arg(0).get(), out);
      } else {
        print(e->arg(0).get(), out);
        out += op;
        print(e->arg(1).get(), out);
      }
      return;
    }
    case ExprKind::kAnd:
    case ExprKind::kOr:
      for (size_t i = 0; i < e->num_args(); ++i) {
        if (i) out += e->is(ExprKind::kAnd) ? " & " : " | ";
        print_bool_operand(e->arg(i).get(), out);
      }
      return;
    case ExprKind::kNot:
      out += "~";
      print_bool_operand(e->arg(0).get(), out);
      return;
  }
}

}  // namespace

std::string Expr::str() const {
  std::string out;
  print(this, out);
  return out;
}

}  // namespace sf::sym
