// Statements, expressions and op dispatch of the eager interpreter; inputs in, outputs out.
// One flat environment as in Python: names assigned inside an `if` branch stay defined after it.
#include <algorithm>
#include <map>
#include <memory>

#include "engine/base/check.h"
#include "engine/eager/eager.h"
#include "engine/eager/internal.h"
#include "engine/eager/tensor_util.h"
#include "engine/program/input_data.h"
#include "engine/program/op_cases.h"
#include "engine/program/operand_mutation.h"
#include "engine/program/run_limits.h"
#include "engine/program/schema.h"

namespace sf::eager {

using program::Expr;
using program::HostValue;
using program::Stmt;
using namespace internal;  // NOLINT: the interpreter is the internal namespace's one client

namespace {

// The one switch over every op: a new op in ops.def fails to compile here (-Werror=switch).
Value dispatch(const Call& c) {
  switch (c.op()) {
    case OpKind::kZeros:
      return fill(c, FillKind::kZeros);
    case OpKind::kOnes:
      return fill(c, FillKind::kOnes);
    case OpKind::kFull:
      return fill(c, FillKind::kFull);
    case OpKind::kArange:
      return arange(c);
#define SF_OP SF_ELEMENTWISE_BINARY_CASE
#include "engine/program/ops.def"
      return binary(c, program::binary_element(c.op()));
#define SF_OP SF_ELEMENTWISE_UNARY_CASE
#include "engine/program/ops.def"
      return unary(c, program::unary_element(c.op()));
    case OpKind::kRelu:
      return relu(c);
    case OpKind::kTo:
      return to_dtype(c);
    case OpKind::kWhere:
      return where(c);
    case OpKind::kSum:
      return reduce(c, ReduceOp::kSum);
    case OpKind::kAmax:
      return reduce(c, ReduceOp::kAmax);
    case OpKind::kAmin:
      return reduce(c, ReduceOp::kAmin);
    case OpKind::kAny:
      return reduce(c, ReduceOp::kAny);
    case OpKind::kAll:
      return reduce(c, ReduceOp::kAll);
    case OpKind::kCountNonzero:
      return reduce(c, ReduceOp::kCountNonzero);
    case OpKind::kView:
      return view(c);
    case OpKind::kReshape:
      return view(c);
    case OpKind::kPermute:
      return permute(c);
    case OpKind::kTranspose:
      return transpose(c);
    case OpKind::kUnsqueeze:
      return unsqueeze(c);
    case OpKind::kSqueeze:
      return squeeze(c);
    case OpKind::kExpand:
      return expand(c);
    case OpKind::kSlice:
      return slice(c);
    case OpKind::kNarrow:
      return narrow(c);
    case OpKind::kSelect:
      return select(c);
    case OpKind::kFlatten:
      return flatten(c);
    case OpKind::kCat:
      return cat(c);
    case OpKind::kStack:
      return stack(c);
    case OpKind::kIndexSelect:
      return index_select(c);
    case OpKind::kNonzero:
      return nonzero(c);
    case OpKind::kIndex:
      return index(c);
    case OpKind::kMaskedSelect:
      return masked_select(c);
    case OpKind::kUnique:
      return unique(c);
    case OpKind::kItem:
      return item(c);
    case OpKind::kTolist:
      return tolist(c);
    case OpKind::kRepeatInterleave:
      return repeat_interleave(c);
    case OpKind::kSize:
      return size(c);
    case OpKind::kStride:
      return stride(c);
    case OpKind::kNumel:
      return numel(c);
    case OpKind::kMin:
      return scalar_binary(c, program::binary_element(c.op()), c.scalar(0), c.scalar(1));
    case OpKind::kMax:
      return scalar_binary(c, program::binary_element(c.op()), c.scalar(0), c.scalar(1));
    case OpKind::kAddInplace:
      return add_inplace(c);
  }
  SF_UNREACHABLE() << "op " << static_cast<int>(c.op());
}

[[noreturn]] void invalid(const std::string& message) {
  throw_user_error(UserErrorKind::kInvalidProgram, message);
}

HostValue to_host(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kNone:
      return HostValue{};
    case Value::Kind::kTensor:
      return HostValue::of_tensor(*v.tensor);
    case Value::Kind::kInt:
      return HostValue::of_int(v.i);
    case Value::Kind::kFloat:
      return HostValue::of_float(v.f);
    case Value::Kind::kBool:
      return HostValue::of_bool(v.b);
    case Value::Kind::kTuple: {
      std::vector<HostValue> elems;
      for (const Value& e : v.elems) elems.push_back(to_host(e));
      return HostValue::tuple(std::move(elems));
    }
    case Value::Kind::kDType:
    case Value::Kind::kStr:
      invalid("cannot return " + v.describe());
  }
  SF_UNREACHABLE();
}

// cond / while_loop calls nest at most this deep (functions call only earlier ones, so it is
// bounded by their number anyway; this keeps the C++ stack small).
constexpr int kMaxCallDepth = 64;

class Interpreter {
 public:
  Interpreter() = default;
  explicit Interpreter(const std::vector<program::FunctionDef>* functions, int depth = 0)
      : functions_(functions), depth_(depth) {}

