// The shared plan interpreter.
#include "engine/backend/runner.h"

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/sym/make.h"
#include "engine/sym/walk.h"

namespace sf::backend {

using lower::Step;

void SymbolEnv::bind(const ExprRef& s, sym::Concrete value) { values_[s] = value; }

ExprRef SymbolEnv::resolve(const ExprRef& e) const {
  // Symbols not bound directly stand for their replacement (a fresh retrace name -> old name,
  // an unbacked symbol unified with another, a divisibility multiple).
  return sym::substitute_symbols(e, [&](const ExprRef& s) -> ExprRef {
    if (values_.count(s)) return ExprRef();
    ExprRef r = env_.replace(s);
    return r == s ? ExprRef() : r;
  });
}

sym::Concrete SymbolEnv::eval(const ExprRef& e) const {
  sym::EvalResult r = sym::evaluate(e, values_);
  if (!r.defined) {
    ExprRef resolved = resolve(e);
    r = sym::evaluate(resolved, values_);
    for (const ExprRef& s : sym::free_symbols(resolved)) {
      SF_CHECK(values_.count(s)) << "symbol " << s->str() << " of " << e->str()
                                 << " is used before any plan step defines it (INV-19)";
    }
  }
  if (!r.defined) {
    throw_user_error(UserErrorKind::kTooComplex, "evaluating " + e->str() + " at run time: " +
                                                     r.why + " (" + describe(e) + ")");
  }
  return r.value;
}

int64_t SymbolEnv::eval_int(const ExprRef& e) const {
  sym::Concrete c = eval(e);
  if (c.type == sym::ExprType::kBool) return c.b ? 1 : 0;
  SF_CHECK(c.type == sym::ExprType::kInt) << e->str() << " is not an integer";
  return c.i;
}

bool SymbolEnv::eval_bool(const ExprRef& e) const {
  sym::Concrete c = eval(e);
  SF_CHECK(c.type == sym::ExprType::kBool) << e->str() << " is not a boolean";
  return c.b;
}

std::string SymbolEnv::describe(const ExprRef& e) const {
  std::string out;
  for (const ExprRef& s : sym::free_symbols(e)) {
    auto it = values_.find(s);
    out +=
        (out.empty() ? "" : ", ") + s->str() + "=" + (it == values_.end() ? "?" : it->second.str());
  }
  return out;
}

namespace {

// "u0=1000000000000" for the symbols the sizes mention ("" when they are all static).
std::string sizes_context(const std::vector<ExprRef>& sizes, const SymbolEnv& sigma) {
  std::string out;
  for (const ExprRef& e : sizes) {
    std::string d = sigma.describe(e);
    if (!d.empty() && out.find(d) == std::string::npos) out += (out.empty() ? "" : ", ") + d;
  }
  return out;
}

}  // namespace

int64_t checked_numel(const std::vector<int64_t>& sizes, const std::string& what,
                      const std::string& context) {
  for (int64_t s : sizes) {
    if (s == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t s : sizes) {
    SF_CHECK(s > 0) << what << " has a negative size";
    if (__builtin_mul_overflow(n, s, &n) || n > kMaxElements) {
      std::string shape;
      for (int64_t x : sizes) shape += (shape.empty() ? "" : ", ") + std::to_string(x);
      throw_user_error(UserErrorKind::kTooComplex,
                       what + " of shape [" + shape + "] exceeds the limit of 2^26 elements" +
                           (context.empty() ? "" : " (" + context + ")"));
    }
  }
  return n;
}

int64_t ResolvedLayout::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = acc;
    acc *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return strides;
}

ResolvedLayout PlanRunner::resolve(const lower::Layout& l, const SymbolEnv& sigma) const {
  ResolvedLayout r;
  r.buffer = l.buffer;
  r.dtype = l.dtype;
  for (const ExprRef& s : l.sizes) r.sizes.push_back(sigma.eval_int(s));
  for (const ExprRef& s : l.strides) r.strides.push_back(sigma.eval_int(s));
  r.offset = sigma.eval_int(l.offset);
  // Backends gather a layout into a contiguous tensor: a huge view (an expand) is refused, as
  // eager refuses to materialize it.
  checked_numel(r.sizes, "a view of buffer " + std::to_string(l.buffer),
                sizes_context(l.sizes, sigma));
  return r;
}

namespace {

// A Value with concrete sizes, so keypaths evaluate with the same key_get as at trace time.
Value concrete_tensor(const std::vector<int64_t>& shape) {
  std::vector<SymInt> sizes, strides;
  for (int64_t s : shape) sizes.emplace_back(s);
  for (int64_t s : contiguous_strides(shape)) strides.emplace_back(s);
  return Value::tensor(std::make_shared<TensorMeta>(sizes, strides, SymInt(0)));
}

Value scalar_value(const sym::Concrete& c) {
  switch (c.type) {
    case sym::ExprType::kInt:
      return Value(SymInt(c.i));
    case sym::ExprType::kFloat:
      return Value(SymFloat(c.f));
    case sym::ExprType::kBool:
      return Value(SymBool(c.b));
  }
  return Value();
}

// σ value of a symbol from an extern's outputs along a keypath; DivideByKey checks divisibility.
sym::Concrete eval_binding(const lower::Extern& e, const ExternOutputs& out, const KeyPath& path) {
  Value root;
  if (out.scalar) {
    root = scalar_value(*out.scalar);
  } else if (!e.tuple_output) {
    root = concrete_tensor(out.shapes[0]);
  } else {
    std::vector<Value> elems;
    for (const auto& s : out.shapes) elems.push_back(concrete_tensor(s));
    root = Value::tuple(elems);
  }
  KeyPath prefix = keypath_without_conversion(path);
  Value v = key_get(root, prefix);
  if (!path.empty() && path.back().kind == KeyEntry::Kind::kDivideBy) {
    int64_t undivided = v.expr()->int_value(), d = path.back().divisor->int_value();
    if (d <= 0 || undivided % d != 0) {  // INV-20: the Python wrapper's divisibility assert
      throw_user_error(UserErrorKind::kRuntimeAssertFailed,
                       e.name + ": " + std::to_string(undivided) + " is not divisible by " +
                           std::to_string(d) + " (DivideByKey binding)");
    }
    return sym::Concrete::of_int(undivided / d);
  }
  if (!path.empty() && path.back().kind == KeyEntry::Kind::kConvertInt) {
    return sym::Concrete::of_int(v.expr()->bool_value() ? 1 : 0);
  }
  if (v.kind() == Value::Kind::kFloat) return sym::Concrete::of_float(v.expr()->float_value());
  if (v.kind() == Value::Kind::kBool) return sym::Concrete::of_int(v.expr()->bool_value() ? 1 : 0);
  return sym::Concrete::of_int(v.expr()->int_value());
}

// A range or user assert can fail because facts learned from an engine assumption (an
// [implicit] assert, e.g. "no broadcasting of an unbacked size") narrowed it. Name the first
// such assumption that these values violate, so the failure is attributed to it.
std::string violated_assumption(const lower::Plan& plan, const SymbolEnv& sigma) {
  for (const Step& s : plan.steps) {
    if (s.kind != Step::Kind::kAssert || s.message.find("[implicit]") == std::string::npos)
      continue;
    bool evaluable = true;
    for (const ExprRef& x : sym::free_symbols(s.expr)) evaluable = evaluable && sigma.is_bound(x);
    if (evaluable && !sigma.eval_bool(s.expr)) {
      return "; it follows from the violated assumption " + s.expr->str() + " (" + s.message + ")";
    }
  }
  return "";
}

// Bad inputs are the caller's error, never an abort: every input the plan reads must be given,
// with the kind, dtype, rank and data it was traced for (sizes are the guards' business).
void check_inputs(const lower::Plan& plan,
                  const std::map<std::string, program::HostValue>& inputs) {
  auto find = [&](const std::string& name) -> const program::HostValue& {
    auto it = inputs.find(name);
    if (it == inputs.end()) {
      throw_user_error(UserErrorKind::kInvalidProgram,
                       "no value given for input '" + name + "': pass every program input");
    }
    return it->second;
  };
  for (const lower::Buffer& b : plan.buffers) {
    if (b.input_name.empty()) continue;
    std::string why = program::tensor_input_mismatch(find(b.input_name), b.dtype, b.sizes.size());
    if (!why.empty()) {
      throw_user_error(UserErrorKind::kInvalidProgram, "input '" + b.input_name + "': " + why);
    }
  }
  for (const Step& s : plan.steps) {
    if (s.kind != Step::Kind::kBindInput) continue;
    const program::HostValue& v = find(s.input_name);
    bool tensor_path = s.path.size() == 2;
    if (tensor_path != (v.kind == program::HostValue::Kind::kTensor) ||
        v.kind == program::HostValue::Kind::kTuple) {
      throw_user_error(UserErrorKind::kInvalidProgram,
                       "input '" + s.input_name + "' is " + v.str().substr(0, 60) +
                           " but the plan " +
                           (tensor_path ? "reads its sizes" : "expects a scalar"));
    }
  }
}

}  // namespace

RunResult PlanRunner::run(const lower::Plan& plan, const ShapeEnv& env,
                          const std::map<std::string, program::HostValue>& inputs) {
  check_inputs(plan, inputs);
  if (!nested_in_run_) loop_budget_ = std::make_shared<program::LoopBudget>();
  SymbolEnv sigma(env);
  RunResult result;
  begin_run();
  struct EndRun {
    PlanRunner* r;
    ~EndRun() { r->end_run(); }
  } end{this};
  for (const lower::Buffer& b : plan.buffers) {
    if (b.input_name.empty()) continue;
    upload_input(b.id, inputs.at(b.input_name).tensor);
  }
  std::vector<ExternOutputs> extern_outputs(plan.externs.size());
  for (const Step& s : plan.steps) {
    switch (s.kind) {
      case Step::Kind::kBindInput: {
        const program::HostValue& v = inputs.at(s.input_name);
        sym::Concrete c;
        if (v.kind == program::HostValue::Kind::kTensor) {
          SF_CHECK(s.path.size() == 2) << "unexpected input keypath " << keypath_str(s.path);
          int64_t d = s.path[1].index;
          bool size = s.path[0].method == TensorMethod::kSize;
          c = sym::Concrete::of_int(size ? v.tensor.sizes.at(d)
                                         : contiguous_strides(v.tensor.sizes).at(d));
        } else if (v.kind == program::HostValue::Kind::kInt) {
          c = sym::Concrete::of_int(v.i);
        } else if (v.kind == program::HostValue::Kind::kFloat) {
          c = sym::Concrete::of_float(v.f);
        } else {
          c = sym::Concrete::of_int(v.b ? 1 : 0);
        }
        if (s.symbol->is(sym::ExprKind::kSymbol) && !sigma.is_bound(s.symbol)) {
          sigma.bind(s.symbol, c);
          result.bindings.push_back(s.symbol->str() + " = " + s.input_name + "." +
                                    keypath_str(s.path) + " -> " + c.str());
        } else if (sigma.eval(s.symbol).as_double() != c.as_double()) {
          // A static size, or a symbol shared with an earlier input (duck sizing), differs.
          throw GuardFailed("input " + s.input_name + "." + keypath_str(s.path) + " is " + c.str() +
                            " but the plan was traced for " + s.symbol->str() + " = " +
                            sigma.eval(s.symbol).str() + ": retrace");
        }
        break;
      }
      case Step::Kind::kGuard:
        if (!sigma.eval_bool(s.expr)) {
          throw GuardFailed("guard " + s.expr->str() + " fails for these inputs (" +
                            sigma.describe(s.expr) + "): retrace");
        }
        break;
      case Step::Kind::kAlloc: {
        const lower::Buffer& b = plan.buffers.at(s.buffer);
        std::vector<int64_t> sizes;
        for (const ExprRef& e : b.sizes) {
          sizes.push_back(sigma.eval_int(e));
          if (sizes.back() < 0) {
            throw_user_error(UserErrorKind::kTooComplex,
                             "allocating " + b.name + " with a dim of size " +
                                 std::to_string(sizes.back()) + " (" + sigma.describe(e) + ")");
          }
        }
        // All sizes first: a 0 anywhere makes an empty buffer, however big the other dims.
        allocate(b.id, b.dtype,
                 checked_numel(sizes, "allocating " + b.name, sizes_context(b.sizes, sigma)));
        break;
      }
      case Step::Kind::kLaunch: {
        // The kernel's iteration space is the shape of a tensor eager materializes (a
        // reduction's input, a pointwise output): the same limit applies.
        const lower::Kernel& k = plan.kernels.at(s.kernel);
        std::vector<int64_t> extent;
        for (const ExprRef& e : k.sizes) extent.push_back(sigma.eval_int(e));
        int64_t n = checked_numel(extent, "kernel " + k.name + " iterating over a tensor",
                                  sizes_context(k.sizes, sigma));
        // An empty pointwise kernel writes nothing, and its offsets may not even fit in int64
        // (the third slot of a stack of [2**62, 0] tensors starts at 2 * 2**62). A reduction
        // still runs: its outputs get the op's identity.
        if (n == 0 && k.kind == lower::Kernel::Kind::kPointwise) break;
        launch(plan, k, sigma);
        break;
      }
      case Step::Kind::kExtern: {
        const lower::Extern& e = plan.externs.at(s.kernel);
        std::vector<ResolvedLayout> ins;
        for (const lower::Layout& l : e.inputs) ins.push_back(resolve(l, sigma));
        extern_outputs[s.kernel] = run_extern(plan, e, ins, sigma);
        break;
      }
      case Step::Kind::kBind: {
        sym::Concrete c = s.kernel >= 0 ? eval_binding(plan.externs.at(s.kernel),
                                                       extern_outputs.at(s.kernel), s.path)
                                        : sigma.eval(s.expr);
        if (sigma.is_bound(s.symbol)) {
          // A second definition (e.g. an extern whose trace-time twin was a memo hit) must agree.
          if (!(sigma.values().at(s.symbol) == c)) {
            throw EngineBug("two plan steps define " + s.symbol->str() + " differently: " +
                            sigma.values().at(s.symbol).str() + " and " + c.str());
          }
          break;
        }
        sigma.bind(s.symbol, c);
        result.bindings.push_back(s.symbol->str() + " = " +
                                  (s.kernel >= 0
                                       ? plan.externs.at(s.kernel).name + "." + keypath_str(s.path)
                                       : s.expr->str()) +
                                  " -> " + c.str());
        break;
      }
      case Step::Kind::kAssert:
        if (!sigma.eval_bool(s.expr)) {
          throw_user_error(UserErrorKind::kRuntimeAssertFailed,
                           "runtime assert failed: " + s.expr->str() + " with " +
                               sigma.describe(s.expr) +
                               (s.message.empty() ? "" : " (" + s.message + ")") +
                               violated_assumption(plan, sigma));
        }
        break;
      case Step::Kind::kFree:
        release(s.buffer);
        break;
      case Step::Kind::kOutput:
        for (const lower::OutputRef& o : s.outputs) result.outputs.push_back(host_value(o, sigma));
        break;
      case Step::Kind::kCond:
      case Step::Kind::kWhileLoop:
      case Step::Kind::kInvokeSubgraph:
      case Step::Kind::kMap:
      case Step::Kind::kScan:
      case Step::Kind::kAssociativeScan:
        run_higher_order(plan, s, env, sigma, result);
        break;
    }
  }
  result.sigma = sigma.values();
  return result;
}

program::HostValue PlanRunner::host_value(const lower::OutputRef& o, const SymbolEnv& sigma) {
  switch (o.kind) {
    case lower::OutputRef::Kind::kTensor:
      return program::HostValue::of_tensor(download(resolve(o.layout, sigma)));
    case lower::OutputRef::Kind::kScalar: {
      sym::Concrete c = sigma.eval(o.scalar);
      if (c.type == sym::ExprType::kInt) return program::HostValue::of_int(c.i);
      if (c.type == sym::ExprType::kFloat) return program::HostValue::of_float(c.f);
      return program::HostValue::of_bool(c.b);
    }
    case lower::OutputRef::Kind::kTuple: {
      std::vector<program::HostValue> elems;
      for (const lower::OutputRef& e : o.elems) elems.push_back(host_value(e, sigma));
      return program::HostValue::tuple(elems);
    }
    case lower::OutputRef::Kind::kNone:
      break;
  }
  return program::HostValue();
}

namespace {

// The value of a predicate read back on the host: a bool, or a one-element bool tensor.
bool predicate_value(const program::HostValue& v) {
  if (v.kind == program::HostValue::Kind::kBool) return v.b;
  if (v.kind == program::HostValue::Kind::kInt) return v.i != 0;
  SF_CHECK(v.kind == program::HostValue::Kind::kTensor && v.tensor.numel() == 1)
      << "predicate " << v.str();
  return v.tensor.ints.at(0) != 0;
}

// A keypath into the tuple of a HOP step's outputs: (i) for an int output, (i, size(d)) for a
// size of a tensor output.
sym::Concrete output_binding(const std::vector<program::HostValue>& outs, const KeyPath& path) {
  SF_CHECK(!path.empty() && path[0].kind == KeyEntry::Kind::kSequence)
      << "HOP output keypath " << keypath_str(path);
  const program::HostValue& v = outs.at(path[0].index);
  if (path.size() == 1) {
    SF_CHECK(v.kind == program::HostValue::Kind::kInt) << "HOP output " << v.str();
    return sym::Concrete::of_int(v.i);
  }
  SF_CHECK(path.size() == 3 && path[1].kind == KeyEntry::Kind::kCallMethod &&
           path[1].method == TensorMethod::kSize && v.kind == program::HostValue::Kind::kTensor)
      << "HOP output keypath " << keypath_str(path);
  return sym::Concrete::of_int(v.tensor.sizes.at(path[2].index));
}

}  // namespace

// map and scan: the subplan on row i of each mapped operand (the lifted symbols as they are; a
// scan's carries as the step before left them), its per-row outputs stacked; a scan's final
// carries first. Rows are cut and stacked on the host, like every nested plan's values. `inputs`
// is what run_plan passes: the operands, their mapped ones replaced by a row per step.
template <typename RunPlan>
std::vector<program::HostValue> run_rows(const lower::Step& s,
                                         std::vector<program::HostValue>& inputs,
                                         RunPlan run_plan) {
  const std::vector<program::HostValue> operands = inputs;
  const program::HostValue& first = operands.at(s.mapped.at(0));
  SF_CHECK(first.kind == program::HostValue::Kind::kTensor && !first.tensor.sizes.empty())
      << "map/scan operand " << first.str();
  int64_t n = first.tensor.sizes[0];
  std::vector<std::vector<program::HostTensor>> rows_out;
  std::vector<program::HostValue> last;
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k : s.mapped)
      inputs.at(k) = program::HostValue::of_tensor(program::row_of(operands.at(k).tensor, i));
    last = run_plan(s.subplans.at(0));
    SF_CHECK(last.size() >= s.carries.size()) << "scan step returned " << last.size();
    for (size_t c = 0; c < s.carries.size(); ++c) inputs.at(s.carries[c]) = last[c];
    last.erase(last.begin(), last.begin() + static_cast<long>(s.carries.size()));
    rows_out.resize(last.size());
    for (size_t k = 0; k < last.size(); ++k) {
      SF_CHECK(last[k].kind == program::HostValue::Kind::kTensor) << "map step " << last[k].str();
      rows_out[k].push_back(last[k].tensor);
    }
  }
  std::vector<program::HostValue> outs;
  for (size_t c : s.carries) outs.push_back(inputs.at(c));
  for (size_t k = 0; k < rows_out.size(); ++k) {
    const program::HostTensor& r = last.at(k).tensor;
    outs.push_back(
        program::HostValue::of_tensor(program::stack_rows(rows_out[k], r.dtype, r.sizes)));
  }
  return outs;
}

