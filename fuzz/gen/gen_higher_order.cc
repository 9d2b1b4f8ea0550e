// The program generator's higher-order statements: generated functions (bodies drawn like the
// program's) called by cond, while_loop, invoke_subgraph, map, scan and associative_scan, with
// operands and carries that keep each op's contract.
#include "fuzz/gen/generator_internal.h"

namespace sf::fuzz {

namespace detail {

// Appends the HOP statement with its functions defined first; on rejection the functions go
// too. Its outputs may hold unbacked symbols (merged sizes, loop ints).
bool Generator::accept_higher_order(Stmt st, std::vector<program::FunctionDef> fns) {
  for (const program::FunctionDef& f : fns) eager_->define(f);
  size_t before = p_.functions.size();
  for (program::FunctionDef& f : fns) p_.functions.push_back(std::move(f));
  std::vector<std::string> names = st.targets;
  if (!accept(std::move(st), names)) {
    p_.functions.resize(before);
    return false;
  }
  unbacked_vars_.insert(names.begin(), names.end());
  return true;
}

// `incremented`: a parameter the prelude adds 1 to in place (its recorded value follows).
Generator::Body Generator::draw_body(const std::vector<Param>& params, bool runs,
                                     std::vector<Stmt> prelude, const std::string& incremented) {
  // Its lines (and so the names of its own functions) come after the caller's current one.
  Generator g(src_, policy_, params, depth_ + 1, runs, line_ + 1);
  for (Stmt& st : prelude) {
    std::vector<std::string> names = st.targets;
    g.accept(std::move(st), names);
  }
  if (!incremented.empty()) g.added_one(incremented);
  // Bodies are shorter than programs, nested ones shorter still (the size budget).
  int most =
      depth_ == 0 ? policy_.max_body_statements : std::max(2, policy_.max_body_statements / 2);
  g.draw_statements(static_cast<int>(src_.range(1, most)));
  line_ = g.line_;
  size_oblivious_squeeze_ = size_oblivious_squeeze_ || g.size_oblivious_squeeze_;
  strided_view_ = strided_view_ || g.strided_view_;
  failing_check_kept_ = failing_check_kept_ || g.failing_check_kept_;
  return Body{std::move(g.p_.body), std::move(g.vars_), std::move(g.p_.functions)};
}

// Half the time a body's first statement: `d = nonzero(nonzero_of)` or `d = item(sum of
// param)`, a data-dependent value the body's own symbols come from (when the op is allowed).
std::vector<Stmt> Generator::data_dependent_prelude(const std::string& param, ExprPtr nonzero_of) {
  std::vector<Stmt> prelude;
  if (src_.chance(1, 2)) {
    const char* op = src_.chance(1, 2) ? "nonzero" : "item";
    ExprPtr of = std::string(op) == "item"
                     ? call("sum", {call("flatten", {v(param)}), list({i(0)})})
                     : std::move(nonzero_of);
    if (statement_allowed(op)) {
      prelude.push_back(program::ProgramBuilder::assign_stmt("d", call(op, {of})));
    }
  }
  return prelude;
}

// The most recent of `vars` that `pred` accepts, preferring one the body computed.
const Var* Generator::last_of(const std::vector<Var>& vars, size_t params,
                              const std::function<bool(const HostValue&)>& pred) {
  const Var* param = nullptr;
  for (size_t k = vars.size(); k-- > 0;) {
    if (!pred(vars[k].value)) continue;
    if (k >= params && src_.chance(3, 4)) return &vars[k];
    if (!param) param = &vars[k];
  }
  return param;
}

// cond over a tensor (and sometimes an int), each branch drawn like a program (checks,
// slices, data-dependent ops; one sometimes starts by filtering the tensor, a size that leaks
// out of the branch). Both return a fresh dense tensor of one dtype and rank (sizes may differ:
// a fresh symbol bound at the cond node) and sometimes an int.
bool Generator::try_cond() {
  const Var* t = pick(is_numeric_tensor);
  if (!t) return false;
  const Var* k = src_.chance(1, 2) ? pick(is_int) : nullptr;
  std::vector<Param> params = {{"a", t->value, unbacked_vars_.count(t->name) > 0}};
  if (k) params.push_back({"k", k->value, unbacked_vars_.count(k->name) > 0});
  std::vector<ExprPtr> operands = {v(t->name)};
  if (k) operands.push_back(v(k->name));
  std::string n = std::to_string(line_);
  const Var* c = pick(is_int);
  ExprPtr pred = c && src_.chance(1, 2)
                     ? gt(v(c->name), i(src_.range(0, 2)))
                     : gt(call("sum", {call("flatten", {v(t->name)}), list({i(0)})}), i(0));
  // Its value says which branch eager takes (the other may hold a check that fails): eager
  // computes it aside, under a name no statement reads.
  bool taken = false;
  try {
    eager_->run(program::ProgramBuilder::assign_stmt(" predicate", pred));
    taken = truth(eager_->value(" predicate"));
  } catch (const UserError&) {
    return false;
  }
  bool filter_then = src_.chance(1, 2);
  auto prelude = [&](bool filter) {
    std::vector<Stmt> out;
    const char* op = src_.chance(1, 2) ? "masked_select" : "index";
    if (filter && src_.chance(2, 3) && statement_allowed(op)) {
      out.push_back(
          program::ProgramBuilder::assign_stmt("r", call(op, {v("a"), gt(v("a"), i(0))})));
    }
    return out;
  };
  Body then_body = draw_body(params, taken, prelude(filter_then));
  Body else_body = draw_body(params, !taken, prelude(!filter_then));
  // The tensor output: a (dtype, rank) both branches hold (the operand always qualifies).
  std::vector<std::pair<DType, size_t>> common;
  for (const Var& x : then_body.vars) {
    if (!is_tensor(x.value) || x.value.tensor.dtype == DType::kBool) continue;
    std::pair<DType, size_t> sig{x.value.tensor.dtype, x.value.tensor.sizes.size()};
    bool in_else = std::any_of(else_body.vars.begin(), else_body.vars.end(), [&](const Var& y) {
      return is_tensor(y.value) && y.value.tensor.dtype == sig.first &&
             y.value.tensor.sizes.size() == sig.second;
    });
    if (in_else && std::find(common.begin(), common.end(), sig) == common.end())
      common.push_back(sig);
  }
  if (common.empty()) return false;
  std::pair<DType, size_t> sig = common[src_.pick(common.size())];
  auto has_sig = [&](const HostValue& x) {
    return is_tensor(x) && x.tensor.dtype == sig.first && x.tensor.sizes.size() == sig.second;
  };
  bool with_int = src_.chance(1, 2);
  auto function = [&](const std::string& name, Body& body) {
    program::FunctionDef f{name + n, {}, {}, {}};
    for (const Param& prm : params) f.params.push_back(prm.name);
    f.body = std::move(body.stmts);
    // A fresh dense tensor, never a parameter itself (no alias) nor a view (one stride order).
    std::vector<ExprPtr> out = {add(v(last_of(body.vars, params.size(), has_sig)->name), i(0))};
    if (with_int) {
      const Var* x = last_of(body.vars, params.size(), is_int);
      out.push_back(x ? v(x->name) : call("size", {v("a"), i(0)}));
    }
    f.body.push_back(ret_stmt(out));
    return f;
  };
  std::vector<program::FunctionDef> fns = std::move(then_body.functions);
  for (program::FunctionDef& f : else_body.functions) fns.push_back(std::move(f));
  fns.push_back(function("then", then_body));
  fns.push_back(function("else", else_body));
  Stmt st;
  st.kind = Stmt::Kind::kCond;
  st.value = pred;
  st.functions = {"then" + n, "else" + n};
  st.operands = operands;
  st.targets = {"c" + n};
  if (with_int) st.targets.push_back("j" + n);
  return accept_higher_order(std::move(st), std::move(fns));
}

// while_loop counting to a small bound over (i, acc, w); the body is drawn like a program
// (sometimes starting with a nonzero of the carry itself: the body's memo must not be the
// caller's, PR #158467), then returns i + 1, acc plus an int it computed, and w - 1 (a carry
// keeps its shape).
bool Generator::try_while_loop() {
  const Var* t = pick(is_numeric_tensor);
  if (!t) return false;
  std::string n = std::to_string(line_);
  std::vector<Param> params = {{"i", HostValue::of_int(0), true},
                               {"acc", HostValue::of_int(0), true},
                               {"w", t->value, unbacked_vars_.count(t->name) > 0}};
  std::vector<Stmt> prelude;
  if (src_.chance(1, 2) && statement_allowed("nonzero")) {
    ExprPtr counted = src_.chance(1, 2) ? v("w") : gt(v("w"), i(0));
    prelude.push_back(program::ProgramBuilder::assign_stmt("nz", call("nonzero", {counted})));
  }
  Body body = draw_body(params, true, std::move(prelude));
  program::FunctionDef more{"more" + n, {"i", "acc", "w"}, {}, {}};
  more.body.push_back(ret_stmt({lt(v("i"), i(src_.range(1, 3)))}));
  program::FunctionDef step{"step" + n, {"i", "acc", "w"}, std::move(body.stmts), {}};
  const Var* x = last_of(body.vars, params.size(), is_int);
  bool own = x && x->name != "i" && x->name != "acc";
  step.body.push_back(
      ret_stmt({add(v("i"), i(1)), add(v("acc"), own ? v(x->name) : i(1)), sub(v("w"), i(1))}));
  std::vector<program::FunctionDef> fns = std::move(body.functions);
  fns.push_back(more);
  fns.push_back(step);
  Stmt st;
  st.kind = Stmt::Kind::kWhileLoop;
  st.functions = {more.name, step.name};
  st.operands = {i(0), i(0), v(t->name)};
  st.targets = {"n" + n, "s" + n, "w" + n};
  return accept_higher_order(std::move(st), std::move(fns));
}

// invoke_subgraph: a region drawn like a program over a tensor (and sometimes an int), which
// sometimes starts with an item() or a nonzero of its operand, sometimes by adding 1 to it in
// place (the caller sees it: an auto-functionalized mutation), returning a fresh dense tensor
// and sometimes an int; called up to three times, again on the same operands (the region is
// traced once and each call binds its own symbols) or on another tensor of its dtype and rank.
bool Generator::try_invoke_subgraph() {
  const Var* t = pick(is_numeric_tensor);
  if (!t) return false;
  const Var* k = src_.chance(1, 3) ? pick(is_int) : nullptr;
  std::vector<Param> params = {{"a", t->value, unbacked_vars_.count(t->name) > 0}};
  if (k) params.push_back({"k", k->value, unbacked_vars_.count(k->name) > 0});
  std::string n = std::to_string(line_);
  std::vector<Stmt> prelude = data_dependent_prelude("a", gt(v("a"), i(0)));
  const bool mutates = src_.chance(1, 4) && statement_allowed("add_");
  if (mutates) {
    prelude.push_back(program::ProgramBuilder::assign_stmt("m", call("add_", {v("a"), i(1)})));
  }
  Body body = draw_body(params, true, std::move(prelude), mutates ? "a" : "");
  auto numeric = [](const HostValue& x) { return is_numeric_tensor(x); };
  program::FunctionDef f{"region" + n, {}, std::move(body.stmts), {}};
  for (const Param& prm : params) f.params.push_back(prm.name);
  // A fresh dense tensor, never a parameter itself (no alias) nor a view (one stride order).
  std::vector<ExprPtr> out = {add(v(last_of(body.vars, params.size(), numeric)->name), i(0))};
  std::vector<std::string> targets = {"g" + n};
  if (src_.chance(1, 2)) {
    const Var* x = last_of(body.vars, params.size(), is_int);
    out.push_back(x ? v(x->name) : call("size", {v("a"), i(0)}));
    targets.push_back("h" + n);
  }
  f.body.push_back(ret_stmt(out));
  std::vector<program::FunctionDef> fns = std::move(body.functions);
  fns.push_back(std::move(f));
  Stmt st;
  st.kind = Stmt::Kind::kInvokeSubgraph;
  st.functions = {"region" + n};
  st.operands = {v(t->name)};
  // (Accepting appends to vars_: what the later calls need of `t` and `k` is copied first.)
  const HostValue first = t->value;
  const bool unbacked = unbacked_vars_.count(t->name) > 0;
  const std::string k_name = k ? k->name : "";
  if (mutates) {
    // It mutates a copy made here (as try_mutation does): not an input, not a view of one.
    std::string copy = "r" + n;
    if (!accept(program::ProgramBuilder::assign_stmt(copy, add(v(t->name), i(0))), copy)) {
      return false;
    }
    st.operands[0] = v(copy);
  }
  if (k) st.operands.push_back(v(k_name));
  st.targets = targets;
  if (!accept_higher_order(st, std::move(fns))) return false;
  if (mutates) added_one(st.operands[0]->name);
  for (int64_t calls = src_.range(0, 2); calls > 0; --calls) {
    Stmt again = st;
    std::string m = std::to_string(line_);
    again.targets = {"g" + m};
    if (st.targets.size() > 1) again.targets.push_back("h" + m);
    if (!mutates && src_.chance(1, 3)) {
      // Another tensor like the first (its dtype, rank and whether its sizes may be unbacked).
      const Var* other = pick([&](const HostValue& x) {
        return is_numeric_tensor(x) && x.tensor.dtype == first.tensor.dtype &&
               x.tensor.sizes.size() == first.tensor.sizes.size();
      });
      if (other && (unbacked_vars_.count(other->name) > 0) == unbacked)
        again.operands[0] = v(other->name);
    }
    std::vector<std::string> names = again.targets;
    const std::string operand = again.operands[0]->name;
    if (accept(std::move(again), names)) {
      unbacked_vars_.insert(names.begin(), names.end());
      if (mutates) added_one(operand);
    }
  }
  return true;
}

// map over the rows of a tensor (and sometimes of twice it, a second operand of the same
// leading size): the function is drawn like a program on the first row (sometimes starting
// with a nonzero or an item() of it), and returns a sum of what it computed last (a shape the
// rows determine, so the steps stack) and sometimes its row doubled.
bool Generator::try_map() {
  const Var* t =
      pick([](const HostValue& x) { return is_numeric_tensor(x) && x.tensor.sizes[0] >= 1; });
  if (!t) return false;
  std::string n = std::to_string(line_);
  HostValue row = HostValue::of_tensor(program::row_of(t->value.tensor, 0));
  bool unbacked = unbacked_vars_.count(t->name) > 0;
  std::vector<Param> params = {{"r", row, unbacked}};
  std::vector<ExprPtr> operands = {v(t->name)};
  if (src_.chance(1, 3)) {
    HostValue doubled = row;
    for (int64_t& x : doubled.tensor.ints) x *= 2;
    for (float& x : doubled.tensor.floats) x *= 2;
    params.push_back({"q", doubled, unbacked});
    operands.push_back(mul(v(t->name), i(2)));
  }
  std::vector<Stmt> prelude = data_dependent_prelude("r", gt(call("flatten", {v("r")}), i(0)));
  Body body = draw_body(params, true, std::move(prelude));
  auto numeric = [](const HostValue& x) { return is_tensor(x) && x.tensor.dtype != DType::kBool; };
  program::FunctionDef f{"rows" + n, {}, std::move(body.stmts), {}};
  for (const Param& prm : params) f.params.push_back(prm.name);
  const Var* last = last_of(body.vars, params.size(), numeric);
  std::vector<ExprPtr> out = {
      call("sum", {call("flatten", {v(last ? last->name : "r")}), list({i(0)})})};
  std::vector<std::string> targets = {"m" + n};
  if (src_.chance(1, 2)) {
    out.push_back(mul(v("r"), i(2)));
    targets.push_back("p" + n);
  }
  f.body.push_back(ret_stmt(out));
  std::vector<program::FunctionDef> fns = std::move(body.functions);
  fns.push_back(std::move(f));
  Stmt st;
  st.kind = Stmt::Kind::kMap;
  st.functions = {"rows" + n};
  st.operands = operands;
  st.targets = targets;
  return accept_higher_order(std::move(st), std::move(fns));
}

// scan over the rows of a tensor with a one-element running total (a tensor carry: torch's scan
// takes tensor carries) and sometimes an int carry (a count): the function is drawn like a
// program on the carries and the first row (sometimes starting with a nonzero of it), adds to
// the carries what it computed, and returns a sum per row.
bool Generator::try_scan() {
  const Var* t =
      pick([](const HostValue& x) { return is_numeric_tensor(x) && x.tensor.sizes[0] >= 1; });
  if (!t) return false;
  std::string n = std::to_string(line_);
  HostValue row = HostValue::of_tensor(program::row_of(t->value.tensor, 0));
  bool with_count = src_.chance(1, 2);
  HostValue total = HostValue::of_tensor(program::HostTensor::zeros(t->value.tensor.dtype, {}));
  std::vector<Param> params = {{"total", total, false}};
  if (with_count) params.push_back({"count", HostValue::of_int(0), true});
  params.push_back({"r", row, unbacked_vars_.count(t->name) > 0});
  std::vector<Stmt> prelude;
  if (src_.chance(1, 2) && statement_allowed("nonzero")) {
    prelude.push_back(program::ProgramBuilder::assign_stmt(
        "d", call("nonzero", {gt(call("flatten", {v("r")}), i(0))})));
  }
  Body body = draw_body(params, true, std::move(prelude));
  auto numeric = [](const HostValue& x) { return is_tensor(x) && x.tensor.dtype != DType::kBool; };
  const Var* last = last_of(body.vars, params.size(), numeric);
  ExprPtr row_sum = call("sum", {call("flatten", {v(last ? last->name : "r")}), list({i(0)})});
  program::FunctionDef f{"scanned" + n, {}, std::move(body.stmts), {}};
  for (const Param& prm : params) f.params.push_back(prm.name);
  std::vector<ExprPtr> out = {
      add(v("total"), call("sum", {call("flatten", {v("r")}), list({i(0)})}))};
  if (with_count) {
    const Var* x = last_of(body.vars, params.size(), is_int);
    bool own = x && x->name != "count";
    out.push_back(add(v("count"), own ? v(x->name) : i(1)));
  }
  out.push_back(row_sum);
  f.body.push_back(ret_stmt(out));
  std::vector<program::FunctionDef> fns = std::move(body.functions);
  fns.push_back(std::move(f));
  Stmt st;
  st.kind = Stmt::Kind::kScan;
  st.functions = {"scanned" + n};
  st.operands = {call("sum", {call("flatten", {v(t->name)}), list({i(0)})})};
  st.targets = {"t" + n};
  if (with_count) {
    st.operands.push_back(i(0));
    st.targets.push_back("k" + n);
  }
  st.carries = st.operands.size();
  st.operands.push_back(v(t->name));
  st.targets.push_back("y" + n);
  return accept_higher_order(std::move(st), std::move(fns));
}

// associative_scan over a dim of a tensor (and sometimes of a second operand of its shape): the
// combine function is drawn like a program on a left and a right row (sometimes starting with a
// nonzero or an item() of the right one), then returns an associative combination of the rows
// (a sum, maximum or minimum; for two f32 operands sometimes a linear recurrence), so the
// tree order torch evaluates in gives our fold's result. Over fewer than two rows the function
// never runs: a check in it may fail for these inputs.
bool Generator::try_associative_scan() {
  const Var* t = pick(is_numeric_tensor);
  if (!t) return false;
  const program::HostTensor& x = t->value.tensor;
  const int64_t rank = static_cast<int64_t>(x.sizes.size());
  const int64_t dim = src_.range(-rank, rank - 1);
  const int64_t d = dim < 0 ? dim + rank : dim;
  std::vector<int64_t> row_sizes = x.sizes;
  row_sizes.erase(row_sizes.begin() + d);
  HostValue row =
      HostValue::of_tensor(x.sizes[d] > 0 ? program::row_of(program::move_dim(x, d, 0), 0)
                                          : program::HostTensor::zeros(x.dtype, row_sizes));
  const bool unbacked = unbacked_vars_.count(t->name) > 0;
  const bool two = src_.chance(1, 3);
  // The second operand: twice the first, or the first minus one (its rows likewise).
  const bool doubled = src_.chance(1, 2);
  HostValue row2 = row;
  for (int64_t& e : row2.tensor.ints) e = doubled ? e * 2 : e - 1;
  for (float& e : row2.tensor.floats) e = doubled ? e * 2 : e - 1;
  std::vector<Param> params = {{"a", row, unbacked}};
  if (two) params.push_back({"b", row2, unbacked});
  params.push_back({"x", row, unbacked});
  if (two) params.push_back({"y", row2, unbacked});
  std::vector<Stmt> prelude = data_dependent_prelude("x", gt(call("flatten", {v("x")}), i(0)));
  Body body = draw_body(params, x.sizes[d] >= 2, std::move(prelude));
  std::string n = std::to_string(line_);
  program::FunctionDef f{"combine" + n, {}, std::move(body.stmts), {}};
  for (const Param& prm : params) f.params.push_back(prm.name);
  const char* ops[] = {"add", "maximum", "minimum"};
  auto combined = [&](const char* left, const char* right) {
    return call(ops[src_.range(0, 2)], {v(left), v(right)});
  };
  std::vector<ExprPtr> out;
  if (two && x.dtype == DType::kFloat32 && src_.chance(1, 2)) {
    // (a1, b1) then (a2, b2): (a1 * a2, b1 * a2 + b2), h[i] = a[i] * h[i - 1] + b[i].
    out = {mul(v("a"), v("x")), add(mul(v("b"), v("x")), v("y"))};
  } else {
    out.push_back(combined("a", "x"));
    if (two) out.push_back(combined("b", "y"));
  }
  f.body.push_back(ret_stmt(out));
  std::vector<program::FunctionDef> fns = std::move(body.functions);
  fns.push_back(std::move(f));
  Stmt st;
  st.kind = Stmt::Kind::kAssociativeScan;
  st.functions = {"combine" + n};
  st.operands = {v(t->name)};
  st.targets = {"c" + n};
  if (two) {
    st.operands.push_back(doubled ? mul(v(t->name), i(2)) : sub(v(t->name), i(1)));
    st.targets.push_back("e" + n);
  }
  st.dim = dim;
  return accept_higher_order(std::move(st), std::move(fns));
}

}  // namespace detail
}  // namespace sf::fuzz