  // Runs the block; true when a return statement ran (execution stops there).
  bool run_block(const std::vector<Stmt>& body) {
    for (const Stmt& s : body) {
      if (run_stmt(s)) return true;
    }
    return false;
  }

  void bind(const std::string& name, Value v) { env_[name] = std::move(v); }
  std::vector<HostValue> take_outputs() { return std::move(outputs_); }
  const std::vector<HostValue>& outputs() const { return outputs_; }

  // One statement with nothing left behind when it raises (see Session::run).
  void run_atomically(const Stmt& s) {
    // The loop iterations a statement that raises spent are not the run's (a generator's
    // rejected candidate must not use up the budget of the statements after it).
    program::LoopBudget budget = *loop_budget_;
    TrailMark mark = trail_mark();
    if (s.kind != Stmt::Kind::kIf) {
      try {
        run_stmt(s);
      } catch (const UserError&) {
        *loop_budget_ = budget;
        rewind_trail(mark);
        throw;
      }
      return;
    }
    std::map<std::string, Value> before = env_;  // values are shared handles: a cheap copy
    try {
      run_stmt(s);
    } catch (const UserError&) {
      env_ = std::move(before);
      *loop_budget_ = budget;
      rewind_trail(mark);
      throw;
    }
  }

  HostValue value_of(const std::string& name) const {
    auto it = env_.find(name);
    if (it == env_.end()) invalid("undefined variable '" + name + "'");
    return to_host(it->second);
  }

 private:
  bool run_stmt(const Stmt& s) {
    line_ = s.loc.line;
    if (s.kind == Stmt::Kind::kIf) {
      bool cond = located(s, [&] { return condition(s, "if"); });
      return run_block(cond ? s.then_body : s.else_body);
    }
    return located(s, [&] { return run_simple(s); });
  }

  // Prefixes "line N: " to user errors from one statement (hand-built ASTs have no lines).
  template <typename F>
  bool located(const Stmt& s, F f) {
    try {
      return f();
    } catch (const UserError& e) {
      std::string msg = e.what();
      if (s.loc.line <= 0 || msg.rfind("line ", 0) == 0) throw;
      throw UserError(e.kind(), "line " + std::to_string(s.loc.line) + ": " + msg);
    }
  }

  bool condition(const Stmt& s, const char* what) {
    Value v = eval(*s.value);
    if (v.kind != Value::Kind::kBool) {
      invalid(std::string(what) + ": condition must be a bool scalar, got " + v.describe());
    }
    return v.b;
  }

  bool run_simple(const Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::kAssign:
        assign(s.targets, eval(*s.value));
        return false;
      case Stmt::Kind::kCheck:
        if (!condition(s, "check")) {
          throw_user_error(UserErrorKind::kCheckFailed, "check failed: " + s.message);
        }
        return false;
      case Stmt::Kind::kCheckIsSize:
        check_is_size(s);
        return false;
      case Stmt::Kind::kReturn:
        if (in_function_) {
          for (const auto& e : s.returns) returned_.push_back(eval(*e));
        } else {
          for (const auto& e : s.returns) outputs_.push_back(to_host(eval(*e)));
        }
        return true;
      case Stmt::Kind::kIf:
        SF_UNREACHABLE() << "if handled by run_stmt";
      case Stmt::Kind::kCond:
        assign_all(s.targets, run_cond(s), "cond");
        return false;
      case Stmt::Kind::kWhileLoop:
        assign_all(s.targets, run_while_loop(s), "while_loop");
        return false;
      case Stmt::Kind::kInvokeSubgraph: {
        std::vector<Value> args = operands(s);
        no_operand_mutation(s, args);
        assign_all(s.targets, new_tensors(call_region(s, args)), "invoke_subgraph");
        return false;
      }
      case Stmt::Kind::kMap:
        assign_all(s.targets, run_map(s), "map");
        return false;
      case Stmt::Kind::kScan:
        assign_all(s.targets, run_scan(s), "scan");
        return false;
      case Stmt::Kind::kAssociativeScan:
        assign_all(s.targets, run_associative_scan(s), "associative_scan");
        return false;
    }
    SF_UNREACHABLE();
  }