// associative_scan: along `dim`, output row 0 is row 0 of each operand and output row i the
// subplan on (output row i - 1, row i), the left rows in the `carries` slots and the right ones in
// the `mapped` slots; nothing runs for an empty dim. As eager defines it, on the host.
template <typename RunPlan>
std::vector<program::HostValue> run_associative_scan(const lower::Step& s,
                                                     std::vector<program::HostValue>& inputs,
                                                     RunPlan run_plan) {
  SF_CHECK(s.carries.size() == s.mapped.size() && !s.mapped.empty())
      << "associative_scan slots " << s.carries.size() << " / " << s.mapped.size();
  std::vector<program::HostTensor> moved;
  for (size_t k : s.mapped) {
    const program::HostValue& x = inputs.at(k);
    SF_CHECK(x.kind == program::HostValue::Kind::kTensor &&
             s.dim < static_cast<int64_t>(x.tensor.sizes.size()))
        << "associative_scan operand " << x.str() << " for dim " << s.dim;
    moved.push_back(program::move_dim(x.tensor, s.dim, 0));
  }
  std::vector<program::HostValue> outs;
  const int64_t n = moved[0].sizes[0];
  if (n == 0) {
    for (size_t k : s.mapped) outs.push_back(inputs.at(k));
    return outs;
  }
  std::vector<std::vector<program::HostTensor>> rows_out(moved.size());
  for (size_t k = 0; k < moved.size(); ++k) {
    rows_out[k].push_back(program::row_of(moved[k], 0));
    inputs.at(s.carries[k]) = program::HostValue::of_tensor(rows_out[k].back());
  }
  for (int64_t i = 1; i < n; ++i) {
    for (size_t k = 0; k < moved.size(); ++k)
      inputs.at(s.mapped[k]) = program::HostValue::of_tensor(program::row_of(moved[k], i));
    std::vector<program::HostValue> combined = run_plan(s.subplans.at(0));
    SF_CHECK(combined.size() == moved.size())
        << "associative_scan step returned " << combined.size();
    for (size_t k = 0; k < moved.size(); ++k) {
      SF_CHECK(combined[k].kind == program::HostValue::Kind::kTensor &&
               combined[k].tensor.sizes == rows_out[k][0].sizes)
          << "associative_scan step output " << combined[k].str();
      rows_out[k].push_back(combined[k].tensor);
      inputs.at(s.carries[k]) = combined[k];
    }
  }
  for (size_t k = 0; k < moved.size(); ++k) {
    const program::HostTensor& r = rows_out[k][0];
    outs.push_back(program::HostValue::of_tensor(
        program::move_dim(program::stack_rows(rows_out[k], r.dtype, r.sizes), 0, s.dim)));
  }
  return outs;
}

