// Op schemas parsed from ops.def signatures, and argument binding for calls (positional, then
// keyword, then defaults). Binding errors are UserError(kInvalidProgram) naming op and line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/program/ast.h"

namespace sf::program {

enum class ParamKind { kTensor, kScalar, kAny, kInt, kInts, kDim, kDims, kTensors, kDType, kFlag, kStr };

struct Param {
  std::string name;
  ParamKind kind;
  bool optional = false;  // "?" or has a default
  ExprPtr default_value;  // null when optional without default (None)
};

struct OpSchema {
  OpKind op;
  std::string name;
  OpFamily family;
  std::vector<Param> params;
};

const OpSchema& schema(OpKind op);
std::optional<OpKind> op_by_name(std::string_view name);
const char* op_name(OpKind op);
const std::vector<OpKind>& all_ops();

// One entry per parameter: the argument expression, the default, or null (absent optional).
std::vector<ExprPtr> bind_call(const Expr& call);

}  // namespace sf::program
