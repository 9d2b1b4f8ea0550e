// Internal to the program generator: the Generator class, whose methods live in program_gen.cc
// (inputs, the draw table, statements, checks, ifs, mutations, acceptance), gen_candidates.cc
// (each op's candidate arguments), gen_higher_order.cc (cond, while_loop, invoke_subgraph, map,
// scan, associative_scan over generated functions) and gen_families.cc (model-shaped chains).
#pragma once

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
#include "fuzz/gen/program_gen.h"

namespace sf::fuzz::detail {

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

  GeneratedProgram run();

 private:
  // ---- inputs ----
  void add_inputs();

  DType pick_dtype();

  DataSpec data_for(DType d);

  // ---- picking values ----
  std::vector<const Var*> vars_where(const std::function<bool(const HostValue&)>& pred);
  const Var* pick(const std::function<bool(const HostValue&)>& pred);
  static bool is_tensor(const HostValue& v) { return v.kind == HostValue::Kind::kTensor; }
  // Whether a value may have unbacked symbols in its sizes, strides or value: it calls a
  // data-dependent op or reads a value that may.
  bool may_be_unbacked(const ExprPtr& e) const;
  static bool is_int(const HostValue& v) { return v.kind == HostValue::Kind::kInt; }
  static int64_t rank(const HostValue& v) { return static_cast<int64_t>(v.tensor.sizes.size()); }

  ExprPtr dim_lit(const HostValue& t, int64_t* dim = nullptr);
  // An int expression: a literal or an existing int scalar.
  ExprPtr int_expr(int64_t lo, int64_t hi);

  // Whether a statement may be a call of the op named `name` (swarm testing disables features;
  // helper sub-expressions are exempt, statements are not).
  bool statement_allowed(const char* name) const;

  bool is_dynamic_input_dim0(const std::string& name) const;

  // A boolean mask for `t`: an existing bool tensor of t's shape (a mask shared by several
  // index/masked_select calls shares their data-dependent size through the memo), a new named
  // mask statement that later calls may share, or `cmp(t, c)` inline.
  ExprPtr mask_for(const Var& t, const char* cmp, int64_t c);

  // ---- statements ----
  // What one statement draw can produce: an op (by family weight x its ops.def weight within the
  // family), a check or a static if. One weighted draw over this table: a family with no drawable
  // op (all weights 0, or disabled by the swarm policy) has no entry, so it never wastes a draw.
  struct Draw {
    enum class Kind { kOp, kCheck, kIf, kHigherOrder, kModelFamily } kind;
    OpKind op{};
  };
  void build_draw_table();
  void add_draw(Draw d, uint64_t weight);

  // A 1-D i64 tensor variable (repeats, indices).
  const Var* int_vector();
  ExprPtr numeric(const Var& t);

  // A call of `op` on existing values (null when no suitable operand exists). The switch lists
  // every op: a new row in ops.def does not compile until the generator can make it.
  ExprPtr candidate(OpKind op);

  // Check statements over data-dependent scalars (the tracer records deferred asserts): an int
  // against a size (<=, or == when they are equal: unbacked = backed replacements), an int as a
  // size (check_is_size, maybe with a max), an int's divisibility (n % d == 0), a bool
  // (check(b)), or a float against a literal. Mostly true on the program's inputs; sometimes
  // false on purpose (the compiled program must then raise like eager).
  bool try_check();

  // ones([n]) + t for a 1-D t: n (0 or 1, just checked as a size) is a broadcast size. A backed n
  // is specialized to its value; an unbacked one is assumed not 1 by the trace (the compiled
  // program then raises where eager broadcasts). Eager drops it when 0 cannot broadcast.
  void broadcast_by(const Var& n);

  // Equal sizes, one of them data-dependent: check(size(a, 0) == size(b, 0)) (a replacement of
  // an unbacked size by a backed one or by another unbacked one, as torch._check does).
  bool try_size_equality();

  // add_ on a value computed here (not a view, not an input); often with the same
  // data-dependent query (nonzero, or item of a count) on the tensor before and after, which must
  // not share a memo across the mutation.
  bool try_mutation(program::OpKind op);
  // ---- model-shaped program families (gen_families.cc) ----
  bool try_model_family();
  void mixture_of_experts(const std::string& x);
  void detection(const std::string& x);
  void ragged_batch(const std::string& x);
  std::string family_var(const std::string& prefix, const std::string& what) const;
  bool emit(const std::string& name, ExprPtr e);
  bool emit_tuple(const std::vector<std::string>& names, ExprPtr e);
  ExprPtr masked_assignment(const std::string& m);

  // A static if on a size (guards when backed; a data-dependent error when unbacked, on purpose),
  // or half the time on the condition of an earlier check: what torch._check is for (the trace
  // must decide it from the recorded fact, #145681).
  bool try_if();

  // ---- cond / while_loop over generated functions ----

  static Stmt ret_stmt(std::vector<ExprPtr> values);

  // Appends the HOP statement with its functions defined first; on rejection the functions go
  // too. Its outputs may hold unbacked symbols (merged sizes, loop ints).
  bool accept_higher_order(Stmt st, std::vector<program::FunctionDef> fns);