  // ---- higher-order ops ----

  // Calls a `def` block in a scope holding only its parameters; its returned values.
  // The `def` block called `name` (the last one of that name); null when there is none.
  const program::FunctionDef* function_named(const std::string& name) const {
    const program::FunctionDef* f = nullptr;
    for (const program::FunctionDef& g : functions_ ? *functions_ : no_functions()) {
      if (g.name == name) f = &g;
    }
    return f;
  }

  // invoke_subgraph: the region runs like any function, then what it did to an operand it
  // mutates is written back into the caller's tensor (so every name of it sees it), as a
  // function call mutates in torch. An operand it mutates may not be passed twice.
  std::vector<Value> call_region(const Stmt& s, const std::vector<Value>& args) {
    const program::FunctionDef* f = function_named(s.functions[0]);
    std::vector<size_t> mutated;
    if (f && f->params.size() == args.size()) {
      std::vector<const void*> tensors;
      for (const Value& v : args) tensors.push_back(v.is_tensor() ? v.tensor.get() : nullptr);
      mutated = program::region_mutated_operands(*f, tensors, s);
    }
    std::vector<Value> entered;
    std::vector<Value> out = call(s.functions[0], args, &entered);
    for (size_t i : mutated) *args[i].tensor = *entered.at(i).tensor;
    return out;
  }

  std::vector<Value> call(const std::string& name, const std::vector<Value>& args,
                          std::vector<Value>* entered = nullptr) {
    const program::FunctionDef* f = function_named(name);
    if (!f) invalid("undefined function '" + name + "'");
    if (args.size() != f->params.size()) {
      invalid("function '" + name + "' takes " + std::to_string(f->params.size()) +
              " operands, got " + std::to_string(args.size()));
    }
    if (depth_ + 1 > kMaxCallDepth) {
      throw_user_error(UserErrorKind::kTooComplex,
                       "higher-order ops (cond, while_loop, invoke_subgraph) nested deeper than " +
                           std::to_string(kMaxCallDepth));
    }
    Interpreter inner(functions_, depth_ + 1);
    inner.in_function_ = true;
    inner.loop_budget_ = loop_budget_;
    inner.trail_ = trail_;
    if (!trail_->ran(name)) trail_->functions_run.push_back(name);
    // Operands enter as new contiguous tensors, as the trace's subgraphs see them (a view's
    // strides are not the function's to read).
    std::vector<Value> fresh = new_tensors(args);
    for (size_t i = 0; i < args.size(); ++i) inner.bind(f->params[i], fresh[i]);
    inner.run_block(f->body);
    if (entered) *entered = std::move(fresh);  // as the body left them (add_ works in place)
    return std::move(inner.returned_);
  }

  std::vector<Value> operands(const Stmt& s) {
    std::vector<Value> out;
    for (const auto& e : s.operands) out.push_back(eval(*e));
    return out;
  }

  // A predicate: a bool scalar, or a bool tensor of one element (as torch.cond takes).
  static bool predicate(const Value& v, const char* what) {
    if (v.kind == Value::Kind::kBool) return v.b;
    if (v.kind == Value::Kind::kTensor && v.tensor->dtype == DType::kBool &&
        v.tensor->numel() == 1) {
      return v.tensor->ints[0] != 0;
    }
    invalid(std::string(what) +
            ": the predicate must be a bool or a one-element bool tensor, got " + v.describe());
  }

  // Every function of a higher-order op, whichever runs: torch.cond and torch.while_loop refuse
  // functions that mutate or return their operands (the tracer applies the same rule).
  void no_operand_mutation(const Stmt& s, const std::vector<Value>& operands) {
    std::vector<bool> tensors;
    for (const Value& v : operands) tensors.push_back(v.is_tensor());
    for (const std::string& name : s.functions) {
      // An undefined function or a wrong operand count is call()'s error, as the tracer reports
      // it first.
      const program::FunctionDef* f = function_named(name);
      if (f && f->params.size() == operands.size()) {
        program::check_no_operand_mutation(*f, tensors, s);
      }
    }
  }

  std::vector<Value> run_cond(const Stmt& s) {
    bool taken = predicate(eval(*s.value), "cond");
    std::vector<Value> args = operands(s);
    no_operand_mutation(s, args);
    return new_tensors(call(s.functions[taken ? 0 : 1], args));
  }

