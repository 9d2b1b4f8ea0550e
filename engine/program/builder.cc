// The program builder.
#include "engine/program/builder.h"

#include "engine/base/check.h"
#include "engine/program/schema.h"

namespace sf::program {

namespace ex {

ExprPtr v(const std::string& name) { return Expr::var(name); }
ExprPtr i(int64_t value) {
  if (value < 0 && value != INT64_MIN) {
    return Expr::call(OpKind::kNeg, {Expr::integer(-value)}, {}, true);
  }
  return Expr::integer(value);
}
ExprPtr f(double value) { return Expr::floating(value); }
ExprPtr b(bool value) { return Expr::boolean(value); }
ExprPtr dt(DType d) { return Expr::dtype_lit(d); }
ExprPtr list(std::vector<ExprPtr> elems) { return Expr::list(std::move(elems)); }

ExprPtr call(const std::string& op, std::vector<ExprPtr> args,
             std::vector<std::pair<std::string, ExprPtr>> kwargs) {
  std::optional<OpKind> k = op_by_name(op);
  SF_CHECK(k) << "unknown op " << op;
  return Expr::call(*k, std::move(args), std::move(kwargs), false);
}

ExprPtr infix(const std::string& op, ExprPtr a, ExprPtr b) {
  std::optional<OpKind> k = op_by_name(op);
  SF_CHECK(k) << "unknown op " << op;
  return Expr::call(*k, {std::move(a), std::move(b)}, {}, true);
}
ExprPtr add(ExprPtr a, ExprPtr b) { return infix("add", a, b); }
ExprPtr sub(ExprPtr a, ExprPtr b) { return infix("sub", a, b); }
ExprPtr mul(ExprPtr a, ExprPtr b) { return infix("mul", a, b); }
ExprPtr lt(ExprPtr a, ExprPtr b) { return infix("lt", a, b); }
ExprPtr le(ExprPtr a, ExprPtr b) { return infix("le", a, b); }
ExprPtr gt(ExprPtr a, ExprPtr b) { return infix("gt", a, b); }
ExprPtr ge(ExprPtr a, ExprPtr b) { return infix("ge", a, b); }
ExprPtr eq(ExprPtr a, ExprPtr b) { return infix("eq", a, b); }

}  // namespace ex

DataSpec literal_data(std::vector<double> values) {
  DataSpec d;
  d.kind = DataSpec::Kind::kLiteral;
  d.literal = std::move(values);
  return d;
}
DataSpec randn_data(int64_t seed) {
  DataSpec d;
  d.kind = DataSpec::Kind::kRandn;
  d.seed = seed;
  return d;
}
DataSpec randint_data(int64_t low, int64_t high, int64_t seed) {
  DataSpec d;
  d.kind = DataSpec::Kind::kRandint;
  d.low = low;
  d.high = high;
  d.seed = seed;
  return d;
}
DataSpec randbool_data(double p, int64_t seed) {
  DataSpec d;
  d.kind = DataSpec::Kind::kRandbool;
  d.p = p;
  d.seed = seed;
  return d;
}

ProgramBuilder& ProgramBuilder::tensor(const std::string& name, DType dtype,
                                       std::vector<int64_t> sizes, DataSpec data,
                                       std::vector<int> dynamic_dims,
                                       std::vector<int> unbacked_dims) {
  InputDecl in;
  in.name = name;
  in.is_tensor = true;
  in.dtype = dtype;
  in.dims.assign(sizes.size(), DimMode::kStatic);
  for (int d : dynamic_dims) in.dims.at(d) = DimMode::kDynamic;
  for (int d : unbacked_dims) in.dims.at(d) = DimMode::kUnbacked;
  in.sizes = std::move(sizes);
  in.data = std::move(data);
  in.loc.line = line_++;
  p_.inputs.push_back(std::move(in));
  return *this;
}

ProgramBuilder& ProgramBuilder::tensor_values(const std::string& name, DType dtype,
                                              std::vector<int64_t> sizes,
                                              std::vector<double> values,
                                              std::vector<int> dynamic_dims,
                                              std::vector<int> unbacked_dims) {
  return tensor(name, dtype, std::move(sizes), literal_data(std::move(values)),
                std::move(dynamic_dims), std::move(unbacked_dims));
}

ProgramBuilder& ProgramBuilder::int_input(const std::string& name, int64_t value, DimMode mode) {
  InputDecl in;
  in.name = name;
  in.is_tensor = false;
  in.dtype = DType::kInt64;
  in.scalar_mode = mode;
  in.data = literal_data({static_cast<double>(value)});
  in.loc.line = line_++;
  p_.inputs.push_back(std::move(in));
  return *this;
}

Stmt ProgramBuilder::assign_stmt(const std::string& name, ExprPtr value) {
  Stmt s;
  s.kind = Stmt::Kind::kAssign;
  s.targets = {name};
  s.value = std::move(value);
  return s;
}

ProgramBuilder& ProgramBuilder::assign(const std::string& name, ExprPtr value) {
  Stmt s = assign_stmt(name, std::move(value));
  s.loc.line = line_++;
  p_.body.push_back(std::move(s));
  return *this;
}

ProgramBuilder& ProgramBuilder::unpack(std::vector<std::string> names, ExprPtr value) {
  Stmt s;
  s.kind = Stmt::Kind::kAssign;
  s.targets = std::move(names);
  s.value = std::move(value);
  s.loc.line = line_++;
  p_.body.push_back(std::move(s));
  return *this;
}

ProgramBuilder& ProgramBuilder::check(ExprPtr cond, const std::string& message) {
  Stmt s;
  s.kind = Stmt::Kind::kCheck;
  s.value = std::move(cond);
  s.message = message;
  s.loc.line = line_++;
  p_.body.push_back(std::move(s));
  return *this;
}

ProgramBuilder& ProgramBuilder::check_is_size(ExprPtr value, std::optional<int64_t> max) {
  Stmt s;
  s.kind = Stmt::Kind::kCheckIsSize;
  s.value = std::move(value);
  if (max) s.max = ex::i(*max);
  s.loc.line = line_++;
  p_.body.push_back(std::move(s));
  return *this;
}

ProgramBuilder& ProgramBuilder::if_else(ExprPtr cond, std::vector<Stmt> then_body,
                                        std::vector<Stmt> else_body) {
  Stmt s;
  s.kind = Stmt::Kind::kIf;
  s.value = std::move(cond);
  s.then_body = std::move(then_body);
  s.else_body = std::move(else_body);
  s.loc.line = line_++;
  p_.body.push_back(std::move(s));
  return *this;
}

ProgramBuilder& ProgramBuilder::ret(std::vector<ExprPtr> values) {
  Stmt s;
  s.kind = Stmt::Kind::kReturn;
  s.returns = std::move(values);
  s.loc.line = line_++;
  p_.body.push_back(std::move(s));
  return *this;
}

ProgramBuilder& ProgramBuilder::expect(const std::string& expectation) {
  p_.header.expect = expectation;
  return *this;
}

ProgramBuilder& ProgramBuilder::inference_mode(bool on) {
  p_.header.inference_mode = on;
  return *this;
}

}  // namespace sf::program
