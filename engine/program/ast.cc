// AST constructors and structural equality (source locations are ignored).
#include "engine/program/ast.h"

namespace sf::program {

const char* dtype_name(DType d) {
  switch (d) {
    case DType::kBool:
      return "bool";
    case DType::kInt64:
      return "i64";
    case DType::kFloat32:
      return "f32";
  }
  return "?";
}

std::optional<DType> dtype_from_name(const std::string& s) {
  if (s == "bool") return DType::kBool;
  if (s == "i64") return DType::kInt64;
  if (s == "f32") return DType::kFloat32;
  return std::nullopt;
}

namespace {
std::shared_ptr<Expr> make(Expr::Kind k, SourceLoc loc) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->loc = loc;
  return e;
}
}  // namespace

ExprPtr Expr::var(std::string name, SourceLoc loc) {
  auto e = make(Kind::kVar, loc);
  e->name = std::move(name);
  return e;
}
ExprPtr Expr::integer(int64_t v, SourceLoc loc) {
  auto e = make(Kind::kInt, loc);
  e->int_value = v;
  return e;
}
ExprPtr Expr::floating(double v, SourceLoc loc) {
  auto e = make(Kind::kFloat, loc);
  e->float_value = v;
  return e;
}
ExprPtr Expr::boolean(bool v, SourceLoc loc) {
  auto e = make(Kind::kBool, loc);
  e->bool_value = v;
  return e;
}
ExprPtr Expr::string(std::string s, SourceLoc loc) {
  auto e = make(Kind::kString, loc);
  e->name = std::move(s);
  return e;
}
ExprPtr Expr::dtype_lit(DType d, SourceLoc loc) {
  auto e = make(Kind::kDType, loc);
  e->dtype = d;
  return e;
}
ExprPtr Expr::none(SourceLoc loc) { return make(Kind::kNone, loc); }
ExprPtr Expr::list(std::vector<ExprPtr> elems, SourceLoc loc) {
  auto e = make(Kind::kList, loc);
  e->elems = std::move(elems);
  return e;
}
ExprPtr Expr::call(OpKind op, std::vector<ExprPtr> args,
                   std::vector<std::pair<std::string, ExprPtr>> kwargs, bool infix, SourceLoc loc) {
  auto e = make(Kind::kCall, loc);
  e->op = op;
  e->args = std::move(args);
  e->kwargs = std::move(kwargs);
  e->infix = infix;
  return e;
}

namespace {
bool same(const ExprPtr& a, const ExprPtr& b) {
  if (!a || !b) return !a && !b;
  return *a == *b;
}
template <typename T>
bool same_all(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if constexpr (std::is_same_v<T, ExprPtr>) {
      if (!same(a[i], b[i])) return false;
    } else {
      if (!(a[i] == b[i])) return false;
    }
  }
  return true;
}
}  // namespace

void for_each_subexpr(const ExprPtr& e, const std::function<void(const Expr&)>& f) {
  if (!e) return;
  f(*e);
  for (const ExprPtr& a : e->args) for_each_subexpr(a, f);
  for (const auto& kw : e->kwargs) for_each_subexpr(kw.second, f);
  for (const ExprPtr& x : e->elems) for_each_subexpr(x, f);
}

bool operator==(const Expr& a, const Expr& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Expr::Kind::kVar:
    case Expr::Kind::kString:
      return a.name == b.name;
    case Expr::Kind::kInt:
      return a.int_value == b.int_value;
    case Expr::Kind::kFloat:
      return a.float_value == b.float_value ||
             (a.float_value != a.float_value && b.float_value != b.float_value);
    case Expr::Kind::kBool:
      return a.bool_value == b.bool_value;
    case Expr::Kind::kDType:
      return a.dtype == b.dtype;
    case Expr::Kind::kNone:
      return true;
    case Expr::Kind::kList:
      return same_all(a.elems, b.elems);
    case Expr::Kind::kCall: {
      if (a.op != b.op || a.infix != b.infix || !same_all(a.args, b.args)) return false;
      if (a.kwargs.size() != b.kwargs.size()) return false;
      for (size_t i = 0; i < a.kwargs.size(); ++i) {
        if (a.kwargs[i].first != b.kwargs[i].first ||
            !same(a.kwargs[i].second, b.kwargs[i].second)) {
          return false;
        }
      }
      return true;
    }
  }
  return false;
}

bool operator==(const Stmt& a, const Stmt& b) {
  return a.kind == b.kind && a.targets == b.targets && same(a.value, b.value) &&
         a.message == b.message && same(a.max, b.max) && same_all(a.then_body, b.then_body) &&
         same_all(a.else_body, b.else_body) && same_all(a.returns, b.returns) &&
         a.functions == b.functions && same_all(a.operands, b.operands) && a.carries == b.carries &&
         a.dim == b.dim;
}

bool is_higher_order(Stmt::Kind k) {
  return k == Stmt::Kind::kCond || k == Stmt::Kind::kWhileLoop ||
         k == Stmt::Kind::kInvokeSubgraph || k == Stmt::Kind::kMap || k == Stmt::Kind::kScan ||
         k == Stmt::Kind::kAssociativeScan;
}

const char* higher_order_name(Stmt::Kind k) {
  switch (k) {
    case Stmt::Kind::kCond:
      return "cond";
    case Stmt::Kind::kWhileLoop:
      return "while_loop";
    case Stmt::Kind::kInvokeSubgraph:
      return "invoke_subgraph";
    case Stmt::Kind::kMap:
      return "map";
    case Stmt::Kind::kScan:
      return "scan";
    case Stmt::Kind::kAssociativeScan:
      return "associative_scan";
    default:
      return "statement";
  }
}

bool operator==(const FunctionDef& a, const FunctionDef& b) {
  return a.name == b.name && a.params == b.params && same_all(a.body, b.body);
}

const FunctionDef* Program::function(const std::string& name) const {
  for (const FunctionDef& f : functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool operator==(const DataSpec& a, const DataSpec& b) {
  return a.kind == b.kind && a.literal == b.literal && a.seed == b.seed && a.low == b.low &&
         a.high == b.high && a.p == b.p && a.value == b.value;
}

bool operator==(const InputDecl& a, const InputDecl& b) {
  return a.name == b.name && a.is_tensor == b.is_tensor && a.dtype == b.dtype &&
         a.sizes == b.sizes && a.dims == b.dims && a.scalar_mode == b.scalar_mode &&
         a.data == b.data;
}

bool operator==(const Header& a, const Header& b) {
  return a.version == b.version && a.expect == b.expect && a.found_by == b.found_by &&
         a.inference_mode == b.inference_mode &&
         a.valid_by_construction == b.valid_by_construction && a.faults == b.faults &&
         a.reproduces == b.reproduces;
}

bool operator==(const Program& a, const Program& b) {
  return a.header == b.header && same_all(a.inputs, b.inputs) &&
         same_all(a.functions, b.functions) && same_all(a.body, b.body);
}

}  // namespace sf::program