  // A higher-order op's operands and outputs are new contiguous tensors (docs/decisions.md): a
  // loop that ran no iteration returns copies of its carries, and a view a function returned (or
  // was given) loses its strides.
  static std::vector<Value> new_tensors(std::vector<Value> values) {
    for (Value& v : values) {
      if (v.is_tensor()) v = Value::of_tensor(*v.tensor);
    }
    return values;
  }

  // The first size n of the operands a map or scan goes over: tensors of rank >= 1, one n >= 1
  // (torch's map and scan refuse an empty leading dim).
  static int64_t leading_size(const std::vector<Value>& xs, const char* what) {
    if (xs.empty()) invalid(std::string(what) + ": no operand to go over");
    int64_t n = -1;
    for (const Value& x : xs) {
      if (!x.is_tensor() || x.tensor->sizes.empty()) {
        invalid(std::string(what) +
                ": every operand it goes over is a tensor of rank >= 1 (by its first dim), got " +
                x.describe());
      }
      if (n >= 0 && x.tensor->sizes[0] != n) {
        throw_user_error(UserErrorKind::kShape, std::string(what) +
                                                    ": the operands' first sizes differ (" +
                                                    std::to_string(n) + " and " +
                                                    std::to_string(x.tensor->sizes[0]) + ")");
      }
      n = x.tensor->sizes[0];
    }
    if (n == 0) {
      throw_user_error(UserErrorKind::kCheckFailed,
                       std::string("check failed: ") + what +
                           ": the operands' first size must be >= 1 (torch refuses an empty "
                           "leading dim)");
    }
    return n;
  }

  // Per-row outputs: each step's, checked to have the first step's dtypes and shapes, stacked.
  struct Stacker {
    std::vector<Value> first;
    std::vector<std::vector<HostTensor>> rows;
    void add(const std::vector<Value>& out, int64_t step, const char* what) {
      if (step == 0) {
        first = out;
        rows.resize(out.size());
      }
      if (out.size() != first.size()) {
        invalid(std::string(what) + ": the steps return different numbers of values");
      }
      for (size_t k = 0; k < out.size(); ++k) {
        const Value &a = first[k], &b = out[k];
        if (!b.is_tensor()) {
          invalid(std::string(what) + ": the function's per-row outputs are tensors, got " +
                  b.describe());
        }
        if (a.tensor->dtype != b.tensor->dtype || a.tensor->sizes != b.tensor->sizes) {
          throw_user_error(UserErrorKind::kShape,
                           std::string(what) + ": step " + std::to_string(step) + " returns " +
                               b.describe() + " for output " + std::to_string(k) + ", step 0 " +
                               a.describe() + " (every step returns the same shapes)");
        }
        rows[k].push_back(*b.tensor);
      }
    }
    std::vector<Value> stacked() const {
      std::vector<Value> out;
      for (size_t k = 0; k < first.size(); ++k) {
        out.push_back(Value::of_tensor(
            program::stack_rows(rows[k], first[k].tensor->dtype, first[k].tensor->sizes)));
      }
      return out;
    }
  };

  static std::vector<Value> rows_of(const std::vector<Value>& xs, int64_t i) {
    std::vector<Value> rows;
    for (const Value& x : xs) rows.push_back(Value::of_tensor(program::row_of(*x.tensor, i)));
    return rows;
  }

  // map: the function on row i of every operand, its outputs stacked (torch's map).
  std::vector<Value> run_map(const Stmt& s) {
    std::vector<Value> xs = operands(s);
    no_operand_mutation(s, xs);
    int64_t n = leading_size(xs, "map");
    Stacker ys;
    for (int64_t i = 0; i < n; ++i) ys.add(call(s.functions[0], rows_of(xs, i)), i, "map");
    return ys.stacked();
  }

