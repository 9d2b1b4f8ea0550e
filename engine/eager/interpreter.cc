// Statements, expressions and op dispatch of the eager interpreter; inputs in, outputs out.
// One flat environment as in Python: names assigned inside an `if` branch stay defined after it.
#include <algorithm>
#include <map>
#include <memory>

#include "engine/base/check.h"
#include "engine/eager/eager.h"
#include "engine/eager/internal.h"
#include "engine/eager/interpreter_internal.h"
#include "engine/eager/tensor_util.h"
#include "engine/program/input_data.h"
#include "engine/program/operand_mutation.h"
#include "engine/program/run_limits.h"
#include "engine/program/schema.h"

namespace sf::eager {

using program::Expr;
using program::HostValue;
using program::Stmt;
using namespace internal;  // NOLINT: the interpreter is the internal namespace's one client

namespace detail {

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

// Runs the block; true when a return statement ran (execution stops there).
bool Interpreter::run_block(const std::vector<Stmt>& body) {
  for (const Stmt& s : body) {
    if (run_stmt(s)) return true;
  }
  return false;
}

// One statement with nothing left behind when it raises (see Session::run).
void Interpreter::run_atomically(const Stmt& s) {
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

HostValue Interpreter::value_of(const std::string& name) const {
  auto it = env_.find(name);
  if (it == env_.end()) invalid("undefined variable '" + name + "'");
  return to_host(it->second);
}

bool Interpreter::run_stmt(const Stmt& s) {
  line_ = s.loc.line;
  if (s.kind == Stmt::Kind::kIf) {
    bool cond = located(s, [&] { return condition(s, "if"); });
    return run_block(cond ? s.then_body : s.else_body);
  }
  return located(s, [&] { return run_simple(s); });
}

bool Interpreter::condition(const Stmt& s, const char* what) {
  Value v = eval(*s.value);
  if (v.kind != Value::Kind::kBool) {
    invalid(std::string(what) + ": condition must be a bool scalar, got " + v.describe());
  }
  return v.b;
}

bool Interpreter::run_simple(const Stmt& s) {
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

void Interpreter::assign(const std::vector<std::string>& targets, Value v) {
  SF_CHECK(!targets.empty()) << "assignment without targets";
  if (targets.size() == 1) {
    bind(targets[0], std::move(v));
    return;
  }
  if (v.kind != Value::Kind::kTuple) {
    invalid("cannot unpack " + v.describe() + " into " + std::to_string(targets.size()) + " names");
  }
  if (v.elems.size() != targets.size()) {
    // The count can be data-dependent (tolist), so this is a value error as in Python.
    throw_user_error(UserErrorKind::kValue, "cannot unpack a tuple of " +
                                                std::to_string(v.elems.size()) + " into " +
                                                std::to_string(targets.size()) + " names");
  }
  for (size_t k = 0; k < targets.size(); ++k) bind(targets[k], v.elems[k]);
}

void Interpreter::check_is_size(const Stmt& s) {
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

Value Interpreter::eval(const Expr& e) {
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
      // unique (the other dims follow the input), repeat_interleave's dim, unique_dim's dim
      // (its values' size there; its counts are the same int).
      int64_t dim = 0;
      if (e.op == program::OpKind::kRepeatInterleave && args.size() > 2 &&
          args[2].kind == Value::Kind::kInt) {
        dim = args[2].i;
      }
      if (e.op == program::OpKind::kUniqueDim && args.size() > 1 &&
          args[1].kind == Value::Kind::kInt) {
        dim = args[1].i;
      }
      Value out = dispatch(Call(e.op, std::move(args)));
      if (schema.allocates_unbacked) note_data_dependent(schema.name, out, dim);
      return out;
    }
  }
  SF_UNREACHABLE();
}

// Records the ints of `v` as data-dependent: a scalar, a tuple's elements, and a tensor's size
// at `dim` (every size when none is given).
void Interpreter::note_data_dependent(const std::string& what, const Value& v,
                                      std::optional<int64_t> dim) {
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

Interpreter::TrailMark Interpreter::trail_mark() const {
  return {trail_->data_dependent.size(), trail_->functions_run.size()};
}

void Interpreter::rewind_trail(const TrailMark& mark) {
  trail_->data_dependent.resize(mark.data_dependent);
  trail_->functions_run.resize(mark.functions_run);
}

}  // namespace detail

using detail::Interpreter;
using detail::invalid;
using detail::to_host;

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