  // A drawn function body: its statements (a prelude first), the values they hold, and the
  // functions its own cond / while_loop statements define (the caller defines them first).
  struct Body {
    std::vector<Stmt> stmts;
    std::vector<Var> vars;
    std::vector<program::FunctionDef> functions;
  };
  // `incremented`: a parameter the prelude adds 1 to in place (its recorded value follows).
  Body draw_body(const std::vector<Param>& params, bool runs, std::vector<Stmt> prelude,
                 const std::string& incremented = "");

  // Half the time a body's first statement: `d = nonzero(nonzero_of)` or `d = item(sum of
  // param)`, a data-dependent value the body's own symbols come from (when the op is allowed).
  std::vector<Stmt> data_dependent_prelude(const std::string& param, ExprPtr nonzero_of);

  static bool is_numeric_tensor(const HostValue& x) {
    return is_tensor(x) && !x.tensor.sizes.empty() && x.tensor.dtype != DType::kBool;
  }
  static bool truth(const HostValue& x) {
    return x.kind == HostValue::Kind::kBool ? x.b : x.tensor.numel() > 0 && x.tensor.at_int(0);
  }
  // The most recent of `vars` that `pred` accepts, preferring one the body computed.
  const Var* last_of(const std::vector<Var>& vars, size_t params,
                     const std::function<bool(const HostValue&)>& pred);

  // cond over a tensor (and sometimes an int), each branch drawn like a program (checks,
  // slices, data-dependent ops; one sometimes starts by filtering the tensor, a size that leaks
  // out of the branch). Both return a fresh dense tensor of one dtype and rank (sizes may differ:
  // a fresh symbol bound at the cond node) and sometimes an int.
  bool try_cond();

  // while_loop counting to a small bound over (i, acc, w); the body is drawn like a program
  // (sometimes starting with a nonzero of the carry itself: the body's memo must not be the
  // caller's, PR #158467), then returns i + 1, acc plus an int it computed, and w - 1 (a carry
  // keeps its shape).
  bool try_while_loop();

  // invoke_subgraph: a region drawn like a program over a tensor (and sometimes an int), which
  // sometimes starts with an item() or a nonzero of its operand, sometimes by adding 1 to it in
  // place (the caller sees it: an auto-functionalized mutation), returning a fresh dense tensor
  // and sometimes an int; called up to three times, again on the same operands (the region is
  // traced once and each call binds its own symbols) or on another tensor of its dtype and rank.
  bool try_invoke_subgraph();

  // map over the rows of a tensor (and sometimes of twice it, a second operand of the same
  // leading size): the function is drawn like a program on the first row (sometimes starting
  // with a nonzero or an item() of it), and returns a sum of what it computed last (a shape the
  // rows determine, so the steps stack) and sometimes its row doubled.
  bool try_map();

  // scan over the rows of a tensor with a one-element running total (a tensor carry: torch's scan
  // takes tensor carries) and sometimes an int carry (a count): the function is drawn like a
  // program on the carries and the first row (sometimes starting with a nonzero of it), adds to
  // the carries what it computed, and returns a sum per row.
  bool try_scan();

  // associative_scan over a dim of a tensor (and sometimes of a second operand of its shape): the
  // combine function is drawn like a program on a left and a right row (sometimes starting with a
  // nonzero or an item() of the right one), then returns an associative combination of the rows
  // (a sum, maximum or minimum; for two f32 operands sometimes a linear recurrence), so the
  // tree order torch evaluates in gives our fold's result. Over fewer than two rows the function
  // never runs: a check in it may fail for these inputs.
  bool try_associative_scan();

  // What a region that adds 1 to its operand in place did to the caller's tensor `name` (and to
  // every name of it: the values recorded for them are the same tensor's).
  void added_one(const std::string& name);

  // n statement draws, each dropped when 8 attempts cannot make it valid.
  void draw_statements(int n);

  bool try_statement();

  // The data-dependent call `e` (just bound) again: a memo hit, whose symbols the
  // first call's extern already defines (a plan must not define them twice, #111823). Half the
  // time the hit feeds another extern (nonzero of it), as a CSE'd index feeds the next op.
  void repeat_as_memo_hit(const ExprPtr& e);

  // How many outputs a call unpacks into (0: one value, not a tuple): unique(x,
  // return_counts=True) gives (values, counts), tolist of the length-2 stack two ints, sort and
  // topk (values, indices), split_with_sizes one view per size.
  static size_t tuple_arity(const program::Expr& e);

  // Appends `st` if eager accepts it after the statements so far (returning each of `names`,
  // as the program's return would), recording their values.
  bool accept(Stmt st, const std::vector<std::string>& names);
  // One name, or none ("") for a statement that binds nothing (a check).
  bool accept(Stmt st, const std::string& name);

  // Whether a named value is the operand of two data-dependent calls (in the program or in one
  // function body): their results share a symbol through the memo, which inference mode turns
  // off.
  bool shares_a_memo() const;

  void finish();

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
  std::set<std::string> unbacked_vars_;  // values that may hold unbacked symbols
  int depth_ = 0;                        // 0: the program; n: a body nested n deep
  bool body_runs_ = true;                // eager runs this body (see the body constructor)
  bool failing_check_kept_ = false;      // an untaken branch keeps a check that fails
};

}  // namespace sf::fuzz::detail
