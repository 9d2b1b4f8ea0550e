// Helpers shared by the eager tests: AST shorthands, host tensor literals, a one-expression runner
// and exact value comparison (NaN equals NaN) with Input / Output / Expected printing.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/eager/eager.h"
#include "engine/program/ast.h"
#include "engine/program/host_value.h"

namespace sf::eager::testing {

using program::DType;
using program::Expr;
using program::ExprPtr;
using program::HostTensor;
using program::HostValue;
using program::OpKind;
using program::Program;
using program::Stmt;
using Inputs = std::map<std::string, HostValue>;

inline ExprPtr V(const std::string& name) { return Expr::var(name); }
inline ExprPtr I(int64_t v) { return Expr::integer(v); }
inline ExprPtr F(double v) { return Expr::floating(v); }
inline ExprPtr B(bool v) { return Expr::boolean(v); }
inline ExprPtr D(DType d) { return Expr::dtype_lit(d); }
inline ExprPtr None() { return Expr::none(); }
inline ExprPtr L(std::vector<ExprPtr> elems) { return Expr::list(std::move(elems)); }
inline ExprPtr Ints(const std::vector<int64_t>& v) {
  std::vector<ExprPtr> elems;
  for (int64_t x : v) elems.push_back(I(x));
  return L(elems);
}
inline ExprPtr C(OpKind op, std::vector<ExprPtr> args,
                 std::vector<std::pair<std::string, ExprPtr>> kwargs = {}) {
  return Expr::call(op, std::move(args), std::move(kwargs));
}

// Tensor literals; values are row-major (bools and ints as exact doubles).
inline HostValue T(DType dtype, std::vector<int64_t> sizes, const std::vector<double>& values) {
  HostTensor t = HostTensor::zeros(dtype, std::move(sizes));
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel()) << "bad literal in the test";
  for (size_t k = 0; k < values.size() && static_cast<int64_t>(k) < t.numel(); ++k) {
    if (t.is_float()) {
      t.floats[k] = static_cast<float>(values[k]);
    } else {
      t.ints[k] = static_cast<int64_t>(values[k]);
    }
  }
  return HostValue::of_tensor(std::move(t));
}
inline HostValue F32(std::vector<int64_t> s, const std::vector<double>& v) {
  return T(DType::kFloat32, std::move(s), v);
}
inline HostValue I64(std::vector<int64_t> s, const std::vector<double>& v) {
  return T(DType::kInt64, std::move(s), v);
}
inline HostValue Bool(std::vector<int64_t> s, const std::vector<double>& v) {
  return T(DType::kBool, std::move(s), v);
}
// i64 tensor from exact int64 values (for values beyond 2^53).
inline HostValue I64x(std::vector<int64_t> sizes, std::vector<int64_t> values) {
  HostTensor t = HostTensor::zeros(DType::kInt64, std::move(sizes));
  t.ints = std::move(values);
  return HostValue::of_tensor(std::move(t));
}
inline HostValue Int(int64_t v) { return HostValue::of_int(v); }
inline HostValue Flt(double v) { return HostValue::of_float(v); }
inline HostValue Bl(bool v) { return HostValue::of_bool(v); }
inline HostValue Tup(std::vector<HostValue> v) { return HostValue::tuple(std::move(v)); }

inline Stmt unpack(std::vector<std::string> targets, ExprPtr value) {
  Stmt s;
  s.kind = Stmt::Kind::kAssign;
  s.targets = std::move(targets);
  s.value = std::move(value);
  return s;
}
inline Stmt assign(const std::string& target, ExprPtr value) {
  return unpack(std::vector<std::string>{target}, std::move(value));
}
inline Stmt check(ExprPtr cond, std::string message) {
  Stmt s;
  s.kind = Stmt::Kind::kCheck;
  s.value = std::move(cond);
  s.message = std::move(message);
  return s;
}
inline Stmt check_is_size(ExprPtr n, ExprPtr max = nullptr) {
  Stmt s;
  s.kind = Stmt::Kind::kCheckIsSize;
  s.value = std::move(n);
  s.max = std::move(max);
  return s;
}
inline Stmt if_(ExprPtr cond, std::vector<Stmt> then_body, std::vector<Stmt> else_body = {}) {
  Stmt s;
  s.kind = Stmt::Kind::kIf;
  s.value = std::move(cond);
  s.then_body = std::move(then_body);
  s.else_body = std::move(else_body);
  return s;
}
inline Stmt ret(std::vector<ExprPtr> values) {
  Stmt s;
  s.kind = Stmt::Kind::kReturn;
  s.returns = std::move(values);
  return s;
}

// A program whose inputs are declared from the given values (names in map order).
inline Program program_of(const Inputs& inputs, std::vector<Stmt> body) {
  Program p;
  for (const auto& [name, v] : inputs) {
    program::InputDecl d;
    d.name = name;
    d.is_tensor = v.kind == HostValue::Kind::kTensor;
    d.dtype = d.is_tensor                         ? v.tensor.dtype
              : v.kind == HostValue::Kind::kInt   ? DType::kInt64
              : v.kind == HostValue::Kind::kFloat ? DType::kFloat32
                                                  : DType::kBool;
    if (d.is_tensor) {
      d.sizes = v.tensor.sizes;
      d.dims.assign(d.sizes.size(), program::DimMode::kStatic);
    }
    p.inputs.push_back(d);
  }
  p.body = std::move(body);
  return p;
}

