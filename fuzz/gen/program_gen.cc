// The program generator's statements: inputs, the draw table, checks, ifs, mutations, and the
// acceptance of each candidate (an eager::Session runs it once on the concrete values of earlier
// variables; a rejected one is redrawn). Each op's candidates are in gen_candidates.cc, the
// higher-order statements in gen_higher_order.cc.
#include "fuzz/gen/program_gen.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/eager/eager.h"
#include "engine/program/builder.h"
#include "engine/program/input_data.h"
#include "engine/program/op_cases.h"
#include "engine/program/schema.h"
#include "fuzz/gen/generator_internal.h"

namespace sf::fuzz {

namespace detail {

GeneratedProgram Generator::run() {
  add_inputs();
  eager_ = std::make_unique<eager::Session>(p_);
  draw_statements(static_cast<int>(src_.range(policy_.min_statements, policy_.max_statements)));
  finish();
  eager_->run(p_.body.back());  // the return: every name it reads was accepted
  return GeneratedProgram{p_, eager_->result()};
}

// ---- inputs ----
void Generator::add_inputs() {
  int n = static_cast<int>(src_.range(1, policy_.max_inputs));
  for (int i = 0; i < n; ++i) {
    program::InputDecl in;
    in.name = std::string(1, static_cast<char>('a' + i));
    in.is_tensor = true;
    in.dtype = pick_dtype();
    int rank = static_cast<int>(src_.range(1, policy_.max_rank));
    for (int d = 0; d < rank; ++d) {
      in.sizes.push_back(src_.range(1, policy_.max_dim));
      size_t mode = src_.weighted({5, 3, 2});
      in.dims.push_back(mode == 0   ? DimMode::kStatic
                        : mode == 1 ? DimMode::kDynamic
                                    : DimMode::kUnbacked);
    }
    for (DimMode m : in.dims) {
      if (m == DimMode::kUnbacked) unbacked_vars_.insert(in.name);
    }
    in.data = data_for(in.dtype);
    in.loc.line = line_++;
    p_.inputs.push_back(in);
    vars_.push_back(Var{in.name, program::make_input_value(in)});
  }
  if (src_.chance(1, 3)) {
    program::InputDecl in;
    in.name = "n";
    in.is_tensor = false;
    in.dtype = DType::kInt64;
    // An unbacked scalar input (mark_unbacked on an int) is re-fakified to its own symbol in
    // the fresh fake mode of re-propagation, like an unbacked input dim.
    size_t mode = src_.weighted({2, 2, 1});
    in.scalar_mode = mode == 0   ? DimMode::kStatic
                     : mode == 1 ? DimMode::kDynamic
                                 : DimMode::kUnbacked;
    if (in.scalar_mode == DimMode::kUnbacked) unbacked_vars_.insert(in.name);
    in.data.literal = {static_cast<double>(src_.range(2, 6))};
    in.loc.line = line_++;
    p_.inputs.push_back(in);
    vars_.push_back(Var{in.name, program::make_input_value(in)});
  }
}

DType Generator::pick_dtype() {
  size_t k = src_.weighted({5, 4, 2});
  return k == 0 ? DType::kFloat32 : k == 1 ? DType::kInt64 : DType::kBool;
}

DataSpec Generator::data_for(DType d) {
  DataSpec s;
  s.seed = src_.range(0, 1000);
  switch (d) {
    case DType::kFloat32:
      s.kind = DataSpec::Kind::kRandn;
      break;
    case DType::kInt64:
      s.kind = DataSpec::Kind::kRandint;
      s.low = src_.range(-3, 0);
      s.high = src_.range(1, 5);
      break;
    case DType::kBool:
      s.kind = DataSpec::Kind::kRandbool;
      s.p = static_cast<double>(src_.range(1, 9)) / 10.0;
      break;
  }
  return s;
}

// ---- picking values ----
std::vector<const Var*> Generator::vars_where(const std::function<bool(const HostValue&)>& pred) {
  std::vector<const Var*> out;
  for (const Var& v : vars_) {
    if (pred(v.value)) out.push_back(&v);
  }
  return out;
}

const Var* Generator::pick(const std::function<bool(const HostValue&)>& pred) {
  std::vector<const Var*> c = vars_where(pred);
  if (c.empty()) return nullptr;
  // Prefer recent values: programs then chain rather than fan out.
  size_t i = src_.chance(2, 3) ? c.size() - 1 - src_.pick(std::min<size_t>(c.size(), 3))
                               : src_.pick(c.size());
  return c[i];
}

// Whether a value may have unbacked symbols in its sizes, strides or value: it calls a
// data-dependent op or reads a value that may.
bool Generator::may_be_unbacked(const ExprPtr& e) const {
  bool found = false;
  program::for_each_subexpr(e, [&](const program::Expr& x) {
    found = found || (x.kind == program::Expr::Kind::kVar && unbacked_vars_.count(x.name) > 0) ||
            (x.kind == program::Expr::Kind::kCall && program::schema(x.op).allocates_unbacked);
  });
  return found;
}

// Whether a statement may be a call of the op named `name` (swarm testing disables features;
// helper sub-expressions are exempt, statements are not).
bool Generator::statement_allowed(const char* name) const {
  const program::OpSchema& s = program::schema(*program::op_by_name(name));
  for (program::OpFeature f : policy_.disabled_features) {
    if (s.has(f)) return false;
  }
  return true;
}

bool Generator::is_dynamic_input_dim0(const std::string& name) const {
  for (const program::InputDecl& in : p_.inputs) {
    if (in.name == name) return in.is_tensor && !in.dims.empty() && in.dims[0] == DimMode::kDynamic;
  }
  return false;
}

void Generator::build_draw_table() {
  // Scaling by a number every family's weight sum divides keeps the ratios exact.
  constexpr uint64_t kScale = 720720;  // lcm(1..16)
  const std::vector<uint32_t>& fw = policy_.family_weights;
  auto family_weight = [&](size_t f) -> uint64_t { return f < fw.size() ? fw[f] : 0; };
  if (policy_.focus) {
    uint64_t w = 0;
    for (size_t f = 0; f < kCheckStatement; ++f) w += family_weight(f);
    add_draw({Draw::Kind::kOp, *policy_.focus}, w * kScale);
  } else {
    for (size_t f = 0; f < kCheckStatement; ++f) {
      std::vector<std::pair<OpKind, uint64_t>> ops;
      uint64_t sum = 0;
      for (OpKind op : program::all_ops()) {
        const program::OpSchema& sc = program::schema(op);
        if (static_cast<size_t>(sc.family) != f || sc.gen_weight <= 0) continue;
        bool disabled = false;
        for (program::OpFeature feat : policy_.disabled_features)
          disabled = disabled || sc.has(feat);
        if (disabled) continue;
        ops.emplace_back(op, static_cast<uint64_t>(sc.gen_weight));
        sum += static_cast<uint64_t>(sc.gen_weight);
      }
      for (const auto& [op, w] : ops) {
        add_draw({Draw::Kind::kOp, op}, family_weight(f) * w * kScale / sum);
      }
    }
  }
  add_draw({Draw::Kind::kCheck, {}}, family_weight(kCheckStatement) * kScale);
  add_draw({Draw::Kind::kIf, {}}, family_weight(kIfStatement) * kScale);
  add_draw({Draw::Kind::kHigherOrder, {}}, family_weight(kHigherOrderStatement) * kScale);
  add_draw({Draw::Kind::kModelFamily, {}}, family_weight(kModelFamilyStatement) * kScale);
}

void Generator::add_draw(Draw d, uint64_t weight) {
  if (weight == 0) return;
  draws_.push_back(d);
  draw_weights_.push_back(static_cast<uint32_t>(std::min<uint64_t>(weight, UINT32_MAX)));
}

// Check statements over data-dependent scalars (the tracer records deferred asserts): an int
// against a size (<=, or == when they are equal: unbacked = backed replacements), an int as a
// size (check_is_size, maybe with a max), an int's divisibility (n % d == 0), a bool
// (check(b)), or a float against a literal. Mostly true on the program's inputs; sometimes
// false on purpose (the compiled program must then raise like eager).
bool Generator::try_check() {
  // Float items are rare among the scalars, so a check is on one half the time (making it
  // from a float tensor, item(sum(t)), when there is none yet).
  const Var* s = nullptr;
  if (src_.chance(1, 2)) {
    s = pick([](const HostValue& x) { return x.kind == HostValue::Kind::kFloat; });
    const Var* t = s ? nullptr : pick([](const HostValue& x) {
      return is_tensor(x) && x.tensor.dtype == DType::kFloat32;
    });
    std::string name = "x" + std::to_string(line_);  // not "f": f32 is a dtype
    if (t && statement_allowed("item") &&
        accept(
            program::ProgramBuilder::assign_stmt(name, call("item", {call("sum", {v(t->name)})})),
            name)) {
      s = &vars_.back();
    }
  }
  if (!s) {
    s = pick([](const HostValue& x) {
      return x.kind == HostValue::Kind::kInt || x.kind == HostValue::Kind::kFloat ||
             x.kind == HostValue::Kind::kBool;
    });
  }
  if (!s) return false;
  bool want_true = src_.chance(7, 8);
  ExprPtr cond;
  if (s->value.kind == HostValue::Kind::kBool) {
    if (!s->value.b && want_true) return false;
    cond = v(s->name);
  } else if (s->value.kind == HostValue::Kind::kFloat) {
    double c = std::floor(s->value.f) + (want_true ? 1.5 : -0.5);
    cond = lt(v(s->name), f(c));
  } else if (int64_t value = s->value.i; value >= 0 && src_.chance(1, 4)) {
    // check_is_size(n) or check_is_size(n, max): a size-like symbol (spec: range [0, max]).
    Stmt st;
    st.kind = Stmt::Kind::kCheckIsSize;
    st.value = v(s->name);
    if (src_.chance(1, 2)) st.max = i(value + src_.range(0, 3));
    if (!accept(st, "")) return false;
    if (value <= 1 && src_.chance(1, 2)) broadcast_by(*s);
    return true;
  } else if (value > 0 && src_.chance(1, 3)) {
    // Divisibility: check(n % d == 0) makes n = d * fresh, bound at n's site by n // d.
    std::vector<int64_t> divisors;
    for (int64_t d = 2; d <= 4; ++d) {
      if (value % d == 0) divisors.push_back(d);
    }
    if (divisors.empty()) return false;
    cond = eq(call("remainder", {v(s->name), i(divisors[src_.pick(divisors.size())])}), i(0));
  } else {
    const Var* t = pick([](const HostValue& x) { return is_tensor(x) && rank(x) > 0; });
    if (!t) return false;
    ExprPtr size = call("size", {v(t->name), i(0)});
    int64_t n = t->value.tensor.sizes[0];
    if (s->value.i == n && src_.chance(1, 2)) {
      cond = eq(v(s->name), size);
    } else if (s->value.i <= n || !want_true) {
      cond = le(v(s->name), size);
    } else {
      cond = ge(v(s->name), i(src_.range(-1, 0)));
    }
  }
  Stmt st;
  st.kind = Stmt::Kind::kCheck;
  st.value = cond;
  st.message = "generated check " + std::to_string(line_);
  return accept(st, "");
}

// Equal sizes, one of them data-dependent: check(size(a, 0) == size(b, 0)) (a replacement of
// an unbacked size by a backed one or by another unbacked one, as torch._check does).
bool Generator::try_size_equality() {
  std::vector<const Var*> ts =
      vars_where([](const HostValue& x) { return is_tensor(x) && rank(x) > 0; });
  if (ts.size() < 2) return false;
  const Var* a = ts[src_.pick(ts.size())];
  std::vector<const Var*> same;
  for (const Var* t : ts) {
    if (t != a && t->value.tensor.sizes[0] == a->value.tensor.sizes[0]) same.push_back(t);
  }
  if (same.empty()) return false;
  // Mostly a dynamic input when one matches: then a data-dependent size is replaced by a
  // backed symbol, the case where renaming on re-propagation must not touch the backed one.
  std::vector<const Var*> dynamic;
  for (const Var* t : same) {
    if (is_dynamic_input_dim0(t->name)) dynamic.push_back(t);
  }
  const Var* b = !dynamic.empty() && src_.chance(2, 3) ? dynamic[src_.pick(dynamic.size())]
                                                       : same[src_.pick(same.size())];
  Stmt st;
  st.kind = Stmt::Kind::kCheck;
  st.value = eq(call("size", {v(a->name), i(0)}), call("size", {v(b->name), i(0)}));
  st.message = "generated check " + std::to_string(line_);
  return accept(st, "");
}

// add_ on a value computed here (not a view, not an input); often with the same
// data-dependent query (nonzero, or item of a count) on the tensor before and after, which must
// not share a memo across the mutation.
bool Generator::try_mutation(OpKind op) {
  const Var* t =
      pick([](const HostValue& x) { return is_tensor(x) && x.tensor.dtype != DType::kBool; });
  if (!t) return false;
  std::string name = "m" + std::to_string(line_);
  Stmt copy = program::ProgramBuilder::assign_stmt(name, add(v(t->name), i(0)));
  if (!accept(copy, name)) return false;
  bool nonzero = src_.chance(1, 2);
  bool query = src_.chance(1, 2) && statement_allowed(nonzero ? "nonzero" : "item");
  auto query_of = [&, nonzero](const std::string& x) {
    return nonzero ? call("nonzero", {v(x)}) : call("item", {call("count_nonzero", {v(x)})});
  };
  std::string before = "q" + std::to_string(line_);
  if (query && !accept(program::ProgramBuilder::assign_stmt(before, query_of(name)), before)) {
    return false;
  }
  Stmt st = program::ProgramBuilder::assign_stmt(name + "_", op == OpKind::kAddInplace
                                                                 ? call("add_", {v(name), i(1)})
                                                                 : masked_assignment(name));
  if (!accept(st, name + "_")) return false;
  // `name` now holds stale values in vars_: later statements use the mutated alias only.
  vars_.erase(
      std::remove_if(vars_.begin(), vars_.end(), [&](const Var& x) { return x.name == name; }),
      vars_.end());
  std::string after = "q" + std::to_string(line_);
  if (query) accept(program::ProgramBuilder::assign_stmt(after, query_of(name + "_")), after);
  return true;
}

// index_put_(m, mask, values): values a number, or m's selected elements doubled (as many as the
// mask selects: an unbacked count the compiled program never checks, eager does).
ExprPtr Generator::masked_assignment(const std::string& m) {
  const Var* t = nullptr;
  for (const Var& x : vars_) {
    if (x.name == m) t = &x;
  }
  SF_CHECK(t) << m << " is not a variable";
  ExprPtr mask = mask_for(*t, "gt", 0);
  if (src_.chance(1, 2)) return call("index_put_", {v(m), mask, i(src_.range(-2, 2))});
  return call("index_put_", {v(m), mask, call("mul", {call("index", {v(m), mask}), i(2)})});
}

// A static if on a size (guards when backed; a data-dependent error when unbacked, on purpose),
// or half the time on the condition of an earlier check: what torch._check is for (the trace
// must decide it from the recorded fact, #145681).
bool Generator::try_if() {
  const Var* t = pick(is_tensor);
  if (!t || rank(t->value) == 0) return false;
  Stmt st;
  st.kind = Stmt::Kind::kIf;
  st.value = gt(call("size", {v(t->name), i(0)}), i(2));
  std::vector<ExprPtr> checked;
  for (const Stmt& c : p_.body) {
    if (c.kind == Stmt::Kind::kCheck) checked.push_back(c.value);
  }
  if (!checked.empty() && src_.chance(1, 2)) st.value = checked[src_.pick(checked.size())];
  st.then_body.push_back(
      program::ProgramBuilder::assign_stmt("r" + std::to_string(line_), mul(v(t->name), i(2))));
  st.else_body.push_back(
      program::ProgramBuilder::assign_stmt("r" + std::to_string(line_), add(v(t->name), i(1))));
  return accept(st, "r" + std::to_string(line_));
}

Stmt Generator::ret_stmt(std::vector<ExprPtr> values) {
  Stmt r;
  r.kind = Stmt::Kind::kReturn;
  r.returns = std::move(values);
  return r;
}

// What a region that adds 1 to its operand in place did to the caller's tensor `name` (and to
// every name of it: the values recorded for them are the same tensor's).
void Generator::added_one(const std::string& name) {
  for (Var& var : vars_) {
    if (var.name != name) continue;
    for (int64_t& e : var.value.tensor.ints) e += 1;
    for (float& e : var.value.tensor.floats) e += 1;
  }
}

// n statement draws, each dropped when 8 attempts cannot make it valid.
void Generator::draw_statements(int n) {
  for (int i = 0; i < n; ++i) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      if (try_statement()) break;
    }
  }
}

