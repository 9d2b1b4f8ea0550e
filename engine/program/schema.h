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

// Tags on ops (ops.def Features column) for swarm testing and triage.
#define SF_OP_FEATURES(X)           \
  X(kAlias, "alias")                \
  X(kSymbolicArgs, "symbolic_args") \
  X(kMultiOutput, "multi_output")   \
  X(kScalarOutput, "scalar_output") \
  X(kBroadcast, "broadcast")        \
  X(kGather, "gather")              \
  X(kZeroDivision, "zero_division") \
  X(kMutation, "mutation")          \
  X(kMemoized, "memoized")

enum class OpFeature {
#define SF_OP_FEATURE_ENUM(e, name) e,
  SF_OP_FEATURES(SF_OP_FEATURE_ENUM)
#undef SF_OP_FEATURE_ENUM
};
const char* op_feature_name(OpFeature f);
std::optional<OpFeature> op_feature_by_name(std::string_view name);
const std::vector<OpFeature>& all_op_features();

// Operator syntax (ops.def Syntax column): precedence levels, lowest first, as the parser's
// grammar rules; kAtom is call syntax.
enum class Precedence {
  kOr = 1,
  kAnd,
  kNot,
  kComparison,
  kAdditive,
  kMultiplicative,
  kPrefix,
  kAtom
};
struct OpSyntax {
  Precedence precedence = Precedence::kAtom;
  const char* text = "";  // "+", or "" for call syntax
  bool is_operator() const { return precedence != Precedence::kAtom; }
  // The operator's operand count: 1 for the prefix operators (~, unary -), else 2.
  size_t arity() const {
    return precedence == Precedence::kNot || precedence == Precedence::kPrefix ? 1 : 2;
  }
};

// How export-torch spells a call (ops.def Torch column).
struct TorchSpelling {
  enum class Kind { kFunction, kMethod, kOperator, kCustom };
  Kind kind = Kind::kCustom;
  const char* name = "";  // the function ("torch.relu") or method ("view")
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
  uint32_t features = 0;    // bit (1 << OpFeature) per tag
  OpSyntax syntax;
  TorchSpelling torch;
  bool has(OpFeature f) const { return features & (1u << static_cast<int>(f)); }
};

const OpSchema& schema(OpKind op);
std::optional<OpKind> op_by_name(std::string_view name);
const char* op_name(OpKind op);
const std::vector<OpKind>& all_ops();
// The op written with this operator at this precedence level ("-" is sub at kAdditive and neg at
// kPrefix), for the parser.
std::optional<OpKind> op_by_operator(Precedence level, std::string_view text);
// The binary element op of a pointwise op (an internal error for any other op).
BinaryOp binary_element(OpKind op);
UnaryOp unary_element(OpKind op);

// One entry per parameter: the argument expression, the default, or null (absent optional).
std::vector<ExprPtr> bind_call(const Expr& call);

// An argument's form as a signature sees it: one value, or a list (a list literal, or a tuple
// value such as tolist's).
enum class ArgForm { kOne, kList };
// The one rule eager and the tracer apply to a bound argument's form: a dim is one int; dims
// are one int or a list; ints and tensors are a list; a tensor or scalar is one value. The
// error ("argument 'dim' must be an int, got a list") or nullopt; dtypes, flags and strings are
// the callers' (they are literals).
std::optional<std::string> argument_form_error(const Param& p, ArgForm form);

}  // namespace sf::program
