// The concrete evaluator: int64/double/bool semantics with an explicit "defined" flag for
// division by zero, int64 overflow and missing symbol values (Alive2's value+definedness pairs).
#pragma once

#include <string>
#include <unordered_map>

#include "engine/sym/expr.h"

namespace sf::sym {

struct Concrete {
  ExprType type = ExprType::kInt;
  int64_t i = 0;
  double f = 0.0;
  bool b = false;

  static Concrete of_int(int64_t v) { return Concrete{ExprType::kInt, v, 0.0, false}; }
  static Concrete of_float(double v) { return Concrete{ExprType::kFloat, 0, v, false}; }
  static Concrete of_bool(bool v) { return Concrete{ExprType::kBool, 0, 0.0, v}; }
  double as_double() const;
  bool operator==(const Concrete& o) const;
  std::string str() const;
};

struct EvalResult {
  bool defined = false;
  Concrete value;
  std::string why;  // reason when undefined
};

using Assignment = std::unordered_map<ExprRef, Concrete, ExprHash>;  // symbol -> value

EvalResult evaluate(const ExprRef& e, const Assignment& values);

}  // namespace sf::sym