bool Generator::try_statement() {
  if (draws_.empty()) return false;
  const Draw& d = draws_[src_.weighted(draw_weights_)];
  if (d.kind == Draw::Kind::kCheck) return src_.chance(1, 3) ? try_size_equality() : try_check();
  // A static if in a body would guard inside a subgraph: not drawn there.
  if (d.kind == Draw::Kind::kIf) return depth_ == 0 && try_if();
  // A model family is a chain of statements, at the top level or in a body: a cond branch that
  // routes tokens, a while_loop whose every step filters boxes, a region called on each batch.
  if (d.kind == Draw::Kind::kModelFamily) return try_model_family();
  if (d.kind == Draw::Kind::kHigherOrder) {
    if (depth_ >= policy_.max_nesting) return false;
    switch (src_.range(0, 5)) {
      case 0:
        return try_cond();
      case 1:
        return try_while_loop();
      case 2:
        return try_invoke_subgraph();
      case 3:
        return try_map();
      case 4:
        return try_scan();
      default:
        return try_associative_scan();
    }
  }
  if (program::schema(d.op).family == program::OpFamily::kMutation) return try_mutation(d.op);
  squeezes_a_one_ = false;
  views_strided_ = false;
  ExprPtr e = candidate(d.op);
  if (!e) return false;
  std::string name = "v" + std::to_string(line_);
  Stmt st = program::ProgramBuilder::assign_stmt(name, e);
  if (size_t n = tuple_arity(*e); n > 0) {
    // A multi-output op is unpacked, so later statements read each of its outputs (a binding
    // path through [0], one through [1], ...).
    st.targets.clear();
    for (size_t k = 0; k < n; ++k) st.targets.push_back(name + static_cast<char>('a' + k));
    if (!accept(st, st.targets)) return false;
  } else if (!accept(st, name)) {
    return false;
  } else if (program::schema(d.op).allocates_unbacked && src_.chance(1, 4)) {
    repeat_as_memo_hit(e);
  }
  size_oblivious_squeeze_ = size_oblivious_squeeze_ || squeezes_a_one_;
  strided_view_ = strided_view_ || views_strided_;
  return true;
}

