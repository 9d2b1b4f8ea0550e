// The program generator. Candidates are built from the concrete shapes and values of earlier
// variables (an eager::Session runs each accepted statement once), and rejected candidates are
// redrawn.
#include "fuzz/gen/program_gen.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "engine/base/errors.h"
#include "engine/eager/eager.h"
#include "engine/program/builder.h"
#include "engine/program/input_data.h"
#include "engine/program/op_cases.h"
#include "engine/program/schema.h"

namespace sf::fuzz {

namespace {

using namespace program::ex;
using program::DataSpec;
using program::DimMode;
using program::DType;
using program::ExprPtr;
using program::HostValue;
using program::OpFamily;
using program::OpKind;
using program::Program;
using program::Stmt;

struct Var {
  std::string name;
  HostValue value;  // concrete, from eager
};

class Generator {
 public:
  Generator(FuzzSource& src, const ProgramPolicy& policy) : src_(src), policy_(policy) {
    build_draw_table();
  }

  // A function body's generator: the same draws as the top level (but no static if), over the
  // parameters, which hold the operands' concrete values. `runs`: whether eager runs the body
  // for these inputs at all (a branch the predicate does not take may keep a check that fails
  // for them, as long as the trace cannot decide it: its facts must stay in the branch).
  struct Param {
    std::string name;
    HostValue value;
    bool may_be_unbacked;
  };
  Generator(FuzzSource& src, const ProgramPolicy& policy, const std::vector<Param>& params,
            int depth, bool runs, int first_line)
      : src_(src), policy_(policy), line_(first_line), depth_(depth), body_runs_(runs) {
    build_draw_table();
    std::map<std::string, HostValue> values;
    for (const Param& prm : params) {
      program::InputDecl in;
      in.name = prm.name;
      in.is_tensor = prm.value.kind == HostValue::Kind::kTensor;
      in.dtype = in.is_tensor ? prm.value.tensor.dtype : DType::kInt64;
      if (in.is_tensor) {
        in.sizes = prm.value.tensor.sizes;
        in.dims.assign(in.sizes.size(), DimMode::kStatic);
      }
      p_.inputs.push_back(in);
      values.emplace(prm.name, prm.value);
      vars_.push_back(Var{prm.name, prm.value});
      if (prm.may_be_unbacked) unbacked_vars_.insert(prm.name);
    }
    eager_ = std::make_unique<eager::Session>(p_, values);
  }