  // scan: fn(carries, row i of every xs) returns the next carries (each keeping its kind, dtype
  // and shape) and per-row outputs; the final carries, then the outputs stacked (torch's scan).
  std::vector<Value> run_scan(const Stmt& s) {
    std::vector<Value> all = operands(s);
    no_operand_mutation(s, all);
    size_t k = std::min(s.carries, all.size());
    if (k == 0) invalid("scan: at least one initial carry (torch's scan requires init leaves)");
    std::vector<Value> carries(all.begin(), all.begin() + static_cast<long>(k));
    std::vector<Value> xs(all.begin() + static_cast<long>(k), all.end());
    int64_t n = leading_size(xs, "scan");
    Stacker ys;
    for (int64_t i = 0; i < n; ++i) {
      std::vector<Value> args = carries, rows = rows_of(xs, i);
      args.insert(args.end(), rows.begin(), rows.end());
      std::vector<Value> out = call(s.functions[0], args);
      if (out.size() < k) {
        invalid("scan: the function returns " + std::to_string(out.size()) + " values for " +
                std::to_string(k) + " carries");
      }
      std::vector<Value> next(out.begin(), out.begin() + static_cast<long>(k));
      check_carries(carries, next, "scan");
      carries = std::move(next);
      ys.add(std::vector<Value>(out.begin() + static_cast<long>(k), out.end()), i, "scan");
    }
    std::vector<Value> result = new_tensors(std::move(carries));
    for (Value& y : ys.stacked()) result.push_back(std::move(y));
    return result;
  }

  // associative_scan: along dim d, output row 0 is row 0 of each xs and output row i is
  // fn(output row i - 1, row i) (torch's definition; its tree evaluation equals this fold for the
  // associative functions it requires). Each returned row keeps the dtype and shape of the rows.
  // An empty dim calls nothing: the outputs are copies.
  std::vector<Value> run_associative_scan(const Stmt& s) {
    const char* what = "associative_scan";
    std::vector<Value> xs = operands(s);
    const program::FunctionDef* f = function_named(s.functions[0]);
    if (!f) invalid("undefined function '" + s.functions[0] + "'");
    if (xs.empty())
      invalid("associative_scan: at least one operand (torch: 'Expected at least 1 xs leaf')");
    if (f->params.size() != 2 * xs.size()) {
      invalid("associative_scan: the combine function '" + f->name + "' takes " +
              std::to_string(f->params.size()) + " parameters; it needs " +
              std::to_string(2 * xs.size()) + " (a left and a right row of each of the " +
              std::to_string(xs.size()) + " operands)");
    }
    std::vector<Value> both = xs;  // the left rows' parameters, then the right rows'
    both.insert(both.end(), xs.begin(), xs.end());
    no_operand_mutation(s, both);
    const int64_t d = scan_dim(s, xs);
    std::vector<program::HostTensor> moved;
    for (const Value& x : xs) moved.push_back(program::move_dim(*x.tensor, d, 0));
    const int64_t n = moved[0].sizes[0];
    if (n == 0) return new_tensors(std::move(xs));
    std::vector<Value> carry;
    for (const program::HostTensor& m : moved)
      carry.push_back(Value::of_tensor(program::row_of(m, 0)));
    Stacker ys;
    ys.add(carry, 0, what);
    for (int64_t i = 1; i < n; ++i) {
      std::vector<Value> args = carry;
      for (const program::HostTensor& m : moved)
        args.push_back(Value::of_tensor(program::row_of(m, i)));
      std::vector<Value> next = call(s.functions[0], args);
      check_combined(carry, next, *f);
      carry = std::move(next);
      ys.add(carry, i, what);
    }
    std::vector<Value> out;
    for (Value& y : ys.stacked())
      out.push_back(Value::of_tensor(program::move_dim(*y.tensor, 0, d)));
    return out;
  }

  // The dim associative_scan goes over, in [0, rank) of every operand (a negative one counts
  // from the end, as torch canonicalizes it), which all have the same size along it.
  static int64_t scan_dim(const Stmt& s, const std::vector<Value>& xs) {
    int64_t rank = -1, size = -1, d = 0;
    for (const Value& x : xs) {
      if (!x.is_tensor() || x.tensor->sizes.empty()) {
        invalid("associative_scan: every operand is a tensor of rank >= 1, got " + x.describe());
      }
      int64_t r = static_cast<int64_t>(x.tensor->sizes.size());
      if (rank >= 0 && r != rank) {
        throw_user_error(UserErrorKind::kShape, "associative_scan: the operands' ranks differ (" +
                                                    std::to_string(rank) + " and " +
                                                    std::to_string(r) + ")");
      }
      rank = r;
      if (s.dim < -rank || s.dim >= rank) {
        invalid("associative_scan: dim " + std::to_string(s.dim) + " is out of range for rank " +
                std::to_string(rank) +
                " operands (torch: 'All xs leaves must have at least "
                "'dim + 1' dimensions')");
      }
      d = s.dim < 0 ? s.dim + rank : s.dim;
      if (size >= 0 && x.tensor->sizes[d] != size) {
        throw_user_error(UserErrorKind::kShape, "associative_scan: the operands' sizes along dim " +
                                                    std::to_string(d) + " differ (" +
                                                    std::to_string(size) + " and " +
                                                    std::to_string(x.tensor->sizes[d]) + ")");
      }
      size = x.tensor->sizes[d];
    }
    return d;
  }

