// RapidCheck properties of the .sfz format: random ASTs (every op, random argument kinds and
// keyword splits, nested ifs, random inputs, `def` blocks called by the higher-order ops at any
// depth) survive print -> parse unchanged, printing is a fixed point, and mutated text is either
// parsed consistently or rejected with a UserError.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <set>

#include "engine/base/errors.h"
#include "engine/program/lexer.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "engine/program/schema.h"

namespace sf::program {
namespace {

using Scope = std::set<std::string>;

int pick(int lo, int hi) { return *rc::gen::inRange(lo, hi + 1); }  // inclusive
bool coin() { return *rc::gen::arbitrary<bool>(); }

// Variable names, including op names and data-generator words (legal as variables).
std::string gen_name() {
  static const std::vector<std::string> kNames = {"a",   "b",    "c",     "x1",      "y_2", "_t",
                                                  "sum", "size", "randn", "dynamic", "seed"};
  return *rc::gen::elementOf(kNames);
}

double gen_double() {
  switch (pick(0, 3)) {
    case 0:
      return *rc::gen::elementOf(
          std::vector<double>{0.0, -0.0, 1.0, 0.1, 1e-05, 1e16, 5e-324, DBL_MAX, -2.5, 1e15});
    case 1:
      return pick(-1000, 1000) / 8.0;
    default: {
      double d = std::bit_cast<double>(*rc::gen::arbitrary<uint64_t>());
      return std::isfinite(d) ? d : 0.5;
    }
  }
}

int64_t gen_int() {
  switch (pick(0, 2)) {
    case 0:
      return pick(-10, 10);
    case 1:
      return *rc::gen::elementOf(std::vector<int64_t>{INT64_MIN, INT64_MAX, 0, -1});
    default:
      return *rc::gen::arbitrary<int64_t>();
  }
}

std::string gen_bytes() { return *rc::gen::container<std::string>(rc::gen::arbitrary<char>()); }

ExprPtr gen_expr(const Scope& scope, int depth);

ExprPtr gen_call(const Scope& scope, int depth) {
  OpKind op = *rc::gen::elementOf(all_ops());
  const OpSchema& s = schema(op);
  size_t positional = pick(0, static_cast<int>(s.params.size()));
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  for (size_t i = 0; i < s.params.size(); ++i) {
    const Param& param = s.params[i];
    if (i >= positional && param.optional && coin()) continue;
    ExprPtr value = gen_expr(scope, depth - 1);
    // None binds as "absent", which a required parameter rejects.
    if (!param.optional && value->kind == Expr::Kind::kNone) value = Expr::integer(1);
    if (i < positional) {
      args.push_back(value);
    } else {
      kwargs.emplace_back(param.name, value);
    }
  }
  // Keyword order is free, and the AST keeps it.
  for (size_t i = kwargs.size(); i > 1; --i) std::swap(kwargs[i - 1], kwargs[pick(0, i - 1)]);
  bool infix =
      has_operator_syntax(op) && kwargs.empty() && args.size() == s.params.size() && coin();
  return Expr::call(op, std::move(args), std::move(kwargs), infix);
}

ExprPtr gen_expr(const Scope& scope, int depth) {
  int choice = pick(0, depth <= 0 ? 7 : 11);
  switch (choice) {
    case 0:
      if (!scope.empty())
        return Expr::var(*rc::gen::elementOf(std::vector(scope.begin(), scope.end())));
      return Expr::integer(gen_int());
    case 1:
      return Expr::integer(gen_int());
    case 2:
      return Expr::floating(gen_double());
    case 3:
      return Expr::boolean(coin());
    case 4:
      return Expr::string(gen_bytes());
    case 5:
      return Expr::dtype_lit(*rc::gen::element(DType::kBool, DType::kInt64, DType::kFloat32));
    case 6:
      return Expr::none();
    case 7:
      return Expr::integer(pick(-3, 3));
    case 8: {
      std::vector<ExprPtr> elems;
      for (int n = pick(0, 3); n > 0; --n) elems.push_back(gen_expr(scope, depth - 1));
      return Expr::list(std::move(elems));
    }
    default:
      return gen_call(scope, depth);
  }
}

// `targets = cond(pred, f, g, [operands])`, `targets = while_loop(f, g, [carries])`,
// `targets = invoke_subgraph(f, [operands])`, `targets = map(f, [xs])`, scan or
// `targets = associative_scan(f, [xs], dim)` over the functions defined so far (the parser checks
// names, not arities: the tracer does).
Stmt gen_higher_order(Scope& scope, const std::vector<std::string>& functions) {
  Stmt s;
  const Stmt::Kind kinds[] = {Stmt::Kind::kCond,           Stmt::Kind::kWhileLoop,
                              Stmt::Kind::kInvokeSubgraph, Stmt::Kind::kMap,
                              Stmt::Kind::kScan,           Stmt::Kind::kAssociativeScan};
  s.kind = kinds[pick(0, 5)];
  if (s.kind == Stmt::Kind::kCond) s.value = gen_expr(scope, pick(0, 2));
  bool one_function = s.kind == Stmt::Kind::kInvokeSubgraph || s.kind == Stmt::Kind::kMap ||
                      s.kind == Stmt::Kind::kScan || s.kind == Stmt::Kind::kAssociativeScan;
  for (int i = one_function ? 1 : 0; i < 2; ++i)
    s.functions.push_back(*rc::gen::elementOf(functions));
  for (int n = pick(0, 3); n > 0; --n) s.operands.push_back(gen_expr(scope, pick(0, 2)));
  if (s.kind == Stmt::Kind::kScan)
    s.carries = static_cast<size_t>(pick(0, static_cast<int>(s.operands.size())));
  if (s.kind == Stmt::Kind::kAssociativeScan) s.dim = pick(-3, 3);
  for (int t = pick(1, 3); t > 0; --t) s.targets.push_back(gen_name());
  for (const auto& t : s.targets) scope.insert(t);
  return s;
}

std::vector<Stmt> gen_block(Scope& scope, int depth, int max_stmts,
                            const std::vector<std::string>& functions = {}) {
  std::vector<Stmt> out;
  for (int n = pick(0, max_stmts); n > 0; --n) {
    if (!functions.empty() && pick(0, 4) == 0) {
      out.push_back(gen_higher_order(scope, functions));
      continue;
    }
    Stmt s;
    int kind = std::min(pick(0, depth > 0 ? 6 : 4), 5);  // ifs twice as likely as the others
    int expr_depth = pick(0, 4);
    s.value = gen_expr(scope, expr_depth);
    if (kind <= 1) {
      s.kind = Stmt::Kind::kAssign;
      for (int t = kind == 0 ? 1 : pick(2, 3); t > 0; --t) s.targets.push_back(gen_name());
      for (const auto& t : s.targets) scope.insert(t);
    } else if (kind == 2) {
      s.kind = Stmt::Kind::kCheck;
      s.message = gen_bytes();
    } else if (kind == 3) {
      s.kind = Stmt::Kind::kCheckIsSize;
      if (coin()) s.max = gen_expr(scope, 2);
    } else if (kind == 4) {
      s.kind = Stmt::Kind::kAssign;
      s.targets = {gen_name()};
      scope.insert(s.targets[0]);
    } else {
      s.kind = Stmt::Kind::kIf;
      Scope then_scope = scope, else_scope = scope;
      s.then_body = gen_block(then_scope, depth - 1, 4, functions);
      if (coin()) s.else_body = gen_block(else_scope, depth - 1, 4, functions);
      // After the if, a name is defined when both branches define it.
      for (const auto& name : then_scope) {
        if (else_scope.count(name) != 0) scope.insert(name);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

double gen_value(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return coin() ? 1 : 0;
    case DType::kInt64:
      return static_cast<double>(*rc::gen::inRange<int64_t>(-(int64_t{1} << 53), int64_t{1} << 53));
    case DType::kFloat32: {
      double d = gen_double();
      return std::abs(d) > FLT_MAX ? std::fmod(d, static_cast<double>(FLT_MAX)) : d;
    }
  }
  return 0;
}

InputDecl gen_input(std::string name) {
  InputDecl d;
  d.name = std::move(name);
  d.dtype = *rc::gen::element(DType::kBool, DType::kInt64, DType::kFloat32);
  d.is_tensor = pick(0, 3) != 0;
  if (!d.is_tensor) {
    if (d.dtype == DType::kInt64) {
      d.scalar_mode = *rc::gen::element(DimMode::kStatic, DimMode::kDynamic, DimMode::kUnbacked);
    }
    d.data.literal = {gen_value(d.dtype)};
    return d;
  }
  int64_t numel = 1;
  for (int r = pick(0, 3); r > 0; --r) {
    d.sizes.push_back(pick(0, 3));
    numel *= d.sizes.back();
    d.dims.push_back(*rc::gen::element(DimMode::kStatic, DimMode::kDynamic, DimMode::kUnbacked));
  }
  DataSpec& s = d.data;
  s.kind =
      *rc::gen::element(DataSpec::Kind::kLiteral, DataSpec::Kind::kRandn, DataSpec::Kind::kRandint,
                        DataSpec::Kind::kRandbool, DataSpec::Kind::kArange, DataSpec::Kind::kFull);
  switch (s.kind) {
    case DataSpec::Kind::kLiteral:
      for (int64_t i = 0; i < numel; ++i) s.literal.push_back(gen_value(d.dtype));
      break;
    case DataSpec::Kind::kRandn:
      s.seed = gen_int();
      break;
    case DataSpec::Kind::kRandint:
      s.seed = gen_int();
      s.low = *rc::gen::inRange<int64_t>(INT64_MIN, INT64_MAX);
      s.high = *rc::gen::inRange<int64_t>(s.low + 1, INT64_MAX) + (coin() ? 1 : 0);
      break;
    case DataSpec::Kind::kRandbool:
      s.seed = gen_int();
      s.p = coin() ? pick(0, 4) / 4.0 : std::ldexp(static_cast<double>(pick(0, 1 << 30)), -30);
      break;
    case DataSpec::Kind::kArange:
      break;
    case DataSpec::Kind::kFull:
      s.value = gen_value(d.dtype);
      break;
  }
  return d;
}

std::string gen_found_by() {
  std::string s = *rc::gen::container<std::string>(rc::gen::inRange<char>(0x20, 0x7f));
  size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

Program gen_program() {
  Program p;
  switch (pick(0, 2)) {
    case 0:
      p.header.expect = "ok";
      break;
    case 1:
      p.header.expect = "error shape";
      break;
    default:
      p.header.expect = "error check_failed " + quote_string(gen_bytes());
  }
  p.header.found_by = gen_found_by();
  p.header.inference_mode = coin();
  Scope scope;
  for (int n = pick(0, 4); n > 0; --n) {
    std::string name = gen_name();
    if (scope.count(name) != 0) continue;
    scope.insert(name);
    p.inputs.push_back(gen_input(name));
  }
  // Functions see their parameters only and may call the functions defined before them.
  std::vector<std::string> functions;
  static const std::vector<std::string> kFunctionNames = {"f", "then_1", "body", "more", "g2"};
  for (int n = pick(0, 3); n > 0; --n) {
    std::string name = *rc::gen::elementOf(kFunctionNames);
    if (scope.count(name) != 0 ||
        std::find(functions.begin(), functions.end(), name) != functions.end()) {
      continue;
    }
    FunctionDef f;
    f.name = name;
    Scope params;
    for (int k = pick(0, 3); k > 0; --k) {
      std::string param = gen_name();
      if (params.insert(param).second) f.params.push_back(param);
    }
    f.body = gen_block(params, 2, 4, functions);
    Stmt fret;
    fret.kind = Stmt::Kind::kReturn;
    for (int k = pick(0, 3); k > 0; --k) fret.returns.push_back(gen_expr(params, 2));
    f.body.push_back(fret);
    p.functions.push_back(std::move(f));
    functions.push_back(name);
  }
  p.body = gen_block(scope, 3, 8, functions);
  Stmt ret;
  ret.kind = Stmt::Kind::kReturn;
  for (int n = pick(0, 3); n > 0; --n) ret.returns.push_back(gen_expr(scope, 2));
  p.body.push_back(ret);
  return p;
}

RC_GTEST_PROP(ProgramRoundtripProps, ParseOfPrintIsIdentity, ()) {
  Program p = gen_program();
  std::string text = print_program(p);
  RC_LOG() << text;
  RC_TAG(p.body.size() < 4 ? "<4 statements" : "4+ statements");
  RC_CLASSIFY(text.find("\n  if ") != std::string::npos, "nested if");
  RC_CLASSIFY(text.find("    ") != std::string::npos, "depth >= 2");
  RC_CLASSIFY(p.inputs.size() >= 2, "2+ inputs");
  RC_CLASSIFY(!p.functions.empty(), "def blocks");
  RC_CLASSIFY(text.find("= cond(") != std::string::npos, "cond");
  RC_CLASSIFY(text.find("= while_loop(") != std::string::npos, "while_loop");
  RC_CLASSIFY(text.find("= invoke_subgraph(") != std::string::npos, "invoke_subgraph");
  RC_CLASSIFY(text.find("= map(") != std::string::npos, "map");
  RC_CLASSIFY(text.find("= scan(") != std::string::npos, "scan");
  Program q = parse_program(text);
  RC_ASSERT(static_cast<bool>(q == p));
  RC_ASSERT(print_program(q) == text);
}

RC_GTEST_PROP(ProgramRoundtripProps, DeepExpressionsRoundTrip, ()) {
  ExprPtr e = gen_expr(Scope{"a", "b"}, pick(0, 8));
  std::string text = print_expr(*e);
  RC_LOG() << text;
  ExprPtr back = parse_expression(text);
  RC_ASSERT(static_cast<bool>(*back == *e));
  RC_ASSERT(print_expr(*back) == text);
}

// Random edits of valid text: the parser either rejects the result with a UserError or accepts
// it, and then printing what it accepted is canonical (reparses to the same AST and text).
RC_GTEST_PROP(ProgramRoundtripProps, MutatedTextParsesConsistentlyOrIsRejected, ()) {
  std::string text = print_program(gen_program());
  static const std::string kAlphabet = " \n\t()[],:=<>-+*/%|&~#\"\\.e0123456789_aTFNif";
  for (int n = pick(1, 4); n > 0 && !text.empty(); --n) {
    size_t at = *rc::gen::inRange<size_t>(0, text.size());
    switch (pick(0, 2)) {
      case 0:
        text.insert(at, 1, *rc::gen::elementOf(kAlphabet));
        break;
      case 1:
        text.erase(at, 1);
        break;
      default:
        text[at] = *rc::gen::elementOf(kAlphabet);
    }
  }
  RC_LOG() << text;
  Program p;
  try {
    p = parse_program(text);
  } catch (const UserError& e) {
    RC_LOG() << e.what();
    RC_CLASSIFY(true, std::string("rejected: ") + user_error_kind_name(e.kind()));
    return;
  }
  RC_CLASSIFY(true, "accepted");
  std::string canonical = print_program(p);
  Program q = parse_program(canonical);
  RC_ASSERT(static_cast<bool>(q == p));
  RC_ASSERT(print_program(q) == canonical);
}

}  // namespace
}  // namespace sf::program
