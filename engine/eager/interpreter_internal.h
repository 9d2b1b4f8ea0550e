// Internal to the eager interpreter: the Interpreter class, whose methods live in interpreter.cc
// (statements, expressions, op dispatch) and higher_order.cc (cond, while_loop, invoke_subgraph,
// map, scan, associative_scan on concrete values).
#pragma once

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

namespace sf::eager::detail {

using program::Expr;
using program::HostValue;
using program::Stmt;
using namespace internal;  // NOLINT: the interpreter is the internal namespace's one client

[[noreturn]] void invalid(const std::string& message);
HostValue to_host(const Value& v);

// cond / while_loop calls nest at most this deep (functions call only earlier ones, so it is
// bounded by their number anyway; this keeps the C++ stack small).
constexpr int kMaxCallDepth = 64;

class Interpreter {
 public:
  Interpreter() = default;
  explicit Interpreter(const std::vector<program::FunctionDef>* functions, int depth = 0)
      : functions_(functions), depth_(depth) {}

  // Runs the block; true when a return statement ran (execution stops there).
  bool run_block(const std::vector<Stmt>& body);

  void bind(const std::string& name, Value v) { env_[name] = std::move(v); }
  std::vector<HostValue> take_outputs() { return std::move(outputs_); }
  const std::vector<HostValue>& outputs() const { return outputs_; }

  // One statement with nothing left behind when it raises (see Session::run).
  void run_atomically(const Stmt& s);

  HostValue value_of(const std::string& name) const;

 private:
  bool run_stmt(const Stmt& s);

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

  bool condition(const Stmt& s, const char* what);

  bool run_simple(const Stmt& s);

  // ---- higher-order ops ----

  // Calls a `def` block in a scope holding only its parameters; its returned values.
  // The `def` block called `name` (the last one of that name); null when there is none.
  const program::FunctionDef* function_named(const std::string& name) const;

  // invoke_subgraph: the region runs like any function, then what it did to an operand it
  // mutates is written back into the caller's tensor (so every name of it sees it), as a
  // function call mutates in torch. An operand it mutates may not be passed twice.
  std::vector<Value> call_region(const Stmt& s, const std::vector<Value>& args);

  std::vector<Value> call(const std::string& name, const std::vector<Value>& args,
                          std::vector<Value>* entered = nullptr);

  std::vector<Value> operands(const Stmt& s);

  // A predicate: a bool scalar, or a bool tensor of one element (as torch.cond takes).
  static bool predicate(const Value& v, const char* what);

  // Every function of a higher-order op, whichever runs: torch.cond and torch.while_loop refuse
  // functions that mutate or return their operands (the tracer applies the same rule).
  void no_operand_mutation(const Stmt& s, const std::vector<Value>& operands);

  std::vector<Value> run_cond(const Stmt& s);

  // A higher-order op's operands and outputs are new contiguous tensors (docs/decisions.md): a
  // loop that ran no iteration returns copies of its carries, and a view a function returned (or
  // was given) loses its strides.
  static std::vector<Value> new_tensors(std::vector<Value> values);

  // The first size n of the operands a map or scan goes over: tensors of rank >= 1, one n >= 1
  // (torch's map and scan refuse an empty leading dim).
  static int64_t leading_size(const std::vector<Value>& xs, const char* what);

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

  static std::vector<Value> rows_of(const std::vector<Value>& xs, int64_t i);

  // map: the function on row i of every operand, its outputs stacked (torch's map).
  std::vector<Value> run_map(const Stmt& s);

  // scan: fn(carries, row i of every xs) returns the next carries (each keeping its kind, dtype
  // and shape) and per-row outputs; the final carries, then the outputs stacked (torch's scan).
  std::vector<Value> run_scan(const Stmt& s);

  // associative_scan: along dim d, output row 0 is row 0 of each xs and output row i is
  // fn(output row i - 1, row i) (torch's definition; its tree evaluation equals this fold for the
  // associative functions it requires). Each returned row keeps the dtype and shape of the rows.
  // An empty dim calls nothing: the outputs are copies.
  std::vector<Value> run_associative_scan(const Stmt& s);

  // The dim associative_scan goes over, in [0, rank) of every operand (a negative one counts
  // from the end, as torch canonicalizes it), which all have the same size along it.
  static int64_t scan_dim(const Stmt& s, const std::vector<Value>& xs);

  // The combine function returns one row per operand, each of its dtype and shape.
  static void check_combined(const std::vector<Value>& rows, const std::vector<Value>& out,
                             const program::FunctionDef& f);

  std::vector<Value> run_while_loop(const Stmt& s);

  // The body returns what it was given: as many values, each of the same kind, and tensors of
  // the same dtype and shape (torch.while_loop's check on the carried inputs).
  static void check_carries(const std::vector<Value>& before, const std::vector<Value>& after,
                            const char* what = "while_loop");

  void assign_all(const std::vector<std::string>& targets, std::vector<Value> values,
                  const char* what);

  static const std::vector<program::FunctionDef>& no_functions();

  void assign(const std::vector<std::string>& targets, Value v);

  void check_is_size(const Stmt& s);

  Value eval(const Expr& e);

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
                           std::optional<int64_t> dim = std::nullopt);
  EagerTrail take_trail() { return std::move(*trail_); }
  const EagerTrail& trail() const { return *trail_; }

 private:
  // The trail's lengths before a statement, to forget what a statement that raised recorded.
  struct TrailMark {
    size_t data_dependent, functions_run;
  };
  TrailMark trail_mark() const;
  void rewind_trail(const TrailMark& mark);
};

}  // namespace sf::eager::detail