  // The combine function returns one row per operand, each of its dtype and shape.
  static void check_combined(const std::vector<Value>& rows, const std::vector<Value>& out,
                             const program::FunctionDef& f) {
    if (out.size() != rows.size()) {
      invalid("associative_scan: the combine function '" + f.name + "' returns " +
              std::to_string(out.size()) + " values for " + std::to_string(rows.size()) +
              " operands");
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      const Value &a = rows[i], &b = out[i];
      if (!b.is_tensor() || a.tensor->dtype != b.tensor->dtype ||
          a.tensor->sizes != b.tensor->sizes) {
        throw_user_error(UserErrorKind::kShape,
                         "associative_scan: operand " + std::to_string(i) + " ('" + f.params.at(i) +
                             "') has rows " + a.describe() + " but '" + f.name + "' returns " +
                             b.describe() +
                             " for it (the combine function keeps each row's dtype and shape)");
      }
    }
  }

  std::vector<Value> run_while_loop(const Stmt& s) {
    std::vector<Value> carries = operands(s);
    no_operand_mutation(s, carries);
    for (;;) {
      std::vector<Value> c = call(s.functions[0], carries);
      if (c.size() != 1) invalid("while_loop: the condition must return one value");
      if (!predicate(c[0], "while_loop")) return new_tensors(std::move(carries));
      loop_budget_->spend_iteration();
      std::vector<Value> next = call(s.functions[1], carries);
      check_carries(carries, next);
      carries = std::move(next);
    }
  }

  // The body returns what it was given: as many values, each of the same kind, and tensors of
  // the same dtype and shape (torch.while_loop's check on the carried inputs).
  static void check_carries(const std::vector<Value>& before, const std::vector<Value>& after,
                            const char* what = "while_loop") {
    if (before.size() != after.size()) {
      invalid(std::string(what) + ": the body returns " + std::to_string(after.size()) +
              " values for " + std::to_string(before.size()) + " carries");
    }
    for (size_t i = 0; i < before.size(); ++i) {
      const Value &a = before[i], &b = after[i];
      bool same = a.kind == b.kind;
      if (same && a.is_tensor()) {
        same = a.tensor->dtype == b.tensor->dtype && a.tensor->sizes == b.tensor->sizes;
      }
      if (!same) {
        throw_user_error(UserErrorKind::kShape, std::string(what) + ": carry " + std::to_string(i) +
                                                    " is " + a.describe() +
                                                    " but the body returns " + b.describe());
      }
    }
  }

  void assign_all(const std::vector<std::string>& targets, std::vector<Value> values,
                  const char* what) {
    for (const Value& v : values) note_data_dependent(what, v);  // every caller is a HOP
    if (targets.size() == 1 && values.size() == 1) {
      bind(targets[0], std::move(values[0]));
      return;
    }
    if (values.size() != targets.size()) {
      invalid(std::string(what) + " returns " + std::to_string(values.size()) + " values for " +
              std::to_string(targets.size()) + " names");
    }
    for (size_t k = 0; k < targets.size(); ++k) bind(targets[k], std::move(values[k]));
  }

  static const std::vector<program::FunctionDef>& no_functions() {
    static const std::vector<program::FunctionDef> none;
    return none;
  }

  void assign(const std::vector<std::string>& targets, Value v) {
    SF_CHECK(!targets.empty()) << "assignment without targets";
    if (targets.size() == 1) {
      bind(targets[0], std::move(v));
      return;
    }
    if (v.kind != Value::Kind::kTuple) {
      invalid("cannot unpack " + v.describe() + " into " + std::to_string(targets.size()) +
              " names");
    }
    if (v.elems.size() != targets.size()) {
      // The count can be data-dependent (tolist), so this is a value error as in Python.
      throw_user_error(UserErrorKind::kValue, "cannot unpack a tuple of " +
                                                  std::to_string(v.elems.size()) + " into " +
                                                  std::to_string(targets.size()) + " names");
    }
    for (size_t k = 0; k < targets.size(); ++k) bind(targets[k], v.elems[k]);
  }