  GeneratedProgram run() {
    add_inputs();
    eager_ = std::make_unique<eager::Session>(p_);
    draw_statements(static_cast<int>(src_.range(policy_.min_statements, policy_.max_statements)));
    finish();
    eager_->run(p_.body.back());  // the return: every name it reads was accepted
    return GeneratedProgram{p_, eager_->result()};
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
  // Whether a value may have unbacked symbols in its sizes, strides or value: it calls a
  // data-dependent op or reads a value that may.
  bool may_be_unbacked(const ExprPtr& e) const {
    bool found = false;
    program::for_each_subexpr(e, [&](const program::Expr& x) {
      found = found || (x.kind == program::Expr::Kind::kVar && unbacked_vars_.count(x.name) > 0) ||
              (x.kind == program::Expr::Kind::kCall && program::schema(x.op).allocates_unbacked);
    });
    return found;
  }
  static bool is_int(const HostValue& v) { return v.kind == HostValue::Kind::kInt; }
  static int64_t rank(const HostValue& v) { return static_cast<int64_t>(v.tensor.sizes.size()); }

  ExprPtr dim_lit(const HostValue& t, int64_t* dim = nullptr) {
    int64_t r = std::max<int64_t>(rank(t), 1);
    int64_t d = src_.range(0, r - 1);
    if (dim) *dim = d;
    return i(src_.chance(1, 4) ? d - r : d);
  }
  // An int expression: a literal or an existing int scalar.
  ExprPtr int_expr(int64_t lo, int64_t hi) {
    const Var* s = src_.chance(1, 2) ? pick(is_int) : nullptr;
    if (s && s->value.i >= lo && s->value.i <= hi) return v(s->name);
    return i(src_.range(lo, hi));
  }

  // Whether a statement may be a call of the op named `name` (swarm testing disables features;
  // helper sub-expressions are exempt, statements are not).
  bool statement_allowed(const char* name) const {
    const program::OpSchema& s = program::schema(*program::op_by_name(name));
    for (program::OpFeature f : policy_.disabled_features) {
      if (s.has(f)) return false;
    }
    return true;
  }

  bool is_dynamic_input_dim0(const std::string& name) const {
    for (const program::InputDecl& in : p_.inputs) {
      if (in.name == name)
        return in.is_tensor && !in.dims.empty() && in.dims[0] == DimMode::kDynamic;
    }
    return false;
  }

  // A boolean mask for `t`: an existing bool tensor of t's shape (a mask shared by several
  // index/masked_select calls shares their data-dependent size through the memo), a new named
  // mask statement that later calls may share, or `cmp(t, c)` inline.
  ExprPtr mask_for(const Var& t, const char* cmp, int64_t c) {
    std::vector<int64_t> shape = t.value.tensor.sizes;
    if (src_.chance(2, 3)) {
      if (const Var* m = pick([&](const HostValue& x) {
            return is_tensor(x) && x.tensor.dtype == DType::kBool && x.tensor.sizes == shape;
          })) {
        return v(m->name);
      }
    }
    if (src_.chance(1, 2) && statement_allowed(cmp)) {
      std::string name = "k" + std::to_string(line_);
      if (accept(program::ProgramBuilder::assign_stmt(name, call(cmp, {v(t.name), i(c)})), name)) {
        return v(name);
      }
    }
    return call(cmp, {v(t.name), i(c)});
  }

  // ---- statements ----
  // What one statement draw can produce: an op (by family weight x its ops.def weight within the
  // family), a check or a static if. One weighted draw over this table: a family with no drawable
  // op (all weights 0, or disabled by the swarm policy) has no entry, so it never wastes a draw.
  struct Draw {
    enum class Kind { kOp, kCheck, kIf, kHigherOrder } kind;
    OpKind op{};
  };
  void build_draw_table() {
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
  }
  void add_draw(Draw d, uint64_t weight) {
    if (weight == 0) return;
    draws_.push_back(d);
    draw_weights_.push_back(static_cast<uint32_t>(std::min<uint64_t>(weight, UINT32_MAX)));
  }

  // A 1-D i64 tensor variable (repeats, indices).
  const Var* int_vector() {
    return pick([](const HostValue& x) {
      return is_tensor(x) && x.tensor.dtype == DType::kInt64 && x.tensor.sizes.size() == 1;
    });
  }

  // A call of `op` on existing values (null when no suitable operand exists). The switch lists
  // every op: a new row in ops.def does not compile until the generator can make it.
  ExprPtr candidate(OpKind op) {
    const Var* t = pick(is_tensor);
    if (!t) return nullptr;
    const HostValue& tv = t->value;
    const std::string name = program::op_name(op);
    auto size_expr = [&]() { return call("size", {v(t->name), dim_lit(tv)}); };
    switch (op) {
      // creation, sized by existing (possibly data-dependent) sizes
      case OpKind::kZeros:
      case OpKind::kOnes:
      case OpKind::kFull: {
        std::vector<ExprPtr> shape;
        if (src_.chance(1, 2)) shape.push_back(size_expr());
        shape.push_back(i(src_.range(1, 4)));
        if (op == OpKind::kZeros) return call(name, {list(shape)});
        if (op == OpKind::kOnes) return call(name, {list(shape), dt(pick_dtype())});
        return call(name, {list(shape), f(0.5 * static_cast<double>(src_.range(-4, 4)))});
      }
      case OpKind::kArange:
        return call(name, {call("numel", {v(t->name)})});
        // pointwise: on a tensor (and a same-shaped tensor or a literal), or on an int scalar
#define SF_OP SF_ELEMENTWISE_BINARY_CASE
#include "engine/program/ops.def"
        {
          ExprPtr lhs = v(t->name);
          ExprPtr rhs = i(src_.range(1, 3));
          const Var* s = src_.chance(1, 4) ? pick(is_int) : nullptr;
          if (s) {
            lhs = v(s->name);  // SymInt arithmetic
            // Half the time // and % divide by another int (an item() that may be negative, a
            // size): rules for FloorDiv and Mod over a divisor of unknown sign are where unsound
            // rewrites hide. Eager drops a statement that divides by zero.
            if ((op == OpKind::kFloorDiv || op == OpKind::kRemainder) && src_.chance(1, 2)) {
              if (const Var* d = pick(is_int)) {
                rhs = v(d->name);
                // Sometimes a small literal of either sign by that int: -2 // s0 is -1, not 0.
                if (src_.chance(1, 3)) lhs = i(src_.range(-3, 3));
              }
            }
          } else if (const Var* o = pick([&](const HostValue& x) {
                       return is_tensor(x) && x.tensor.sizes == tv.tensor.sizes;
                     });
                     o && src_.chance(2, 3)) {
            rhs = v(o->name);
          } else if ((op == OpKind::kFloorDiv || op == OpKind::kRemainder) && src_.chance(1, 2)) {
            // A tensor divided by an int scalar (an item() of either sign, a size): the
            // division's rules meet a data-dependent divisor at the tensor level too.
            if (const Var* d = pick(is_int)) rhs = v(d->name);
          }
          bool infix_op = op == OpKind::kAdd || op == OpKind::kSub || op == OpKind::kMul ||
                          op == OpKind::kLt || op == OpKind::kLe;
          return infix_op ? infix(name, lhs, rhs) : call(name, {lhs, rhs});
        }
#define SF_OP SF_ELEMENTWISE_UNARY_CASE
#include "engine/program/ops.def"
      case OpKind::kRelu:
        return call(name, {v(t->name)});
      case OpKind::kTo:
        return call(name, {v(t->name), dt(pick_dtype())});
      case OpKind::kWhere:
        return call(name, {call("gt", {v(t->name), i(0)}), v(t->name), i(src_.range(-2, 2))});
      // reductions
      case OpKind::kSum:
      case OpKind::kAmax:
      case OpKind::kAmin:
      case OpKind::kAny:
      case OpKind::kAll:
      case OpKind::kCountNonzero: {
        if (src_.chance(1, 3)) return call(name, {v(t->name)});
        std::vector<std::pair<std::string, ExprPtr>> kw;
        if (op != OpKind::kCountNonzero && src_.chance(1, 3)) kw.emplace_back("keepdim", b(true));
        return call(name, {v(t->name), list({dim_lit(tv)})}, kw);
      }
      // views
      case OpKind::kView: {
        // Over backed sizes the trace decides a view as eager does (its guards read the same
        // numbers); over unbacked ones a layout eager views may not be provably viewable (a
        // slice clamped to Min(5, u0) under a stride of u0), and the trace refuses it as PyTorch
        // does: then the program is no longer valid by construction.
        views_strided_ = unbacked_vars_.count(t->name) > 0;
        size_t form = src_.pick(rank(tv) >= 2 ? 4 : 3);
        std::vector<ExprPtr> shape = form == 0   ? std::vector<ExprPtr>{i(-1)}
                                     : form == 1 ? std::vector<ExprPtr>{i(-1), i(1)}
                                     : form == 2 ? std::vector<ExprPtr>{i(1), i(-1)}
                                                 : std::vector<ExprPtr>{size_expr(), i(-1)};
        return call(name, {v(t->name), list(shape)});
      }
      case OpKind::kReshape:
        return call(name, {v(t->name), list({i(-1)})});
      case OpKind::kPermute: {
        std::vector<ExprPtr> dims;
        for (int64_t d = rank(tv); d-- > 0;) dims.push_back(i(d));
        return call(name, {v(t->name), list(dims)});
      }
      case OpKind::kTranspose:
        return call(name, {v(t->name), dim_lit(tv), dim_lit(tv)});
      case OpKind::kUnsqueeze:
        return call(name, {v(t->name), i(src_.range(0, rank(tv)))});
      case OpKind::kSqueeze: {
        int64_t d = 0;
        ExprPtr dim = dim_lit(tv, &d);
        squeezes_a_one_ = rank(tv) > 0 && tv.tensor.sizes[static_cast<size_t>(d)] == 1;
        return call(name, {v(t->name), dim});
      }
      case OpKind::kFlatten:
        return call(name, {v(t->name)});
      case OpKind::kSlice:
        return call(
            name, {v(t->name), dim_lit(tv), int_expr(-3, 3), int_expr(-3, 8), i(src_.range(1, 2))});
      case OpKind::kSelect:
        if (rank(tv) == 0 || tv.tensor.sizes[0] == 0) return nullptr;
        return call(name, {v(t->name), i(0), int_expr(-1, 0)});
      case OpKind::kNarrow:
        // A start of -1 counts from the end; from an unbacked value its sign is unknown to the
        // trace (narrow then slices to a fresh size equated with the length).
        if (rank(tv) == 0 || tv.tensor.sizes[0] == 0)
          return call(name, {v(t->name), i(0), i(0), i(0)});
        return call(name, {v(t->name), i(0), int_expr(-1, 0), i(1)});
      case OpKind::kExpand: {
        std::vector<ExprPtr> shape;
        shape.push_back(i(src_.range(1, 3)));
        for (int64_t d = 0; d < rank(tv); ++d) shape.push_back(i(-1));
        return call(name, {v(t->name), list(shape)});
      }
      // joins and gathers
      case OpKind::kCat:
      case OpKind::kStack: {
        const Var* o =
            pick([&](const HostValue& x) { return is_tensor(x) && rank(x) == rank(tv); });
        std::vector<ExprPtr> items{v(t->name), v(o ? o->name : t->name)};
        return call(name, {list(items), i(0)});
      }
      case OpKind::kIndexSelect: {
        const Var* idx = int_vector();
        if (!idx) return nullptr;
        int64_t n = std::max<int64_t>(1, rank(tv) ? tv.tensor.sizes[0] : 1);
        return call(name, {v(t->name), i(0), call("remainder", {v(idx->name), i(n)})});
      }
      // data-dependent
      case OpKind::kNonzero:
        return call(name, {v(t->name)});
      // mask_for may append a statement (and so move vars_): read t's name first.
      case OpKind::kIndex:
      case OpKind::kMaskedSelect: {
        std::string tensor = t->name;
        ExprPtr mask = op == OpKind::kIndex ? mask_for(*t, "gt", 0) : mask_for(*t, "ne", 1);
        return call(name, {v(tensor), mask});
      }
      case OpKind::kUnique:
        return call(name, {v(t->name)},
                    src_.chance(1, 2)
                        ? std::vector<std::pair<std::string, ExprPtr>>{{"return_counts", b(true)}}
                        : std::vector<std::pair<std::string, ExprPtr>>{});
      case OpKind::kItem: {
        // An int (sum of ints, a count), a float (sum of floats) or a bool (any/all: a SymBool
        // bound through its int indicator).
        static const char* const kReducers[] = {"sum", "count_nonzero", "any", "all"};
        const char* reducer = kReducers[src_.pick(4)];
        ExprPtr operand = v(t->name);
        if (std::string(reducer) == "all") operand = call("ge", {v(t->name), i(src_.range(-1, 0))});
        return call(name, {call(reducer, {operand})});
      }
      case OpKind::kTolist:  // a 1-D tensor of static length 2
        return call(
            name,
            {call("stack", {list({call("count_nonzero", {v(t->name)}),
                                  call("count_nonzero", {call("gt", {v(t->name), i(0)})})})})});
      case OpKind::kRepeatInterleave: {
        const Var* r = int_vector();
        if (!r) return nullptr;
        // Repair, not reject: repeats in [0, 2] keep the output within twice the input's length
        // (abs alone lets chains of repeat_interleave grow tensors to millions of elements).
        return call(name, {call("remainder", {call("abs", {v(r->name)}), i(3)})});
      }
      // scalars
      case OpKind::kSize:
        return size_expr();
      case OpKind::kStride:
        return call(name, {v(t->name), dim_lit(tv)});
      case OpKind::kNumel:
        return call(name, {v(t->name)});
      case OpKind::kMin:
      case OpKind::kMax: {
        const Var* s = pick(is_int);
        ExprPtr a = s ? v(s->name) : size_expr();
        return op == OpKind::kMin ? call(name, {a, call("numel", {v(t->name)})})
                                  : call(name, {a, i(src_.range(0, 2))});
      }
      case OpKind::kAddInplace:  // two statements: see try_mutation
        return nullptr;
    }
    return nullptr;
  }

  // Check statements over data-dependent scalars (the tracer records deferred asserts): an int
  // against a size (<=, or == when they are equal: unbacked = backed replacements), an int as a
  // size (check_is_size, maybe with a max), an int's divisibility (n % d == 0), a bool
  // (check(b)), or a float against a literal. Mostly true on the program's inputs; sometimes
  // false on purpose (the compiled program must then raise like eager).
  bool try_check() {
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

  // ones([n]) + t for a 1-D t: n (0 or 1, just checked as a size) is a broadcast size. A backed n
  // is specialized to its value; an unbacked one is assumed not 1 by the trace (the compiled
  // program then raises where eager broadcasts). Eager drops it when 0 cannot broadcast.
  void broadcast_by(const Var& n) {
    const Var* t = pick([](const HostValue& x) { return is_tensor(x) && rank(x) == 1; });
    if (!t) return;
    std::string name = "v" + std::to_string(line_);
    // Broadcasting by a size of 1 is what the trace assumes away for an unbacked one (the
    // size-oblivious rule): the program may then be rejected rightly.
    if (accept(program::ProgramBuilder::assign_stmt(
                   name, call("add", {call("ones", {list({v(n.name)})}), v(t->name)})),
               name)) {
      size_oblivious_squeeze_ = size_oblivious_squeeze_ || n.value.i == 1;
    }
  }

  // Equal sizes, one of them data-dependent: check(size(a, 0) == size(b, 0)) (a replacement of
  // an unbacked size by a backed one or by another unbacked one, as torch._check does).
  bool try_size_equality() {
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
  bool try_mutation() {
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
    Stmt st = program::ProgramBuilder::assign_stmt(name + "_", call("add_", {v(name), i(1)}));
    if (!accept(st, name + "_")) return false;
    // `name` now holds stale values in vars_: later statements use the mutated alias only.
    vars_.erase(
        std::remove_if(vars_.begin(), vars_.end(), [&](const Var& x) { return x.name == name; }),
        vars_.end());
    std::string after = "q" + std::to_string(line_);
    if (query) accept(program::ProgramBuilder::assign_stmt(after, query_of(name + "_")), after);
    return true;
  }

  // A static if on a size (guards when backed; a data-dependent error when unbacked, on purpose),
  // or half the time on the condition of an earlier check: what torch._check is for (the trace
  // must decide it from the recorded fact, #145681).
  bool try_if() {
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

  // ---- cond / while_loop over generated functions ----

  static Stmt ret_stmt(std::vector<ExprPtr> values) {
    Stmt r;
    r.kind = Stmt::Kind::kReturn;
    r.returns = std::move(values);
    return r;
  }

  // Appends the HOP statement with its functions defined first; on rejection the functions go
  // too. Its outputs may hold unbacked symbols (merged sizes, loop ints).
  bool accept_higher_order(Stmt st, std::vector<program::FunctionDef> fns) {
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

  // A drawn function body: its statements (a prelude first), the values they hold, and the
  // functions its own cond / while_loop statements define (the caller defines them first).
  struct Body {
    std::vector<Stmt> stmts;
    std::vector<Var> vars;
    std::vector<program::FunctionDef> functions;
  };
  // `incremented`: a parameter the prelude adds 1 to in place (its recorded value follows).
  Body draw_body(const std::vector<Param>& params, bool runs, std::vector<Stmt> prelude,
                 const std::string& incremented = "") {
    // Its lines (and so the names of its own functions) come after the caller's current one.
    Generator g(src_, policy_, params, depth_ + 1, runs, line_ + 1);
    for (Stmt& st : prelude) {
      std::vector<std::string> names = st.targets;
      g.accept(std::move(st), names);
    }
    if (!incremented.empty()) g.added_one(incremented);
    // Bodies are shorter than programs, nested ones shorter still (the size budget).
    g.draw_statements(static_cast<int>(src_.range(1, depth_ == 0 ? 4 : 2)));
    line_ = g.line_;
    size_oblivious_squeeze_ = size_oblivious_squeeze_ || g.size_oblivious_squeeze_;
    strided_view_ = strided_view_ || g.strided_view_;
    failing_check_kept_ = failing_check_kept_ || g.failing_check_kept_;
    return Body{std::move(g.p_.body), std::move(g.vars_), std::move(g.p_.functions)};
  }

  // Half the time a body's first statement: `d = nonzero(nonzero_of)` or `d = item(sum of
  // param)`, a data-dependent value the body's own symbols come from (when the op is allowed).
  std::vector<Stmt> data_dependent_prelude(const std::string& param, ExprPtr nonzero_of) {
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

  static bool is_numeric_tensor(const HostValue& x) {
    return is_tensor(x) && !x.tensor.sizes.empty() && x.tensor.dtype != DType::kBool;
  }
  static bool truth(const HostValue& x) {
    return x.kind == HostValue::Kind::kBool ? x.b : x.tensor.numel() > 0 && x.tensor.at_int(0);
  }
  // The most recent of `vars` that `pred` accepts, preferring one the body computed.
  const Var* last_of(const std::vector<Var>& vars, size_t params,
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
  bool try_cond() {
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
  bool try_while_loop() {
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
  bool try_invoke_subgraph() {
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
  bool try_map() {
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
    auto numeric = [](const HostValue& x) {
      return is_tensor(x) && x.tensor.dtype != DType::kBool;
    };
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
  bool try_scan() {
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
    auto numeric = [](const HostValue& x) {
      return is_tensor(x) && x.tensor.dtype != DType::kBool;
    };
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
  bool try_associative_scan() {
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

  // What a region that adds 1 to its operand in place did to the caller's tensor `name` (and to
  // every name of it: the values recorded for them are the same tensor's).
  void added_one(const std::string& name) {
    for (Var& var : vars_) {
      if (var.name != name) continue;
      for (int64_t& e : var.value.tensor.ints) e += 1;
      for (float& e : var.value.tensor.floats) e += 1;
    }
  }

  // n statement draws, each dropped when 8 attempts cannot make it valid.
  void draw_statements(int n) {
    for (int i = 0; i < n; ++i) {
      for (int attempt = 0; attempt < 8; ++attempt) {
        if (try_statement()) break;
      }
    }
  }

  bool try_statement() {
    if (draws_.empty()) return false;
    const Draw& d = draws_[src_.weighted(draw_weights_)];
    if (d.kind == Draw::Kind::kCheck) return src_.chance(1, 3) ? try_size_equality() : try_check();
    // A static if in a body would guard inside a subgraph: not drawn there.
    if (d.kind == Draw::Kind::kIf) return depth_ == 0 && try_if();
    if (d.kind == Draw::Kind::kHigherOrder) {
      if (depth_ >= kMaxBodyDepth) return false;
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
    if (d.op == OpKind::kAddInplace) return try_mutation();
    squeezes_a_one_ = false;
    views_strided_ = false;
    ExprPtr e = candidate(d.op);
    if (!e) return false;
    std::string name = "v" + std::to_string(line_);
    Stmt st = program::ProgramBuilder::assign_stmt(name, e);
    if (returns_pair(*e)) {
      // A multi-output op is unpacked, so later statements read each of its outputs (a binding
      // path through [0] and one through [1]).
      st.targets = {name + "a", name + "b"};
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
  void repeat_as_memo_hit(const ExprPtr& e) {
    std::string again = "v" + std::to_string(line_);
    if (!accept(program::ProgramBuilder::assign_stmt(again, e), again)) return;
    if (!is_tensor(vars_.back().value) || !src_.chance(1, 2)) return;
    std::string fed = "v" + std::to_string(line_);
    accept(program::ProgramBuilder::assign_stmt(fed, call("nonzero", {v(again)})), fed);
  }

  // unique(x, return_counts=True) gives (values, counts); tolist of the length-2 stack gives two
  // ints.
  static bool returns_pair(const program::Expr& e) {
    if (e.kind != program::Expr::Kind::kCall) return false;
    if (e.op == OpKind::kTolist) return true;
    if (e.op != OpKind::kUnique) return false;
    for (const auto& [key, value] : e.kwargs) {
      if (key == "return_counts" && value->kind == program::Expr::Kind::kBool && value->bool_value)
        return true;
    }
    return false;
  }

  // Appends `st` if eager accepts it after the statements so far (returning each of `names`,
  // as the program's return would), recording their values.
  bool accept(Stmt st, const std::vector<std::string>& names) {
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
  bool accept(Stmt st, const std::string& name) {
    return accept(std::move(st),
                  name.empty() ? std::vector<std::string>{} : std::vector<std::string>{name});
  }

  // Whether a named value is the operand of two data-dependent calls (in the program or in one
  // function body): their results share a symbol through the memo, which inference mode turns
  // off.
  bool shares_a_memo() const {
    auto shares = [](const std::vector<Stmt>& body) {
      std::map<std::string, int> reads;
      auto count = [&](const program::Expr& e) {
        if (e.kind != program::Expr::Kind::kCall || !program::schema(e.op).allocates_unbacked)
          return;
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

  FuzzSource& src_;
  const ProgramPolicy& policy_;
  Program p_;
  std::unique_ptr<eager::Session> eager_;  // the statements accepted so far, run
  // Numbers statements; shared with the bodies drawn for this program, so the names of their
  // functions are unique in it.
  int line_ = 1;
  std::vector<Var> vars_;
  std::vector<Draw> draws_;  // build_draw_table
  std::vector<uint32_t> draw_weights_;
  bool squeezes_a_one_ = false;          // the last candidate squeezes a dim of size 1
  bool size_oblivious_squeeze_ = false;  // an accepted statement did
  bool views_strided_ = false;  // the last candidate is a view that unbacked sizes may refuse
  bool strided_view_ = false;   // an accepted statement is
  std::set<std::string> unbacked_vars_;    // values that may hold unbacked symbols
  static constexpr int kMaxBodyDepth = 2;  // a cond / while_loop nests in at most one other
  int depth_ = 0;                          // 0: the program; n: a body nested n deep
  bool body_runs_ = true;                  // eager runs this body (see the body constructor)
  bool failing_check_kept_ = false;        // an untaken branch keeps a check that fails
};

}  // namespace

program::Program generate_program(FuzzSource& src, const ProgramPolicy& policy) {
  return Generator(src, policy).run().program;
}

GeneratedProgram generate_program_with_result(FuzzSource& src, const ProgramPolicy& policy) {
  return Generator(src, policy).run();
}

}  // namespace sf::fuzz