// The data-dependent call `e` (just bound) again: a memo hit, whose symbols the
// first call's extern already defines (a plan must not define them twice, #111823). Half the
// time the hit feeds another extern (nonzero of it), as a CSE'd index feeds the next op.
void Generator::repeat_as_memo_hit(const ExprPtr& e) {
  std::string again = "v" + std::to_string(line_);
  if (!accept(program::ProgramBuilder::assign_stmt(again, e), again)) return;
  if (!is_tensor(vars_.back().value) || !src_.chance(1, 2) || !statement_allowed("nonzero")) {
    return;
  }
  std::string fed = "v" + std::to_string(line_);
  accept(program::ProgramBuilder::assign_stmt(fed, call("nonzero", {v(again)})), fed);
}

// unique(x, return_counts=True) gives (values, counts); tolist of the length-2 stack gives two
// ints.
size_t Generator::tuple_arity(const program::Expr& e) {
  if (e.kind != program::Expr::Kind::kCall) return 0;
  switch (e.op) {
    case OpKind::kTolist:  // of the generator's length-2 stacks
    case OpKind::kSort:
    case OpKind::kTopk:
      return 2;
    case OpKind::kSplitWithSizes:
      return e.args.at(1)->elems.size();
    case OpKind::kTensorSplit:
      return e.args.at(1)->elems.size() + 1;
    case OpKind::kUnique:
    case OpKind::kUniqueConsecutive:
    case OpKind::kUniqueDim: {  // return_counts=True, by keyword or position
      auto is_true = [](const program::ExprPtr& x) {
        return x && x->kind == program::Expr::Kind::kBool && x->bool_value;
      };
      size_t position = e.op == OpKind::kUniqueDim ? 2 : 1;
      if (e.args.size() > position && is_true(e.args[position])) return 2;
      for (const auto& [key, value] : e.kwargs) {
        if (key == "return_counts" && is_true(value)) return 2;
      }
      return 0;
    }
    default:
      return 0;
  }
}

