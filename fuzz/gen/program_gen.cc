// The program generator. Candidates are built from the concrete shapes and values of earlier
// variables (known by running the prefix with eager), and rejected candidates are redrawn.
#include "fuzz/gen/program_gen.h"

#include <functional>
#include <map>

#include "engine/base/errors.h"
#include "engine/eager/eager.h"
#include "engine/program/builder.h"
#include "engine/program/input_data.h"

namespace sf::fuzz {

namespace {

using namespace program::ex;
using program::DataSpec;
using program::DimMode;
using program::DType;
using program::ExprPtr;
using program::HostValue;
using program::Program;
using program::Stmt;

struct Var {
  std::string name;
  HostValue value;  // concrete, from eager
};

class Generator {
 public:
  Generator(FuzzSource& src, const ProgramPolicy& policy) : src_(src), policy_(policy) {}

  Program run() {
    add_inputs();
    int n = static_cast<int>(src_.range(1, policy_.max_statements));
    for (int i = 0; i < n; ++i) {
      for (int attempt = 0; attempt < 8; ++attempt) {
        if (try_statement()) break;
      }
    }
    finish();
    return p_;
  }

 private:
  // ---- inputs ----
  void add_inputs() {
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
      in.scalar_mode = src_.chance(1, 2) ? DimMode::kDynamic : DimMode::kStatic;
      in.data.literal = {static_cast<double>(src_.range(2, 6))};
      in.loc.line = line_++;
      p_.inputs.push_back(in);
      vars_.push_back(Var{in.name, program::make_input_value(in)});
    }
  }

  DType pick_dtype() {
    size_t k = src_.weighted({5, 4, 2});
    return k == 0 ? DType::kFloat32 : k == 1 ? DType::kInt64 : DType::kBool;
  }