// Evaluates one expression over the inputs (the program `return e`).
inline HostValue eval(ExprPtr e, const Inputs& inputs = {}) {
  EagerResult r = run_eager(program_of(inputs, {ret({std::move(e)})}), inputs);
  EXPECT_EQ(r.outputs.size(), 1u);
  return r.outputs.empty() ? HostValue{} : r.outputs[0];
}

// Runs a program over the inputs and returns its outputs.
inline std::vector<HostValue> run(const Inputs& inputs, std::vector<Stmt> body) {
  return run_eager(program_of(inputs, std::move(body)), inputs).outputs;
}

// Full-precision printing of every element (HostValue::str abbreviates).
inline std::string show(const HostValue& v) {
  std::ostringstream out;
  out.precision(9);
  if (v.kind == HostValue::Kind::kTuple) {
    out << "(";
    for (size_t k = 0; k < v.elems.size(); ++k) out << (k ? ", " : "") << show(v.elems[k]);
    out << ")";
  } else if (v.kind == HostValue::Kind::kTensor) {
    const HostTensor& t = v.tensor;
    out << program::dtype_name(t.dtype) << "[";
    for (size_t d = 0; d < t.sizes.size(); ++d) out << (d ? ", " : "") << t.sizes[d];
    out << "] [";
    size_t n = t.is_float() ? t.floats.size() : t.ints.size();
    for (size_t k = 0; k < n; ++k) {
      out << (k ? ", " : "");
      if (t.is_float()) {
        out << t.floats[k];
      } else {
        out << t.ints[k];
      }
    }
    out << "]";
  } else if (v.kind == HostValue::Kind::kFloat) {
    out << "float " << v.f;
  } else {
    out << v.str();
  }
  return out.str();
}

inline bool same(const HostValue& a, const HostValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case HostValue::Kind::kNone:
      return true;
    case HostValue::Kind::kInt:
      return a.i == b.i;
    case HostValue::Kind::kBool:
      return a.b == b.b;
    case HostValue::Kind::kFloat:
      return a.f == b.f || (std::isnan(a.f) && std::isnan(b.f));
    case HostValue::Kind::kTuple: {
      if (a.elems.size() != b.elems.size()) return false;
      for (size_t k = 0; k < a.elems.size(); ++k) {
        if (!same(a.elems[k], b.elems[k])) return false;
      }
      return true;
    }
    case HostValue::Kind::kTensor: {
      const HostTensor &x = a.tensor, &y = b.tensor;
      if (x.dtype != y.dtype || x.sizes != y.sizes || x.ints != y.ints) return false;
      if (x.floats.size() != y.floats.size()) return false;
      for (size_t k = 0; k < x.floats.size(); ++k) {
        bool both_nan = std::isnan(x.floats[k]) && std::isnan(y.floats[k]);
        if (!both_nan && x.floats[k] != y.floats[k]) return false;
      }
      return true;
    }
  }
  return false;
}

// Expects the outputs to equal `want` exactly (`same`: NaN equals NaN).
inline void expect_outputs(const std::vector<HostValue>& got, const std::vector<HostValue>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_TRUE(same(got[k], want[k]))
        << "output " << k << "\nOutput: " << show(got[k]) << "\nExpected: " << show(want[k]);
  }
}

// One table row: an expression over the test's inputs and its exact expected value.
struct Case {
  std::string name;
  ExprPtr expr;
  HostValue expected;
};

inline void run_cases(const std::vector<Case>& cases, const Inputs& inputs = {}) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    try {
      HostValue out = eval(c.expr, inputs);
      EXPECT_TRUE(same(out, c.expected))
          << "Input: " << c.name << "\nOutput: " << show(out) << "\nExpected: " << show(c.expected);
    } catch (const UserError& e) {
      ADD_FAILURE() << "Input: " << c.name << "\nunexpected user error: " << e.what();
    }
  }
}

// Runs the program and expects a UserError of `kind` whose message contains `substring`.
inline void expect_error(const Program& p, const Inputs& inputs, UserErrorKind kind,
                         const std::string& substring) {
  try {
    EagerResult r = run_eager(p, inputs);
    ADD_FAILURE() << "expected a " << user_error_kind_name(kind) << " error containing \""
                  << substring << "\", got " << r.outputs.size() << " outputs";
  } catch (const UserError& e) {
    EXPECT_EQ(user_error_kind_name(e.kind()), std::string(user_error_kind_name(kind)))
        << "message: " << e.what();
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos)
        << "message: " << e.what() << "\nexpected substring: " << substring;
  }
}
inline void expect_error(ExprPtr e, const Inputs& inputs, UserErrorKind kind,
                         const std::string& substring) {
  expect_error(program_of(inputs, {ret({std::move(e)})}), inputs, kind, substring);
}

}  // namespace sf::eager::testing

namespace sf::program {
// Lets GoogleTest print host values in failure messages.
inline void PrintTo(const HostValue& v, std::ostream* os) { *os << sf::eager::testing::show(v); }
}  // namespace sf::program
