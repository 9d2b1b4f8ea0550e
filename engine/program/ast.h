// The program AST: inputs with concrete data and dynamic-dim modes, statements over expressions,
// and the header (expectation, provenance). Shared by the parser/printer, eager interpreter,
// tracer and generators. Equality ignores source locations.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sf::program {

enum class DType { kBool, kInt64, kFloat32 };
const char* dtype_name(DType d);  // "bool", "i64", "f32"
std::optional<DType> dtype_from_name(const std::string& s);

enum class OpKind {
#define SF_OP(Enum, name, family, signature, ...) Enum,
#include "engine/program/ops.def"
};

enum class OpFamily {
  kCreation,
  kPointwise,
  kReduction,
  kView,
  kJoin,
  kDataDependent,
  kScalar,
  kMutation
};

struct SourceLoc {
  int line = 0;
  int col = 0;
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  enum class Kind { kVar, kInt, kFloat, kBool, kString, kDType, kNone, kList, kCall };
  Kind kind = Kind::kNone;
  std::string name;  // kVar: variable name; kString: the string's contents
  int64_t int_value = 0;
  double float_value = 0.0;
  bool bool_value = false;
  DType dtype = DType::kFloat32;
  std::vector<ExprPtr> elems;                           // kList
  OpKind op = OpKind::kAdd;                             // kCall
  std::vector<ExprPtr> args;                            // kCall: positional arguments
  std::vector<std::pair<std::string, ExprPtr>> kwargs;  // kCall: keyword arguments, in order
  // kCall written with an operator (a + b, -a, ~a, a <= b): printed the same way.
  bool infix = false;
  SourceLoc loc;

  static ExprPtr var(std::string name, SourceLoc loc = {});
  static ExprPtr integer(int64_t v, SourceLoc loc = {});
  static ExprPtr floating(double v, SourceLoc loc = {});
  static ExprPtr boolean(bool v, SourceLoc loc = {});
  static ExprPtr string(std::string s, SourceLoc loc = {});
  static ExprPtr dtype_lit(DType d, SourceLoc loc = {});
  static ExprPtr none(SourceLoc loc = {});
  static ExprPtr list(std::vector<ExprPtr> elems, SourceLoc loc = {});
  static ExprPtr call(OpKind op, std::vector<ExprPtr> args,
                      std::vector<std::pair<std::string, ExprPtr>> kwargs = {}, bool infix = false,
                      SourceLoc loc = {});
};
bool operator==(const Expr& a, const Expr& b);
// Calls `f` on `e` and then on every expression inside it (call arguments, keyword arguments,
// list elements), depth first; nothing for null.
void for_each_subexpr(const ExprPtr& e, const std::function<void(const Expr&)>& f);

struct Stmt {
  // The higher-order ops over `def` blocks: kCond `targets = cond(pred, then_fn, else_fn,
  // [operands])`; kWhileLoop `targets = while_loop(cond_fn, body_fn, [carries])`;
  // kInvokeSubgraph `targets = invoke_subgraph(fn, [operands])` (a compiled region); kMap
  // `targets = map(fn, [xs])` (fn on the rows of every xs together, outputs stacked); kScan
  // `targets = scan(fn, [init], [xs])` (fn(carries, rows) -> next carries, per-row outputs);
  // kAssociativeScan `targets = associative_scan(fn, [xs], dim)` (fn(left rows, right rows) ->
  // rows of the same dtypes and shapes, folded along dim: an inclusive scan).
  enum class Kind {
    kAssign,
    kCheck,
    kCheckIsSize,
    kIf,
    kReturn,
    kCond,
    kWhileLoop,
    kInvokeSubgraph,
    kMap,
    kScan,
    kAssociativeScan
  };
  Kind kind = Kind::kAssign;
  std::vector<std::string> targets;  // kAssign and the higher-order ops: one name, or several
  ExprPtr value;  // kAssign: rhs; kCheck/kIf: condition; kCheckIsSize: value; kCond: pred
  std::vector<std::string> functions;  // kCond: then, else; kWhileLoop: cond, body; else: fn
  std::vector<ExprPtr>
      operands;                  // kWhileLoop: initial carries; kScan: init, then xs; else operands
  size_t carries = 0;            // kScan: how many operands are the initial carries
  int64_t dim = 0;               // kAssociativeScan: the dim it scans (as written; may be < 0)
  std::string message;           // kCheck: the message
  ExprPtr max;                   // kCheckIsSize: optional max (null when absent)
  std::vector<Stmt> then_body;   // kIf
  std::vector<Stmt> else_body;   // kIf (empty when there is no else)
  std::vector<ExprPtr> returns;  // kReturn
  SourceLoc loc;
};
bool operator==(const Stmt& a, const Stmt& b);
// Whether `k` calls `def` blocks (the higher-order ops), and its name in programs.
bool is_higher_order(Stmt::Kind k);
const char* higher_order_name(Stmt::Kind k);

enum class DimMode { kStatic, kDynamic, kUnbacked };

// How an input's data is produced. The generators' algorithms are fixed in corpus/README.md so a
// file reproduces on any machine.
struct DataSpec {
  enum class Kind { kLiteral, kRandn, kRandint, kRandbool, kArange, kFull };
  Kind kind = Kind::kLiteral;
  std::vector<double> literal;  // kLiteral: row-major values (ints and bools as exact doubles)
  int64_t seed = 0;             // kRandn, kRandint, kRandbool
  int64_t low = 0, high = 0;    // kRandint: [low, high)
  double p = 0.5;               // kRandbool: probability of True
  double value = 0.0;           // kFull
};
bool operator==(const DataSpec& a, const DataSpec& b);

struct InputDecl {
  std::string name;
  bool is_tensor = true;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> sizes;              // tensors
  std::vector<DimMode> dims;               // tensors: one per dim (static unless marked)
  DimMode scalar_mode = DimMode::kStatic;  // scalar inputs (i64 only may be symbolic)
  DataSpec data;                           // scalars: literal with one value
  SourceLoc loc;
};
bool operator==(const InputDecl& a, const InputDecl& b);

struct Header {
  int version = 1;
  std::string expect = "ok";  // "ok" | "error <kind> [\"substring\"]"
  std::string found_by;       // provenance, free text (may be empty)
  bool inference_mode = false;
  // "# valid: by-construction": the generator built it so that tracing must accept it whenever
  // eager runs it; a rejection at trace is then a wrong rejection (its own bucket), not a pass.
  bool valid_by_construction = false;
  // "# faults: a, b": bug-zoo fault switches (engine/base/faults.def) the pipeline turns on while
  // it runs this program, so a zoo reproducer replays as-is.
  std::vector<std::string> faults;
  // "# reproduces: BUCKET: MESSAGE": what a campaign reproducer reproduces (its bucket and
  // normalized message, fuzz/outcome.h), so `repro` can say whether it still does.
  std::string reproduces;
};
bool operator==(const Header& a, const Header& b);

// `def name(params):` — a block that the higher-order ops call: a nested program whose inputs are
// its parameters (it reads no other name) and whose last statement is its return.
struct FunctionDef {
  std::string name;
  std::vector<std::string> params;
  std::vector<Stmt> body;
  SourceLoc loc;
};
bool operator==(const FunctionDef& a, const FunctionDef& b);

struct Program {
  Header header;
  std::vector<InputDecl> inputs;
  std::vector<FunctionDef> functions;  // after the inputs; each may call only earlier ones
  std::vector<Stmt> body;
  // The function called `name` (null when there is none).
  const FunctionDef* function(const std::string& name) const;
};
bool operator==(const Program& a, const Program& b);

}  // namespace sf::program
