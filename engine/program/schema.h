// Op schemas parsed from ops.def signatures, and argument binding for calls (positional, then
// keyword, then defaults). Binding errors are UserError(kInvalidProgram) naming op and line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/program/ast.h"
#include "engine/program/dtype_rules.h"
#include "engine/program/elementwise.h"

namespace sf::program {

enum class ParamKind {
  kTensor,
  kScalar,
  kAny,
  kInt,
  kInts,
  kDim,
  kDims,
  kTensors,
  kDType,
  kFlag,
  kStr
};

struct Param {
  std::string name;
  ParamKind kind;
  bool optional = false;  // "?" or has a default
  ExprPtr default_value;  // null when optional without default (None)
};

// The element operation of a pointwise op (shared by eager, kernels and CUDA codegen).
struct ElementOp {
  enum class Kind { kNone, kBinary, kUnary };
  Kind kind = Kind::kNone;
  BinaryOp binary = BinaryOp::kAdd;  // kBinary
  UnaryOp unary = UnaryOp::kNeg;     // kUnary
};

// One row of ops.def.
struct OpSchema {
  OpKind op;
  std::string name;
  OpFamily family;
  std::vector<Param> params;
  ElementOp element;
  DTypeRule dtype_rule;
  bool allocates_unbacked;  // creates unbacked symbols (nonzero, item, ...)
  int gen_weight;           // the program generator's relative weight (0: not drawn)
};

const OpSchema& schema(OpKind op);
std::optional<OpKind> op_by_name(std::string_view name);
const char* op_name(OpKind op);
const std::vector<OpKind>& all_ops();
// The binary element op of a pointwise op (an internal error for any other op).
BinaryOp binary_element(OpKind op);
UnaryOp unary_element(OpKind op);

// One entry per parameter: the argument expression, the default, or null (absent optional).
std::vector<ExprPtr> bind_call(const Expr& call);

}  // namespace sf::program