// Appends `st` if eager accepts it after the statements so far (returning each of `names`,
// as the program's return would), recording their values.
bool Generator::accept(Stmt st, const std::vector<std::string>& names) {
  st.loc.line = line_;
  try {
    eager_->run(st);
    std::vector<Var> values;
    for (const std::string& n : names) values.push_back(Var{n, eager_->value(n)});
    ++line_;
    if (may_be_unbacked(st.value)) unbacked_vars_.insert(names.begin(), names.end());
    p_.body.push_back(st);
    for (Var& v : values) vars_.push_back(std::move(v));
    return true;
  } catch (const UserError& e) {
    // A branch eager does not take may check what fails for these values when the check may
    // hold unbacked symbols (mostly a deferred assert of that branch).
    if (!body_runs_ && e.kind() == UserErrorKind::kCheckFailed && names.empty() &&
        (st.kind == Stmt::Kind::kCheck || st.kind == Stmt::Kind::kCheckIsSize) &&
        (may_be_unbacked(st.value) || may_be_unbacked(st.max))) {
      ++line_;
      p_.body.push_back(st);
      // The trace may still decide it false from what it knows (a size that is static after
      // all): then rejecting the program is right, not a wrong rejection.
      failing_check_kept_ = true;
      return true;
    }
    return false;  // a binding left by a value that cannot be returned is never read: the
                   // name is not in vars_, and the next candidate reuses it
  }
}

