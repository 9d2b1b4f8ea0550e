// The printer reads the parser's precedence table (ops.def Syntax) and adds only the parentheses
// the parser needs; an infix call prints with its operator only when it has exactly the operator's
// operands.
#include "engine/program/printer.h"

#include <algorithm>
#include <cmath>

#include "engine/program/lexer.h"
#include "engine/program/number_text.h"
#include "engine/program/schema.h"

namespace sf::program {

namespace {

// The operator form (the op's ops.def Syntax) applies only when the AST has exactly what the
// operator syntax can express.
const OpSyntax* operator_form(const Expr& e) {
  if (e.kind != Expr::Kind::kCall || !e.infix || !e.kwargs.empty()) return nullptr;
  const OpSyntax& f = schema(e.op).syntax;
  if (!f.is_operator() || e.args.size() != f.arity()) return nullptr;
  for (const ExprPtr& a : e.args) {
    if (!a) return nullptr;
  }
  return &f;
}

}  // namespace

bool has_operator_syntax(OpKind op) { return schema(op).syntax.is_operator(); }

namespace {

Precedence prec_of(const Expr& e) {
  const OpSyntax* f = operator_form(e);
  return f ? f->precedence : Precedence::kAtom;
}

bool is_unsigned_number(const Expr& e) {
  return (e.kind == Expr::Kind::kInt && e.int_value >= 0) ||
         (e.kind == Expr::Kind::kFloat && !std::signbit(e.float_value));
}

void print(const Expr* e, std::string& out);

void print_operand(const Expr& e, bool parens, std::string& out) {
  if (parens) out += '(';
  print(&e, out);
  if (parens) out += ')';
}

void print_call(const Expr& e, std::string& out) {
  out += op_name(e.op);
  out += '(';
  bool first = true;
  for (const ExprPtr& a : e.args) {
    if (!first) out += ", ";
    first = false;
    print(a.get(), out);
  }
  for (const auto& [key, value] : e.kwargs) {
    if (!first) out += ", ";
    first = false;
    out += key + "=";
    print(value.get(), out);
  }
  out += ')';
}

void print(const Expr* e, std::string& out) {
  if (!e) {
    out += "None";
    return;
  }
  switch (e->kind) {
    case Expr::Kind::kVar:
      out += e->name;
      return;
    case Expr::Kind::kInt:
      out += std::to_string(e->int_value);
      return;
    case Expr::Kind::kFloat:
      out += format_double(e->float_value);
      return;
    case Expr::Kind::kBool:
      out += e->bool_value ? "True" : "False";
      return;
    case Expr::Kind::kString:
      out += quote_string(e->name);
      return;
    case Expr::Kind::kDType:
      out += dtype_name(e->dtype);
      return;
    case Expr::Kind::kNone:
      out += "None";
      return;
    case Expr::Kind::kList:
      out += '[';
      for (size_t i = 0; i < e->elems.size(); ++i) {
        if (i) out += ", ";
        print(e->elems[i].get(), out);
      }
      out += ']';
      return;
    case Expr::Kind::kCall:
      break;
  }
  const OpSyntax* f = operator_form(*e);
  if (!f) {
    print_call(*e, out);
    return;
  }
  if (f->arity() == 1) {
    const Expr& a = *e->args[0];
    out += f->text;
    // "-3" would read back as a literal, so neg(3) prints as "-(3)".
    bool parens = prec_of(a) < f->precedence ||
                  (f->precedence == Precedence::kPrefix && is_unsigned_number(a));
    print_operand(a, parens, out);
    return;
  }
  const Expr& l = *e->args[0];
  const Expr& r = *e->args[1];
  // Left-associative levels need parentheses on the right at equal precedence; comparisons do
  // not chain, so they need them on both sides.
  bool comparison = f->precedence == Precedence::kComparison;
  print_operand(l, prec_of(l) < f->precedence || (comparison && prec_of(l) == f->precedence), out);
  out += ' ';
  out += f->text;
  out += ' ';
  print_operand(r, prec_of(r) <= f->precedence, out);
}

std::string data_value(DType dtype, double v) {
  if (dtype == DType::kBool && (v == 0 || v == 1)) return v == 1 ? "True" : "False";
  if (dtype == DType::kInt64 && v == std::trunc(v) && std::abs(v) <= 9.2e18) {
    return std::to_string(static_cast<int64_t>(v));
  }
  return format_double(v);  // also for invalid values, which then fail to parse
}

std::string data_text(const InputDecl& d) {
  const DataSpec& s = d.data;
  switch (s.kind) {
    case DataSpec::Kind::kLiteral: {
      if (!d.is_tensor) return s.literal.empty() ? "[]" : data_value(d.dtype, s.literal[0]);
      std::string out = "[";
      for (size_t i = 0; i < s.literal.size(); ++i) {
        if (i) out += ", ";
        out += data_value(d.dtype, s.literal[i]);
      }
      return out + "]";
    }
    case DataSpec::Kind::kRandn:
      return "randn(seed=" + std::to_string(s.seed) + ")";
    case DataSpec::Kind::kRandint:
      return "randint(" + std::to_string(s.low) + ", " + std::to_string(s.high) +
             ", seed=" + std::to_string(s.seed) + ")";
    case DataSpec::Kind::kRandbool:
      return "randbool(" + format_double(s.p) + ", seed=" + std::to_string(s.seed) + ")";
    case DataSpec::Kind::kArange:
      return "arange()";
    case DataSpec::Kind::kFull:
      return "full(" + data_value(d.dtype, s.value) + ")";
  }
  return "?";
}

const char* mode_name(DimMode m) {
  switch (m) {
    case DimMode::kStatic:
      return "static";
    case DimMode::kDynamic:
      return "dynamic";
    case DimMode::kUnbacked:
      return "unbacked";
  }
  return "?";
}

// Header values are single lines; a newline would end the comment early.
std::string one_line(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';  // as the parser requires
  }
  return out;
}

}  // namespace