void PlanRunner::run_higher_order(const lower::Plan& plan, const lower::Step& s,
                                  const ShapeEnv& env, SymbolEnv& sigma, RunResult& result) {
  std::unique_ptr<PlanRunner> nested = nested_runner();
  if (!nested) {
    throw Unavailable(name() + " backend: higher-order ops (nested plans) are not supported");
  }
  nested->nested_in_run_ = true;
  nested->loop_budget_ = loop_budget_;
  bool is_cond = s.kind == Step::Kind::kCond;
  std::vector<program::HostValue> operands;
  for (size_t i = is_cond ? 1 : 0; i < s.operands.size(); ++i)
    operands.push_back(host_value(s.operands[i], sigma));
  auto run_plan = [&](int index) {
    const lower::Plan& sub = plan.subplans.at(index);
    SF_CHECK(sub.input_order.size() == operands.size())
        << "subplan " << index << " takes " << sub.input_order.size() << " inputs, given "
        << operands.size();
    std::map<std::string, program::HostValue> inputs;
    for (size_t i = 0; i < operands.size(); ++i) inputs[sub.input_order[i]] = operands[i];
    return nested->run(sub, env, inputs).outputs;
  };
  std::vector<program::HostValue> outs;
  const char* hop = "invoke_subgraph";
  if (s.kind == Step::Kind::kInvokeSubgraph) {
    outs = run_plan(s.subplans.at(0));
  } else if (s.kind == Step::Kind::kMap || s.kind == Step::Kind::kScan) {
    hop = s.kind == Step::Kind::kMap ? "map" : "scan";
    outs = run_rows(s, operands, run_plan);
  } else if (s.kind == Step::Kind::kAssociativeScan) {
    hop = "associative_scan";
    outs = run_associative_scan(s, operands, run_plan);
  } else if (is_cond) {
    hop = "cond";
    // The predicate is read back once: the only device-to-host sync of a cond.
    bool taken = predicate_value(host_value(s.operands.at(0), sigma));
    outs = run_plan(s.subplans.at(taken ? 0 : 1));
  } else {
    hop = "while_loop";
    for (;;) {
      std::vector<program::HostValue> c = run_plan(s.subplans.at(0));
      SF_CHECK(c.size() == 1) << "while_loop condition returned " << c.size() << " values";
      if (!predicate_value(c[0])) break;  // read back once per iteration
      loop_budget_->spend_iteration();
      std::vector<program::HostValue> next = run_plan(s.subplans.at(1));
      SF_CHECK(next.size() == s.carries.size()) << "while_loop body returned " << next.size();
      for (size_t k = 0; k < s.carries.size(); ++k) operands.at(s.carries[k]) = next[k];
    }
    for (size_t k : s.carries) outs.push_back(operands.at(k));
  }
  SF_CHECK(outs.size() == s.result_buffers.size())
      << "HOP step returned " << outs.size() << " values for " << s.result_buffers.size();
  for (const auto& [symbol, path] : s.result_binds) {
    sym::Concrete c = output_binding(outs, path);
    sigma.bind(symbol, c);
    result.bindings.push_back(symbol->str() + " = " + hop + "." + keypath_str(path) + " -> " +
                              c.str());
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    int b = s.result_buffers[i];
    if (b < 0) continue;
    SF_CHECK(outs[i].kind == program::HostValue::Kind::kTensor) << "HOP output " << outs[i].str();
    upload_input(b, outs[i].tensor);
  }
}

}  // namespace sf::backend