// One name, or none ("") for a statement that binds nothing (a check).
bool Generator::accept(Stmt st, const std::string& name) {
  return accept(std::move(st),
                name.empty() ? std::vector<std::string>{} : std::vector<std::string>{name});
}

// Whether a named value is the operand of two data-dependent calls (in the program or in one
// function body): their results share a symbol through the memo, which inference mode turns
// off.
bool Generator::shares_a_memo() const {
  auto shares = [](const std::vector<Stmt>& body) {
    std::map<std::string, int> reads;
    auto count = [&](const program::Expr& e) {
      if (e.kind != program::Expr::Kind::kCall || !program::schema(e.op).allocates_unbacked) return;
      for (const ExprPtr& a : e.args) {
        if (a && a->kind == program::Expr::Kind::kVar) ++reads[a->name];
      }
    };
    for (const Stmt& st : body) {
      program::for_each_subexpr(st.value, count);
      program::for_each_subexpr(st.max, count);
    }
    return std::any_of(reads.begin(), reads.end(), [](const auto& r) { return r.second > 1; });
  };
  return shares(p_.body) ||
         std::any_of(p_.functions.begin(), p_.functions.end(),
                     [&](const program::FunctionDef& f) { return shares(f.body); });
}

void Generator::finish() {
  Stmt ret;
  ret.kind = Stmt::Kind::kReturn;
  ret.loc.line = line_;
  std::vector<const Var*> ts =
      vars_where([](const HostValue& x) { return x.kind != HostValue::Kind::kTuple; });
  size_t n = std::min<size_t>(ts.size(), src_.chance(1, 2) ? 1 : 2);
  for (size_t k = 0; k < n; ++k) ret.returns.push_back(v(ts[ts.size() - 1 - k]->name));
  p_.body.push_back(ret);
  p_.header.found_by = "generate_program";
  // Every statement was accepted by eager; only a static if may make tracing raise on purpose
  // (a data-dependent guard on an unbacked size), so any other rejection at trace is wrong.
  // Except after a squeeze of a dim that is 1 here: if that size is unbacked, the trace keeps
  // the dim (size-oblivious, as upstream) and a later rank-dependent op is rightly rejected.
  // Likewise after a view once unbacked symbols may exist (see candidate).
  // Sometimes under inference mode, where memos are never written (spec §4.1, #122127). Then
  // two data-dependent calls on one value get two symbols, and a later op that needs them
  // equal rightly raises a data-dependent guard: such a program is no longer valid by
  // construction. Drawn last, so it leaves every earlier decision of a seed as it was.
  p_.header.inference_mode = src_.chance(1, 8);
  p_.header.valid_by_construction =
      !size_oblivious_squeeze_ && !strided_view_ && !failing_check_kept_ &&
      !(p_.header.inference_mode && shares_a_memo()) &&
      std::none_of(p_.body.begin(), p_.body.end(),
                   [](const Stmt& st) { return st.kind == Stmt::Kind::kIf; });
}

}  // namespace detail

program::Program generate_program(FuzzSource& src, const ProgramPolicy& policy) {
  return detail::Generator(src, policy).run().program;
}

GeneratedProgram generate_program_with_result(FuzzSource& src, const ProgramPolicy& policy) {
  return detail::Generator(src, policy).run();
}

}  // namespace sf::fuzz