  DataSpec data_for(DType d) {
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
  std::vector<const Var*> vars_where(const std::function<bool(const HostValue&)>& pred) {
    std::vector<const Var*> out;
    for (const Var& v : vars_) {
      if (pred(v.value)) out.push_back(&v);
    }
    return out;
  }
  const Var* pick(const std::function<bool(const HostValue&)>& pred) {
    std::vector<const Var*> c = vars_where(pred);
    if (c.empty()) return nullptr;
    // Prefer recent values: programs then chain rather than fan out.
    size_t i = src_.chance(2, 3) ? c.size() - 1 - src_.pick(std::min<size_t>(c.size(), 3))
                                 : src_.pick(c.size());
    return c[i];
  }
  static bool is_tensor(const HostValue& v) { return v.kind == HostValue::Kind::kTensor; }
  static bool is_int(const HostValue& v) { return v.kind == HostValue::Kind::kInt; }
  static int64_t rank(const HostValue& v) { return static_cast<int64_t>(v.tensor.sizes.size()); }

  ExprPtr dim_lit(const HostValue& t) {
    int64_t r = std::max<int64_t>(rank(t), 1);
    int64_t d = src_.range(0, r - 1);
    return i(src_.chance(1, 4) ? d - r : d);
  }
  // An int expression: a literal or an existing int scalar.
  ExprPtr int_expr(int64_t lo, int64_t hi) {
    const Var* s = src_.chance(1, 2) ? pick(is_int) : nullptr;
    if (s && s->value.i >= lo && s->value.i <= hi) return v(s->name);
    return i(src_.range(lo, hi));
  }

  // ---- statements ----
  ExprPtr candidate() {
    size_t family = src_.weighted(policy_.family_weights);
    const Var* t = pick(is_tensor);
    if (!t) return nullptr;
    const HostValue& tv = t->value;
    switch (family) {
      case 0: {  // creation, sized by existing (possibly data-dependent) sizes
        std::vector<ExprPtr> shape;
        if (src_.chance(1, 2)) shape.push_back(call("size", {v(t->name), dim_lit(tv)}));
        shape.push_back(i(src_.range(1, 4)));
        switch (src_.pick(4)) {
          case 0:
            return call("zeros", {list(shape)});
          case 1:
            return call("ones", {list(shape), dt(pick_dtype())});
          case 2:
            return call("full", {list(shape), f(0.5 * static_cast<double>(src_.range(-4, 4)))});
          default:
            return call("arange", {call("numel", {v(t->name)})});
        }
      }
      case 1: {  // pointwise
        static const char* kBinary[] = {
            "add", "sub", "mul", "div", "floordiv", "remainder", "maximum",     "minimum",
            "eq",  "ne",  "lt",  "le",  "gt",       "ge",        "logical_and", "logical_or"};
        static const char* kUnary[] = {"neg", "abs", "relu", "logical_not"};
        if (src_.chance(1, 4)) return call(kUnary[src_.pick(4)], {v(t->name)});
        if (src_.chance(1, 6)) return call("to", {v(t->name), dt(pick_dtype())});
        if (src_.chance(1, 6)) {
          return call("where", {call("gt", {v(t->name), i(0)}), v(t->name), i(src_.range(-2, 2))});
        }
        std::string op = kBinary[src_.pick(16)];
        const Var* o = pick(
            [&](const HostValue& x) { return is_tensor(x) && x.tensor.sizes == tv.tensor.sizes; });
        ExprPtr rhs = o && src_.chance(2, 3) ? v(o->name) : i(src_.range(1, 3));
        bool infix_op = op == "add" || op == "sub" || op == "mul" || op == "lt" || op == "le";
        return infix_op ? infix(op, v(t->name), rhs) : call(op, {v(t->name), rhs});
      }
      case 2: {  // reduction
        static const char* kRed[] = {"sum", "amax", "amin", "any", "all", "count_nonzero"};
        std::string op = kRed[src_.pick(6)];
        if (src_.chance(1, 3)) return call(op, {v(t->name)});
        std::vector<std::pair<std::string, ExprPtr>> kw;
        if (op != "count_nonzero" && src_.chance(1, 3)) kw.emplace_back("keepdim", b(true));
        return call(op, {v(t->name), list({dim_lit(tv)})}, kw);
      }
      case 3: {  // views
        int64_t r = rank(tv);
        switch (src_.pick(9)) {
          case 0:
            return call("transpose", {v(t->name), dim_lit(tv), dim_lit(tv)});
          case 1:
            return call("unsqueeze", {v(t->name), i(src_.range(0, r))});
          case 2:
            return call("squeeze", {v(t->name), dim_lit(tv)});
          case 3:
            return call("flatten", {v(t->name)});
          case 4:
            return call("reshape", {v(t->name), list({i(-1)})});
          case 5: {
            std::vector<ExprPtr> start;
            return call("slice", {v(t->name), dim_lit(tv), int_expr(-3, 3), int_expr(-3, 8),
                                  i(src_.range(1, 2))});
          }
          case 6:
            if (r == 0 || tv.tensor.sizes[0] == 0) return nullptr;
            return call("select", {v(t->name), i(0), int_expr(-1, 0)});
          case 7:
            return call("narrow", {v(t->name), i(0), i(0), int_expr(0, 1)});
          default: {
            std::vector<ExprPtr> shape;
            shape.push_back(i(src_.range(1, 3)));
            for (int64_t d = 0; d < r; ++d) shape.push_back(i(-1));
            return call("expand", {v(t->name), list(shape)});
          }
        }
      }
      case 4: {  // joins and gathers
        if (src_.chance(1, 3)) {
          const Var* idx = pick([](const HostValue& x) {
            return is_tensor(x) && x.tensor.dtype == DType::kInt64 && x.tensor.sizes.size() == 1;
          });
          if (!idx) return nullptr;
          return call(
              "index_select",
              {v(t->name), i(0),
               call("remainder",
                    {v(idx->name), i(std::max<int64_t>(1, rank(tv) ? tv.tensor.sizes[0] : 1))})});
        }
        const Var* o =
            pick([&](const HostValue& x) { return is_tensor(x) && rank(x) == rank(tv); });
        std::vector<ExprPtr> items{v(t->name), v(o ? o->name : t->name)};
        return call(src_.chance(1, 3) ? "stack" : "cat", {list(items), i(0)});
      }
      case 5: {  // data-dependent
        switch (src_.pick(7)) {
          case 0:
            return call("nonzero", {v(t->name)});
          case 1:
            return call("index", {v(t->name), call("gt", {v(t->name), i(0)})});
          case 2:
            return call("masked_select", {v(t->name), call("ne", {v(t->name), i(1)})});
          case 3:
            return call(
                "unique", {v(t->name)},
                src_.chance(1, 2)
                    ? std::vector<std::pair<std::string, ExprPtr>>{{"return_counts", b(true)}}
                    : std::vector<std::pair<std::string, ExprPtr>>{});
          case 4:
            return call("item", {call("sum", {v(t->name)})});
          case 5: {
            const Var* r = pick([](const HostValue& x) {
              return is_tensor(x) && x.tensor.dtype == DType::kInt64 && x.tensor.sizes.size() == 1;
            });
            if (!r) return nullptr;
            return call("repeat_interleave", {call("abs", {v(r->name)})});
          }
          default:
            return call("item", {call("count_nonzero", {v(t->name)})});
        }
      }
      case 6: {  // scalars
        const Var* s = pick(is_int);
        ExprPtr a = s ? v(s->name) : call("size", {v(t->name), dim_lit(tv)});
        switch (src_.pick(5)) {
          case 0:
            return add(a, i(src_.range(-2, 2)));
          case 1:
            return mul(a, i(src_.range(1, 3)));
          case 2:
            return call("max", {a, i(src_.range(0, 2))});
          case 3:
            return call("min", {a, call("numel", {v(t->name)})});
          default:
            return call("floordiv", {a, i(src_.range(1, 3))});
        }
      }
      default:
        return nullptr;
    }
  }

  // Check statements over data-dependent scalars (the tracer records deferred asserts).
  bool try_check() {
    const Var* s = pick(is_int);
    const Var* t = pick(is_tensor);
    if (!s || !t || rank(t->value) == 0) return false;
    ExprPtr cond = le(v(s->name), call("size", {v(t->name), i(0)}));
    bool holds = s->value.i <= t->value.tensor.sizes[0];
    if (!holds && !src_.chance(1, 8)) cond = ge(v(s->name), i(src_.range(-1, 0)));
    Stmt st;
    st.kind = Stmt::Kind::kCheck;
    st.value = cond;
    st.message = "generated check " + std::to_string(line_);
    return accept(st, "");
  }

  bool try_statement() {
    size_t family = src_.weighted(policy_.family_weights);
    if (family == 7) return try_check();
    if (family == 9) {  // static if on a size (guards when backed; DDE when unbacked, on purpose)
      const Var* t = pick(is_tensor);
      if (!t || rank(t->value) == 0) return false;
      Stmt st;
      st.kind = Stmt::Kind::kIf;
      st.value = gt(call("size", {v(t->name), i(0)}), i(2));
      st.then_body.push_back(
          program::ProgramBuilder::assign_stmt("r" + std::to_string(line_), mul(v(t->name), i(2))));
      st.else_body.push_back(
          program::ProgramBuilder::assign_stmt("r" + std::to_string(line_), add(v(t->name), i(1))));
      return accept(st, "r" + std::to_string(line_));
    }
    if (family == 8) {  // add_ on a value computed here (not a view, not an input)
      const Var* t =
          pick([](const HostValue& x) { return is_tensor(x) && x.tensor.dtype != DType::kBool; });
      if (!t) return false;
      std::string name = "m" + std::to_string(line_);
      Stmt copy = program::ProgramBuilder::assign_stmt(name, add(v(t->name), i(0)));
      if (!accept(copy, name)) return false;
      Stmt st = program::ProgramBuilder::assign_stmt(name + "_", call("add_", {v(name), i(1)}));
      return accept(st, name + "_");
    }
    ExprPtr e = candidate();
    if (!e) return false;
    std::string name = "v" + std::to_string(line_);
    Stmt st = program::ProgramBuilder::assign_stmt(name, e);
    return accept(st, name);
  }

  // Appends `st` if eager accepts the program with it (returning `name`), recording its value.
  bool accept(Stmt st, const std::string& name) {
    st.loc.line = line_;
    Program trial = p_;
    trial.body.push_back(st);
    Stmt ret;
    ret.kind = Stmt::Kind::kReturn;
    if (!name.empty()) ret.returns.push_back(v(name));
    trial.body.push_back(ret);
    try {
      eager::EagerResult r = eager::run_eager(trial);
      ++line_;
      p_.body.push_back(st);
      if (!name.empty()) vars_.push_back(Var{name, r.outputs.at(0)});
      return true;
    } catch (const UserError&) {
      return false;
    }
  }

  void finish() {
    Stmt ret;
    ret.kind = Stmt::Kind::kReturn;
    ret.loc.line = line_;
    std::vector<const Var*> ts =
        vars_where([](const HostValue& x) { return x.kind != HostValue::Kind::kTuple; });
    size_t n = std::min<size_t>(ts.size(), src_.chance(1, 2) ? 1 : 2);
    for (size_t k = 0; k < n; ++k) ret.returns.push_back(v(ts[ts.size() - 1 - k]->name));
    p_.body.push_back(ret);
    p_.header.found_by = "generate_program";
  }

  FuzzSource& src_;
  const ProgramPolicy& policy_;
  Program p_;
  std::vector<Var> vars_;
  int line_ = 1;
};

}  // namespace

program::Program generate_program(FuzzSource& src, const ProgramPolicy& policy) {
  return Generator(src, policy).run();
}

}  // namespace sf::fuzz