  void check_is_size(const Stmt& s) {
    Value n = eval(*s.value);
    if (n.kind != Value::Kind::kInt) invalid("check_is_size: expected an int, got " + n.describe());
    if (n.i < 0) {
      throw_user_error(UserErrorKind::kCheckFailed,
                       "check_is_size failed: " + std::to_string(n.i) + " is negative");
    }
    if (!s.max) return;
    Value max = eval(*s.max);
    if (max.kind != Value::Kind::kInt) {
      invalid("check_is_size: max must be an int, got " + max.describe());
    }
    if (n.i > max.i) {
      throw_user_error(UserErrorKind::kCheckFailed, "check_is_size failed: " + std::to_string(n.i) +
                                                        " > max " + std::to_string(max.i));
    }
  }

  Value eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kVar: {
        auto it = env_.find(e.name);
        if (it == env_.end()) invalid("undefined variable '" + e.name + "'");
        return it->second;
      }
      case Expr::Kind::kInt:
        return Value::of_int(e.int_value);
      case Expr::Kind::kFloat:
        return Value::of_float(e.float_value);
      case Expr::Kind::kBool:
        return Value::of_bool(e.bool_value);
      case Expr::Kind::kString: {
        Value v;
        v.kind = Value::Kind::kStr;
        v.str = e.name;
        return v;
      }
      case Expr::Kind::kDType: {
        Value v;
        v.kind = Value::Kind::kDType;
        v.dtype = e.dtype;
        return v;
      }
      case Expr::Kind::kNone:
        return Value{};
      case Expr::Kind::kList: {
        std::vector<Value> elems;
        for (const auto& x : e.elems) elems.push_back(eval(*x));
        return Value::tuple(std::move(elems));
      }
      case Expr::Kind::kCall: {
        std::vector<program::ExprPtr> bound = program::bind_call(e);
        const program::OpSchema& schema = program::schema(e.op);
        std::vector<Value> args;
        for (size_t i = 0; i < bound.size(); ++i) {
          args.push_back(bound[i] ? eval(*bound[i]) : Value{});
          if (!bound[i]) continue;
          program::ArgForm form = args.back().kind == Value::Kind::kTuple ? program::ArgForm::kList
                                                                          : program::ArgForm::kOne;
          if (auto error = program::argument_form_error(schema.params[i], form)) {
            invalid(schema.name + ": " + *error);  // the tracer's rule too
          }
        }
        // Only a data-dependent size is unbacked: dim 0 of nonzero, index, masked_select,
        // unique (the other dims follow the input), repeat_interleave's dim.
        int64_t dim = 0;
        if (e.op == program::OpKind::kRepeatInterleave && args.size() > 2 &&
            args[2].kind == Value::Kind::kInt) {
          dim = args[2].i;
        }
        Value out = dispatch(Call(e.op, std::move(args)));
        if (schema.allocates_unbacked) note_data_dependent(schema.name, out, dim);
        return out;
      }
    }
    SF_UNREACHABLE();
  }

  std::map<std::string, Value> env_;
  std::vector<HostValue> outputs_;
  const std::vector<program::FunctionDef>* functions_ = nullptr;
  int depth_ = 0;
  bool in_function_ = false;
  // The run's while_loop iterations (eager's bound is the plan runner's: run_limits.h).
  std::shared_ptr<program::LoopBudget> loop_budget_ = std::make_shared<program::LoopBudget>();
  std::vector<Value> returned_;  // a function's return values
  // What the run did (shared with the interpreters of the functions it calls).
  std::shared_ptr<EagerTrail> trail_ = std::make_shared<EagerTrail>();
  int line_ = 0;  // the statement running now

 public:
  // Records the ints of `v` as data-dependent: a scalar, a tuple's elements, and a tensor's size
  // at `dim` (every size when none is given).
  void note_data_dependent(const std::string& what, const Value& v,
                           std::optional<int64_t> dim = std::nullopt) {
    if (v.kind == Value::Kind::kInt) trail_->data_dependent.push_back({line_, what, v.i});
    if (v.is_tensor()) {
      const std::vector<int64_t>& sizes = v.tensor->sizes;
      auto rank = static_cast<int64_t>(sizes.size());
      for (int64_t d = 0; d < rank; ++d) {
        if (!dim || d == (*dim < 0 ? *dim + rank : *dim)) {
          trail_->data_dependent.push_back({line_, what, sizes[static_cast<size_t>(d)]});
        }
      }
    }
    if (v.kind == Value::Kind::kTuple) {
      for (const Value& e : v.elems) note_data_dependent(what, e, dim);
    }
  }
  EagerTrail take_trail() { return std::move(*trail_); }
  const EagerTrail& trail() const { return *trail_; }

 private:
  // The trail's lengths before a statement, to forget what a statement that raised recorded.
  struct TrailMark {
    size_t data_dependent, functions_run;
  };
  TrailMark trail_mark() const {
    return {trail_->data_dependent.size(), trail_->functions_run.size()};
  }
  void rewind_trail(const TrailMark& mark) {
    trail_->data_dependent.resize(mark.data_dependent);
    trail_->functions_run.resize(mark.functions_run);
  }
};

}  // namespace

