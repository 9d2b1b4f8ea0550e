// A small builder API for programs (used by tests and generators): inputs, statements and
// expressions by op name, producing the same AST the parser does.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "engine/program/ast.h"

namespace sf::program {

// Expression helpers.
namespace ex {
ExprPtr v(const std::string& name);
ExprPtr i(int64_t value);  // negative values become neg(|v|) written infix, as the parser does
ExprPtr f(double value);
ExprPtr b(bool value);
ExprPtr dt(DType d);
ExprPtr list(std::vector<ExprPtr> elems);
// A call by op name (SF_CHECKs the name); `infix` for binary/unary operators.
ExprPtr call(const std::string& op, std::vector<ExprPtr> args,
             std::vector<std::pair<std::string, ExprPtr>> kwargs = {});
ExprPtr infix(const std::string& op, ExprPtr a, ExprPtr b);
ExprPtr add(ExprPtr a, ExprPtr b);
ExprPtr sub(ExprPtr a, ExprPtr b);
ExprPtr mul(ExprPtr a, ExprPtr b);
ExprPtr lt(ExprPtr a, ExprPtr b);
ExprPtr le(ExprPtr a, ExprPtr b);
ExprPtr gt(ExprPtr a, ExprPtr b);
ExprPtr ge(ExprPtr a, ExprPtr b);
ExprPtr eq(ExprPtr a, ExprPtr b);
}  // namespace ex

class ProgramBuilder {
 public:
  // dynamic / unbacked dims by index; the rest static.
  ProgramBuilder& tensor(const std::string& name, DType dtype, std::vector<int64_t> sizes,
                         DataSpec data, std::vector<int> dynamic_dims = {},
                         std::vector<int> unbacked_dims = {});
  ProgramBuilder& tensor_values(const std::string& name, DType dtype, std::vector<int64_t> sizes,
                                std::vector<double> values, std::vector<int> dynamic_dims = {},
                                std::vector<int> unbacked_dims = {});
  ProgramBuilder& int_input(const std::string& name, int64_t value,
                            DimMode mode = DimMode::kStatic);
  ProgramBuilder& assign(const std::string& name, ExprPtr value);
  ProgramBuilder& unpack(std::vector<std::string> names, ExprPtr value);
  ProgramBuilder& check(ExprPtr cond, const std::string& message);
  ProgramBuilder& check_is_size(ExprPtr value, std::optional<int64_t> max = std::nullopt);
  ProgramBuilder& if_else(ExprPtr cond, std::vector<Stmt> then_body, std::vector<Stmt> else_body);
  ProgramBuilder& ret(std::vector<ExprPtr> values);
  ProgramBuilder& expect(const std::string& expectation);
  ProgramBuilder& inference_mode(bool on = true);
  // Statements for if/else bodies.
  static Stmt assign_stmt(const std::string& name, ExprPtr value);
  Program build() const { return p_; }

 private:
  Program p_;
  int line_ = 1;
};

DataSpec literal_data(std::vector<double> values);
DataSpec randn_data(int64_t seed);
DataSpec randint_data(int64_t low, int64_t high, int64_t seed);
DataSpec randbool_data(double p, int64_t seed);

}  // namespace sf::program