std::string print_expr(const Expr& expr) {
  std::string out;
  print(&expr, out);
  return out;
}

std::string print_input(const InputDecl& d) {
  std::string out = "input " + d.name + ": " + dtype_name(d.dtype);
  if (d.is_tensor) {
    out += '[';
    for (size_t i = 0; i < d.sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(d.sizes[i]);
    out += ']';
    for (size_t i = 0; i < d.dims.size(); ++i) {
      if (d.dims[i] != DimMode::kStatic)
        out += std::string(" ") + mode_name(d.dims[i]) + "(" + std::to_string(i) + ")";
    }
  } else if (d.scalar_mode != DimMode::kStatic) {
    out += std::string(" ") + mode_name(d.scalar_mode);
  }
  return out + " = " + data_text(d);
}

std::string print_stmt(const Stmt& s, int indent) {
  std::string pad(indent, ' ');
  switch (s.kind) {
    case Stmt::Kind::kAssign: {
      std::string out = pad;
      for (size_t i = 0; i < s.targets.size(); ++i) out += (i ? ", " : "") + s.targets[i];
      return out + " = " + (s.value ? print_expr(*s.value) : "None") + "\n";
    }
    case Stmt::Kind::kCheck:
      return pad + "check(" + (s.value ? print_expr(*s.value) : "None") + ", " +
             quote_string(s.message) + ")\n";
    case Stmt::Kind::kCheckIsSize: {
      std::string out = pad + "check_is_size(" + (s.value ? print_expr(*s.value) : "None");
      if (s.max) out += ", max=" + print_expr(*s.max);
      return out + ")\n";
    }
    case Stmt::Kind::kIf: {
      std::string out = pad + "if " + (s.value ? print_expr(*s.value) : "None") + ":\n";
      std::string inner(indent + 2, ' ');
      if (s.then_body.empty()) out += inner + "pass\n";
      for (const Stmt& t : s.then_body) out += print_stmt(t, indent + 2);
      if (!s.else_body.empty()) {
        out += pad + "else:\n";
        for (const Stmt& t : s.else_body) out += print_stmt(t, indent + 2);
      }
      return out;
    }
    case Stmt::Kind::kCond:
    case Stmt::Kind::kWhileLoop:
    case Stmt::Kind::kInvokeSubgraph:
    case Stmt::Kind::kMap:
    case Stmt::Kind::kScan:
    case Stmt::Kind::kAssociativeScan: {
      std::string out = pad;
      for (size_t i = 0; i < s.targets.size(); ++i) out += (i ? ", " : "") + s.targets[i];
      bool is_cond = s.kind == Stmt::Kind::kCond;
      out += std::string(" = ") + higher_order_name(s.kind) + "(";
      if (is_cond) out += (s.value ? print_expr(*s.value) : "None") + ", ";
      for (const std::string& f : s.functions) out += f + ", ";
      out += "[";
      // scan: its initial carries, then the list it scans.
      size_t split = s.kind == Stmt::Kind::kScan ? std::min(s.carries, s.operands.size()) : 0;
      for (size_t i = 0; i < s.operands.size(); ++i) {
        if (s.kind == Stmt::Kind::kScan && i == split) out += "], [";
        out +=
            (i && i != split ? ", " : "") + (s.operands[i] ? print_expr(*s.operands[i]) : "None");
      }
      if (s.kind == Stmt::Kind::kScan && split == s.operands.size()) out += "], [";
      out += "]";
      if (s.kind == Stmt::Kind::kAssociativeScan) out += ", " + std::to_string(s.dim);
      return out + ")\n";
    }
    case Stmt::Kind::kReturn: {
      std::string out = pad + "return";
      for (size_t i = 0; i < s.returns.size(); ++i) {
        out += (i ? ", " : " ") + (s.returns[i] ? print_expr(*s.returns[i]) : "None");
      }
      return out + "\n";
    }
  }
  return "";
}

std::string print_program(const Program& p) {
  std::string out = "# sfz " + std::to_string(p.header.version) + "\n";
  out += "# expect: " + one_line(p.header.expect) + "\n";
  if (!p.header.found_by.empty()) out += "# found-by: " + one_line(p.header.found_by) + "\n";
  if (!p.header.reproduces.empty()) {
    out += "# reproduces: " + one_line(p.header.reproduces) + "\n";
  }
  if (p.header.inference_mode) out += "# mode: inference\n";
  if (p.header.valid_by_construction) out += "# valid: by-construction\n";
  if (!p.header.faults.empty()) {
    out += "# faults:";
    for (size_t i = 0; i < p.header.faults.size(); ++i) {
      out += (i ? ", " : " ") + p.header.faults[i];
    }
    out += "\n";
  }
  for (const InputDecl& d : p.inputs) out += print_input(d) + "\n";
  for (const FunctionDef& f : p.functions) {
    out += "def " + f.name + "(";
    for (size_t i = 0; i < f.params.size(); ++i) out += (i ? ", " : "") + f.params[i];
    out += "):\n";
    for (const Stmt& s : f.body) out += print_stmt(s, 2);
  }
  for (const Stmt& s : p.body) out += print_stmt(s);
  return out;
}

}  // namespace sf::program