bool EagerTrail::ran(const std::string& function) const {
  return std::find(functions_run.begin(), functions_run.end(), function) != functions_run.end();
}

namespace {

bool tensor_data_ok(const program::HostTensor& t) {
  for (int64_t s : t.sizes) {
    if (s < 0) return false;
  }
  size_t n = static_cast<size_t>(t.numel());
  return t.is_float() ? t.floats.size() == n : t.ints.size() == n;
}

Value input_value(const program::InputDecl& d, const HostValue& v) {
  const std::string where = "input '" + d.name + "': ";
  if (d.is_tensor) {
    if (v.kind != HostValue::Kind::kTensor || v.tensor.dtype != d.dtype ||
        v.tensor.sizes != d.sizes || !tensor_data_ok(v.tensor)) {
      invalid(where + "expected a " + program::dtype_name(d.dtype) + shape_str(d.sizes) +
              " tensor, got " + v.str());
    }
    return Value::of_tensor(v.tensor);  // a private copy: add_ never reaches the caller's map
  }
  HostValue::Kind want = d.dtype == DType::kFloat32 ? HostValue::Kind::kFloat
                         : d.dtype == DType::kInt64 ? HostValue::Kind::kInt
                                                    : HostValue::Kind::kBool;
  if (v.kind != want) {
    invalid(where + "expected a " + program::dtype_name(d.dtype) + " scalar, got " + v.str());
  }
  return v.kind == HostValue::Kind::kFloat ? Value::of_float(v.f)
         : v.kind == HostValue::Kind::kInt ? Value::of_int(v.i)
                                           : Value::of_bool(v.b);
}

void bind_inputs(Interpreter& interp, const program::Program& p,
                 const std::map<std::string, HostValue>& inputs) {
  for (const auto& d : p.inputs) {
    auto it = inputs.find(d.name);
    if (it == inputs.end()) invalid("missing value for input '" + d.name + "'");
    Value v = input_value(d, it->second);
    for (size_t k = 0; k < d.dims.size() && v.is_tensor(); ++k) {
      if (d.dims[k] == program::DimMode::kUnbacked) {
        interp.note_data_dependent("input '" + d.name + "' dim " + std::to_string(k),
                                   Value::of_int(v.tensor->sizes[k]));
      }
    }
    if (!d.is_tensor && d.scalar_mode == program::DimMode::kUnbacked) {
      interp.note_data_dependent("input '" + d.name + "'", v);
    }
    interp.bind(d.name, std::move(v));
  }
  for (const auto& [name, value] : inputs) {
    bool declared = false;
    for (const auto& d : p.inputs) declared = declared || d.name == name;
    if (!declared) invalid("value given for undeclared input '" + name + "'");
  }
}

}  // namespace

EagerResult run_eager(const program::Program& p, const std::map<std::string, HostValue>& inputs) {
  Interpreter interp(&p.functions);
  bind_inputs(interp, p, inputs);
  interp.run_block(p.body);
  return EagerResult{interp.take_outputs(), interp.take_trail()};
}

EagerResult run_eager(const program::Program& p) {
  return run_eager(p, program::make_input_values(p));
}

struct Session::State {
  explicit State(const program::Program& p) : functions(p.functions), interp(&functions) {}
  std::vector<program::FunctionDef> functions;  // a copy: the session may outlive the program
  Interpreter interp;
};

Session::Session(const program::Program& p, const std::map<std::string, HostValue>& inputs)
    : state_(std::make_unique<State>(p)) {
  bind_inputs(state_->interp, p, inputs);
}

Session::Session(const program::Program& p) : Session(p, program::make_input_values(p)) {}

Session::~Session() = default;

void Session::run(const program::Stmt& st) { state_->interp.run_atomically(st); }

void Session::define(const program::FunctionDef& f) { state_->functions.push_back(f); }

HostValue Session::value(const std::string& name) const { return state_->interp.value_of(name); }

EagerResult Session::result() const {
  return EagerResult{state_->interp.outputs(), state_->interp.trail()};
}

}  // namespace sf::eager
