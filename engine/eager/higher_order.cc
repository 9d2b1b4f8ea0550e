// The eager interpreter's higher-order ops on concrete values: a function called in its own
// scope (cond's taken branch, invoke_subgraph), iterated (while_loop) or run per row (map, scan,
// associative_scan), with the contracts torch checks (carries keep their metadata, operands are
// not mutated).
#include "engine/eager/interpreter_internal.h"

namespace sf::eager {

namespace detail {

// Calls a `def` block in a scope holding only its parameters; its returned values.
// The `def` block called `name` (the last one of that name); null when there is none.
const program::FunctionDef* Interpreter::function_named(const std::string& name) const {
  const program::FunctionDef* f = nullptr;
  for (const program::FunctionDef& g : functions_ ? *functions_ : no_functions()) {
    if (g.name == name) f = &g;
  }
  return f;
}

// invoke_subgraph: the region runs like any function, then what it did to an operand it
// mutates is written back into the caller's tensor (so every name of it sees it), as a
// function call mutates in torch. An operand it mutates may not be passed twice.
std::vector<Value> Interpreter::call_region(const Stmt& s, const std::vector<Value>& args) {
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

std::vector<Value> Interpreter::call(const std::string& name, const std::vector<Value>& args,
                                     std::vector<Value>* entered) {
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

std::vector<Value> Interpreter::operands(const Stmt& s) {
  std::vector<Value> out;
  for (const auto& e : s.operands) out.push_back(eval(*e));
  return out;
}

// A predicate: a bool scalar, or a bool tensor of one element (as torch.cond takes).
bool Interpreter::predicate(const Value& v, const char* what) {
  if (v.kind == Value::Kind::kBool) return v.b;
  if (v.kind == Value::Kind::kTensor && v.tensor->dtype == DType::kBool && v.tensor->numel() == 1) {
    return v.tensor->ints[0] != 0;
  }
  invalid(std::string(what) + ": the predicate must be a bool or a one-element bool tensor, got " +
          v.describe());
}

// Every function of a higher-order op, whichever runs: torch.cond and torch.while_loop refuse
// functions that mutate or return their operands (the tracer applies the same rule).
void Interpreter::no_operand_mutation(const Stmt& s, const std::vector<Value>& operands) {
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

std::vector<Value> Interpreter::run_cond(const Stmt& s) {
  bool taken = predicate(eval(*s.value), "cond");
  std::vector<Value> args = operands(s);
  no_operand_mutation(s, args);
  return new_tensors(call(s.functions[taken ? 0 : 1], args));
}

// A higher-order op's operands and outputs are new contiguous tensors (docs/decisions.md): a
// loop that ran no iteration returns copies of its carries, and a view a function returned (or
// was given) loses its strides.
std::vector<Value> Interpreter::new_tensors(std::vector<Value> values) {
  for (Value& v : values) {
    if (v.is_tensor()) v = Value::of_tensor(*v.tensor);
  }
  return values;
}

// The first size n of the operands a map or scan goes over: tensors of rank >= 1, one n >= 1
// (torch's map and scan refuse an empty leading dim).
int64_t Interpreter::leading_size(const std::vector<Value>& xs, const char* what) {
  if (xs.empty()) invalid(std::string(what) + ": no operand to go over");
  int64_t n = -1;
  for (const Value& x : xs) {
    if (!x.is_tensor() || x.tensor->sizes.empty()) {
      invalid(std::string(what) +
              ": every operand it goes over is a tensor of rank >= 1 (by its first dim), got " +
              x.describe());
    }
    if (n >= 0 && x.tensor->sizes[0] != n) {
      throw_user_error(UserErrorKind::kShape,
                       std::string(what) + ": the operands' first sizes differ (" +
                           std::to_string(n) + " and " + std::to_string(x.tensor->sizes[0]) + ")");
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

std::vector<Value> Interpreter::rows_of(const std::vector<Value>& xs, int64_t i) {
  std::vector<Value> rows;
  for (const Value& x : xs) rows.push_back(Value::of_tensor(program::row_of(*x.tensor, i)));
  return rows;
}

// map: the function on row i of every operand, its outputs stacked (torch's map).
std::vector<Value> Interpreter::run_map(const Stmt& s) {
  std::vector<Value> xs = operands(s);
  no_operand_mutation(s, xs);
  int64_t n = leading_size(xs, "map");
  Stacker ys;
  for (int64_t i = 0; i < n; ++i) ys.add(call(s.functions[0], rows_of(xs, i)), i, "map");
  return ys.stacked();
}

// scan: fn(carries, row i of every xs) returns the next carries (each keeping its kind, dtype
// and shape) and per-row outputs; the final carries, then the outputs stacked (torch's scan).
std::vector<Value> Interpreter::run_scan(const Stmt& s) {
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
std::vector<Value> Interpreter::run_associative_scan(const Stmt& s) {
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
  for (Value& y : ys.stacked()) out.push_back(Value::of_tensor(program::move_dim(*y.tensor, 0, d)));
  return out;
}

// The dim associative_scan goes over, in [0, rank) of every operand (a negative one counts
// from the end, as torch canonicalizes it), which all have the same size along it.
int64_t Interpreter::scan_dim(const Stmt& s, const std::vector<Value>& xs) {
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
void Interpreter::check_combined(const std::vector<Value>& rows, const std::vector<Value>& out,
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

std::vector<Value> Interpreter::run_while_loop(const Stmt& s) {
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
void Interpreter::check_carries(const std::vector<Value>& before, const std::vector<Value>& after,
                                const char* what) {
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
                                                  " is " + a.describe() + " but the body returns " +
                                                  b.describe());
    }
  }
}

void Interpreter::assign_all(const std::vector<std::string>& targets, std::vector<Value> values,
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

const std::vector<program::FunctionDef>& Interpreter::no_functions() {
  static const std::vector<program::FunctionDef> none;
  return none;
}

}  // namespace detail
}  // namespace sf::eager
