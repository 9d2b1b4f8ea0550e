// Static evaluation (pure), guards, deferred runtime asserts, axioms and the public predicates
// (spec §1.6, §2.16–§2.19). Data-dependent guards raise GuardOnDataDependentSymNode.
#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/eval.h"
#include "engine/sym/make.h"
#include "engine/sym/simplify.h"
#include "engine/sym/walk.h"

namespace sf {

using sym::ExprKind;

namespace {

// Walks the tree in place (a symbol list would be allocated, sorted and freed per guard).
bool all_symbols_backed(const ShapeEnv& env, const ExprRef& e) {
  return !sym::any_symbol_ref(e, [&env](const ExprRef& s) { return !env.is_backed(s); });
}

// The guards pass no hint; a shared empty one leaves their frames nothing to destroy when a DDE
// unwinds them (a temporary would need a landing pad, and the unwinder a restart).
const std::optional<ExprRef> kNoHint;

ExprRef constant_of(const sym::ValueRange& r, const ExprRef& e) {
  if (e->is_bool()) return sym::boolean(r.can_be_true());
  if (e->is_float()) return sym::real(r.flo());
  return sym::integer(r.lo().value());
}

}  // namespace

// The value a concrete evaluation may substitute for s: its hint, else its observed real value.
ExprRef ShapeEnv::known_value_of(const ExprRef& s) const {
  std::optional<int64_t> v = symbols_.known_value(s);
  return v ? sym::integer(*v) : ExprRef();
}

void ShapeEnv::reindex_axioms_mentioning(const ExprRef& s) {
  // Uncached: the new forms are stored in the axiom entries, and a form is rarely simplified
  // twice under the same replacements, so a cache entry per form would be written, not read.
  // The fact graph stays as it was while they are rewritten (each rewrite would rebuild it for
  // the next one): the old forms' facts are as true as the new ones'.
  facts_held_ = true;
  asserts_.reindex_mentioning(
      s, [this](const ExprRef& e) { return sym::simplify(replace(e), Ranges(*this, false)); });
  facts_held_ = false;
}

std::optional<ExprRef> ShapeEnv::maybe_evaluate_static(const ExprRef& e, StaticOptions opts) const {
  StaticEvaluation st = evaluate_statically(e, opts);
  if (st.decided) return st.decided;
  if (opts.unbacked_only) return st.partial;
  return std::nullopt;
}

ShapeEnv::StaticEvaluation ShapeEnv::evaluate_statically(const ExprRef& e,
                                                         StaticOptions opts) const {
  Ranges ranges(*this, opts.size_oblivious);
  // The axioms first, on the replaced expression, then the ranges (as upstream: simplify, which
  // does not fold relations by ranges, then the axioms, then bounds). Our simplifier folds
  // relations by ranges, and facts can contradict each other: after a broadcast's Eq(u0, u1),
  // check(u0 >= 5) and check(u1 <= 3) leave disjoint ranges. Folding first would call the
  // recorded Eq(u0, u1) false, and re-running the broadcast would reject the graph the trace
  // accepted; the runtime asserts are what reject such a program.
  ExprRef x;
  ExprRef replaced;
  bool axioms_left_it = false;  // the axioms rewrite nothing in replace(e)
  if (!e->is_ground()) {
    replaced = replace(e);
    // Bug zoo (before PR #145681): the recorded checks were not consulted.
    ExprRef stated =
        fault_on(Fault::kGuardIgnoresAxioms) ? replaced : asserts_.apply_axioms(replaced);
    if (stated != replaced) {
      if (stated->is_ground() && stated->num_args() == 0) return {stated, stated};
      x = simplify(stated, opts.size_oblivious);
    }
    axioms_left_it = stated == replaced;
  }
  if (!x) x = simplify(e, opts.size_oblivious);
  if (opts.compute_hint && !x->is_ground()) {
    x = sym::substitute_symbols(x, [this](const ExprRef& s) { return known_value_of(s); });
    x = sym::simplify(x, ranges);
  }
  // When simplifying changed nothing after replace(), the axioms were applied to this very
  // expression above and rewrote nothing: applying them again would walk it for nothing.
  bool applied_already = axioms_left_it && x == replaced;
  ExprRef with_axioms =
      fault_on(Fault::kGuardIgnoresAxioms) || applied_already ? x : asserts_.apply_axioms(x);
  if (with_axioms != x) x = sym::simplify(with_axioms, ranges);
  if (x->is_ground() && x->num_args() == 0) return {x, x};
  sym::ValueRange r = sym::bound_expr(x, ranges);
  if (r.is_singleton()) {
    ExprRef c = constant_of(r, x);
    return {c, c};
  }
  return {std::nullopt, x};
}

std::string ShapeEnv::dde_message(const ExprRef& expr, bool is_bool) const {
  std::string out = is_bool
                        ? "Could not guard on data-dependent expression "
                        : "Could not extract specialized integer from data-dependent expression ";
  ExprRef shown = sym::substitute_symbols(replace(expr), [this](const ExprRef& s) -> ExprRef {
    std::optional<int64_t> hint = symbols_.hint(s);
    return hint ? sym::integer(*hint) : ExprRef();
  });
  out += shown->str() + " (unhinted: " + simplify(expr)->str() + ").";
  std::string size_like;
  for (const ExprRef& s : sym::free_symbols(expr)) {
    if (ranges_.is_size_like(s)) size_like += (size_like.empty() ? "" : ", ") + s->str();
  }
  out += " (Size-like symbols: " + (size_like.empty() ? std::string("none") : size_like) + ")";
  out += is_bool ? "\nTo fix: if the condition must hold, assert it with check(" + expr->str() +
                       ", \"...\") before this point; if either branch is fine, use "
                       "guard_or_false/guard_or_true or statically_known_true."
                 : "\nTo fix: avoid needing a concrete value here, or bound it with check(...).";
  return out;
}

ExprRef ShapeEnv::defer_user_error(UserErrorKind kind, std::string message) {
  error_deferred_ = true;
  deferred_kind_ = kind;
  deferred_message_ = std::move(message);
  return ExprRef();
}

// Inlined into the public wrapper, which has no locals left to destroy when it calls this: a
// frame the unwinder need not clean up is walked once per phase, with no restart.
inline __attribute__((always_inline)) void ShapeEnv::raise_deferred_error() {
  error_deferred_ = false;
  if (deferred_kind_ == UserErrorKind::kDataDependentGuard) {
    throw GuardOnDataDependentSymNode(deferred_message_);
  }
  throw UserError(deferred_kind_, deferred_message_);
}

ExprRef ShapeEnv::evaluate_expr_recorded(const ExprRef& orig, const std::optional<ExprRef>& hint,
                                         bool size_oblivious, std::optional<bool> fallback,
                                         const std::string& sloc) {
  return recorded<event::EvaluateExpr>(std::tie(orig, hint, size_oblivious, fallback, sloc), [&] {
    return evaluate_expr_deferring(orig, hint, size_oblivious, fallback, sloc);
  });
}

inline __attribute__((always_inline)) ExprRef ShapeEnv::evaluate_expr_inlined(
    const ExprRef& orig, const std::optional<ExprRef>& hint, bool size_oblivious,
    std::optional<bool> fallback, const std::string& sloc) {
  {
    ExprRef out = evaluate_expr_recorded(orig, hint, size_oblivious, fallback, sloc);
    if (out) return out;
  }
  raise_deferred_error();
}

ExprRef ShapeEnv::evaluate_expr(const ExprRef& orig, const std::optional<ExprRef>& hint,
                                bool size_oblivious, std::optional<bool> fallback,
                                const std::string& sloc) {
  return evaluate_expr_inlined(orig, hint, size_oblivious, fallback, sloc);
}

ExprRef ShapeEnv::evaluate_expr_deferring(const ExprRef& orig, const std::optional<ExprRef>& hint,
                                          bool size_oblivious, std::optional<bool> fallback,
                                          const std::string& sloc) {
  if (orig->is_ground() && orig->num_args() == 0) return orig;
  StaticOptions opts;
  opts.size_oblivious = size_oblivious;
  StaticEvaluation st = evaluate_statically(orig, opts);  // both answers at once
  if (st.decided) return *st.decided;

  ExprRef expr = simplify(orig, size_oblivious);
  std::optional<ExprRef> concrete = hint;
  bool emit_assert = false;
  if (!all_symbols_backed(*this, expr)) {
    expr = st.partial;  // what maybe_evaluate_static(orig, unbacked_only) answers
    if (!all_symbols_backed(*this, expr)) {
      if (fallback) return sym::boolean(*fallback);  // guard_or_*: no guard, no assert
      // Unbacked-but-hinted inputs: decide only if the answer does not depend on 0/1.
      if (symbols_.has_oblivious_hints()) {
        auto with_hints = [&](bool at_least_two) {
          return sym::substitute_symbols(expr, [&](const ExprRef& s) -> ExprRef {
            if (std::optional<int64_t> b = symbols_.hint(s)) return sym::integer(*b);
            std::optional<int64_t> o = symbols_.oblivious_hint(s);
            if (!o) return ExprRef();
            return sym::integer(at_least_two ? std::max<int64_t>(2, *o) : *o);
          });
        };
        ExprRef a = sym::simplify(with_hints(false)), b = sym::simplify(with_hints(true));
        if (a->is_ground() && a->num_args() == 0 && a == b) return a;
      }
      // Real values observed for unbacked symbols: use them, but assert instead of guarding.
      ExprRef real =
          sym::substitute_symbols(expr, [this](const ExprRef& s) { return known_value_of(s); });
      real = sym::simplify(real);
      if (real->is_ground() && real->num_args() == 0) {
        concrete = real;
        emit_assert = true;
      } else {
        return defer_user_error(UserErrorKind::kDataDependentGuard,
                                dde_message(orig, orig->is_bool()));
      }
    }
  }
  if (!concrete) {
    sym::Assignment values;
    for (const ExprRef& s : sym::free_symbols(expr)) {
      std::optional<int64_t> h = symbols_.hint(s);
      SF_CHECK(h) << "backed symbol without hint: " << s->str();
      values.emplace(s, sym::Concrete::of_int(*h));
    }
    sym::EvalResult r = sym::evaluate(expr, values);
    if (!r.defined) {
      throw_user_error(UserErrorKind::kZeroDivision,
                       "evaluating " + expr->str() + " on the input hints: " + r.why);
    }
    switch (r.value.type) {
      case sym::ExprType::kBool:
        concrete = sym::boolean(r.value.b);
        break;
      case sym::ExprType::kInt:
        concrete = sym::integer(r.value.i);
        break;
      case sym::ExprType::kFloat:
        concrete = sym::real(r.value.f);
        break;
    }
  }
  ExprRef g = expr->is_bool() ? ((*concrete)->bool_value() ? expr : sym::not_(expr))
                              : sym::eq(expr, *concrete);
  if (g->is(ExprKind::kBoolConst)) return *concrete;
  if (emit_assert) {
    guard_or_defer_runtime_assert(g, "value observed for an unbacked symbol (" + sloc + ")");
    return *concrete;
  }
  maybe_guard_rel(g);
  if (settings_.prefer_deferred_runtime_asserts_over_guards) {
    guard_or_defer_runtime_assert(g, sloc);
  } else {
    asserts_.add_guard(ShapeGuard{g, sloc, size_oblivious});
    add_axioms(g);
    on_state_change();
  }
  return *concrete;
}

bool ShapeEnv::guard_or_defer_runtime_assert(const ExprRef& orig, const std::string& msg) {
  return recorded<event::GuardOrDeferRuntimeAssert>(std::tie(orig, msg), [&]() SF_UNWOUND_INLINE {
    // One static evaluation answers both questions: decided, or what is left of it (the
    // unbacked_only result, which differs from the plain one only in returning that).
    StaticEvaluation st = evaluate_statically(orig, {});
    if (st.decided) return (*st.decided)->bool_value();
    const ExprRef& partial = st.partial;
    if (!settings_.prefer_deferred_runtime_asserts_over_guards &&
        all_symbols_backed(*this, partial)) {
      return evaluate_expr(partial)->bool_value();  // only backed symbols left: a normal guard
    }
    if (asserts_.frozen()) {
      asserts_.count_ignored_while_frozen();
      return true;
    }
    maybe_guard_rel(orig);
    // Store the canonical original, not the replaced form (upstream bug: asserts simplified away).
    asserts_.defer(orig, msg);
    add_axioms(orig);
    on_state_change();
    return true;
  });
}

void ShapeEnv::add_axioms(const ExprRef& g) {
  // As upstream (get_implications of the simplified guard): the guard is simplified once and
  // its implications are built from that form, whose arguments are simplified already, so each
  // implication is its own current form. (Simplifying every implication again cost six
  // simplifications per guard, most of the time of a check.)
  ExprRef sg = simplify(g);
  ExprRef ng = sym::not_(g);
  if (ng->is(ExprKind::kBoolConst)) {
    asserts_.add_axiom(g, true, sg);
  } else if (AssertionStore::negates_simply(sg)) {
    asserts_.add_axiom_and_negation(g, true, sg, ng);
  } else {
    asserts_.add_axiom(g, true, sg);
    asserts_.add_axiom(ng, false, simplify(ng));
  }
  add_implications(sg);
}

void ShapeEnv::add_implications(const ExprRef& g) {
  auto imply = [this](const ExprRef& e, bool v) {
    if (e->is(ExprKind::kBoolConst)) return;
    ExprRef ne = sym::not_(e);
    if (ne->is(ExprKind::kBoolConst)) {
      asserts_.add_axiom(e, v, e);
    } else if (AssertionStore::negates_simply(e)) {
      asserts_.add_axiom_and_negation(e, v, e, ne);  // stores not_(e), which is ne
    } else {
      asserts_.add_axiom(e, v, e);
      asserts_.add_axiom(ne, !v, ne);
    }
  };
  switch (g->kind()) {
    case ExprKind::kAnd:
      for (const ExprRef& a : g->args()) {
        imply(a, true);
        add_implications(a);
      }
      break;
    case ExprKind::kEq:
      imply(sym::le(g->arg(0), g->arg(1)), true);
      imply(sym::le(g->arg(1), g->arg(0)), true);
      break;
    case ExprKind::kLe:
      if (g->arg(0)->is_int() && g->arg(1)->is_int()) {
        // a <= b over the integers: a - 1 < b, hence also a - 1 != b.
        ExprRef a1 = sym::sub(g->arg(0), sym::integer(1));
        imply(sym::le(a1, g->arg(1)), true);
        imply(sym::ne(a1, g->arg(1)), true);
      }
      break;
    case ExprKind::kLt:
      imply(sym::le(g->arg(0), g->arg(1)), true);
      imply(sym::ne(g->arg(0), g->arg(1)), true);
      break;
    case ExprKind::kInteger:
    case ExprKind::kFloat:
    case ExprKind::kBoolConst:
    case ExprKind::kSymbol:
    case ExprKind::kAdd:
    case ExprKind::kMul:
    case ExprKind::kPow:
    case ExprKind::kFloorDiv:
    case ExprKind::kMod:
    case ExprKind::kCleanDiv:
    case ExprKind::kMax:
    case ExprKind::kMin:
    case ExprKind::kWhere:
    case ExprKind::kToFloat:
    case ExprKind::kTruncToInt:
    case ExprKind::kTrueDiv:
    case ExprKind::kNe:
    case ExprKind::kOr:
    case ExprKind::kNot:
      break;
  }
}

bool ShapeEnv::statically_known_true(const SymBool& b) const {
  if (auto c = b.maybe_as_bool()) return *c;
  std::optional<ExprRef> st = maybe_evaluate_static(b.expr());
  return st && (*st)->bool_value();
}

bool ShapeEnv::statically_known_false(const SymBool& b) const {
  if (auto c = b.maybe_as_bool()) return !*c;
  std::optional<ExprRef> st = maybe_evaluate_static(b.expr());
  return st && !(*st)->bool_value();
}

std::optional<bool> ShapeEnv::guard_bool_deferring(const SymBool& b, const std::string& sloc) {
  if (auto c = b.maybe_as_bool()) return *c;
  ExprRef out = evaluate_expr_recorded(b.expr(), kNoHint, false, std::nullopt, sloc);
  if (!out) return std::nullopt;
  return out->bool_value();
}

bool ShapeEnv::guard_bool(const SymBool& b, const std::string& sloc) {
  std::optional<bool> r = guard_bool_deferring(b, sloc);
  if (!r) raise_deferred_error();
  return *r;
}

int64_t ShapeEnv::guard_int(const SymInt& i, const std::string& sloc) {
  if (auto c = i.maybe_as_int()) return *c;
  return evaluate_expr_inlined(i.expr(), kNoHint, false, std::nullopt, sloc)->int_value();
}

bool ShapeEnv::guard_size_oblivious(const SymBool& b, const std::string& sloc) {
  if (auto c = b.maybe_as_bool()) return *c;
  return evaluate_expr_inlined(b.expr(), kNoHint, true, std::nullopt, sloc)->bool_value();
}

bool ShapeEnv::guard_or_false(const SymBool& b) {
  if (auto c = b.maybe_as_bool()) return *c;
  if (settings_.backed_size_oblivious) {
    StaticOptions opts;
    opts.size_oblivious = true;
    std::optional<ExprRef> st = maybe_evaluate_static(b.expr(), opts);
    return st ? (*st)->bool_value() : false;
  }
  return evaluate_expr_inlined(b.expr(), kNoHint, false, false, "")->bool_value();
}

bool ShapeEnv::guard_or_true(const SymBool& b) {
  if (auto c = b.maybe_as_bool()) return *c;
  if (settings_.backed_size_oblivious) {
    StaticOptions opts;
    opts.size_oblivious = true;
    std::optional<ExprRef> st = maybe_evaluate_static(b.expr(), opts);
    return st ? (*st)->bool_value() : true;
  }
  return evaluate_expr_inlined(b.expr(), kNoHint, false, true, "")->bool_value();
}

// As upstream's SymNode.expect_true: a guard only when the condition has a hint, mentions no
// unbacked symbol and deferring is not preferred. Our has_hint may pin an expression through
// ranges (0 <= u0 for a size-like u0), which upstream's structural hint never does, so without
// the unbacked test `check(n <= size(x, 0))` on an unbacked dim became a guard that raised.
std::optional<bool> ShapeEnv::expect_true_deferring(const SymBool& b, const std::string& msg) {
  if (auto c = b.maybe_as_bool()) return *c;
  // The cheap tests first: has_hint substitutes and bounds the expression.
  if (!settings_.prefer_deferred_runtime_asserts_over_guards &&
      !sym::has_free_unbacked_symbols(b.expr()) && has_hint(b.expr())) {
    return guard_bool_deferring(b, msg);
  }
  return guard_or_defer_runtime_assert(b.expr(), msg);
}

bool ShapeEnv::expect_true(const SymBool& b, const std::string& msg) {
  std::optional<bool> r = expect_true_deferring(b, msg);
  if (!r) raise_deferred_error();
  return *r;
}

bool ShapeEnv::expect_size(const SymInt& i, const std::string& msg) {
  bool r = expect_true(sym_ge(i, 0), msg);
  if (r && !has_hint(i.expr()) && i.expr()->is_unbacked_symbol())
    constrain_range_for_size(i.expr());
  return r;
}

bool ShapeEnv::check_deferring(const SymBool& cond, const std::string& msg) {
  std::optional<bool> ok =
      cond.is_constant() ? cond.maybe_as_bool() : expect_true_deferring(cond, msg);
  if (!ok) return false;  // a data-dependent guard, deferred
  if (!*ok) defer_check_failure(cond, msg);
  return *ok;
}

void ShapeEnv::check(const SymBool& cond, const std::string& msg) {
  if (!check_deferring(cond, msg)) raise_deferred_error();
}

template <typename F>
auto ShapeEnv::without_throwing(UserErrorInfo* error, F&& body) -> decltype(body()) {
  SF_CHECK(!error_deferred_) << "a deferred user error was never raised or returned";
  try {
    auto result = body();
    if (error_deferred_) {
      error_deferred_ = false;
      if (error) *error = UserErrorInfo{deferred_kind_, std::move(deferred_message_)};
      return {};
    }
    return result;
  } catch (const UserError& e) {
    error_deferred_ = false;  // whatever the body deferred before this went with it
    if (error) *error = UserErrorInfo{e.kind(), e.what()};
    return {};
  }
}

std::optional<bool> ShapeEnv::try_guard_bool(const SymBool& b, UserErrorInfo* error,
                                             const std::string& sloc) {
  return without_throwing(error, [&] { return guard_bool_deferring(b, sloc); });
}

bool ShapeEnv::try_check(const SymBool& cond, const std::string& msg, UserErrorInfo* error) {
  return without_throwing(error, [&] { return check_deferring(cond, msg); });
}

void ShapeEnv::defer_check_failure(const SymBool& cond, const std::string& msg) {
  defer_user_error(UserErrorKind::kCheckFailed,
                   "check failed: " + (msg.empty() ? std::string("(no message)") : msg) +
                       " — the condition " + cond.str() +
                       " (simplified: " + simplify(cond.expr())->str() +
                       ") is false for every value allowed so far; fix the program or its inputs");
}

void ShapeEnv::check_is_size(const SymInt& i, std::optional<int64_t> max) {
  check(sym_ge(i, 0), "check_is_size(" + i.str() + "): " + i.str() + " >= 0");
  // Only an unbacked symbol is size-like (PR #108685); the fault marks a backed one too.
  bool symbol = i.expr()->is(sym::ExprKind::kSymbol) && i.expr()->is_int();
  if ((!has_hint(i.expr()) && i.expr()->is_unbacked_symbol()) ||
      (symbol && fault_on(Fault::kCheckIsSizeMarksBacked))) {
    constrain_range_for_size(i.expr());
  }
  if (max)
    check(sym_le(i, *max), "check_is_size(" + i.str() + ", max=" + std::to_string(*max) + ")");
}

std::optional<int64_t> ShapeEnv::maybe_size_hint(const ExprRef& e) const {
  ExprRef x =
      sym::substitute_symbols(replace(e), [this](const ExprRef& s) { return known_value_of(s); });
  if (!x->is_ground()) {
    // Ranges may still pin it down (e.g. a symbol replaced by a constant via its range).
    sym::ValueRange r = sym::bound_expr(x, Ranges(*this, false));
    if (r.is_singleton() && !r.is_float()) return r.lo().value();
    return std::nullopt;
  }
  sym::EvalResult r = sym::evaluate(x, {});
  if (!r.defined) return std::nullopt;
  if (r.value.type == sym::ExprType::kBool) return r.value.b ? 1 : 0;
  if (r.value.type == sym::ExprType::kFloat) return static_cast<int64_t>(r.value.f);
  return r.value.i;
}

int64_t ShapeEnv::size_hint(const ExprRef& e) const {
  std::optional<int64_t> h = maybe_size_hint(e);
  if (!h) throw GuardOnDataDependentSymNode(dde_message(e, e->is_bool()));
  return *h;
}

void ShapeEnv::set_unbacked_var_to_val(const ExprRef& s, int64_t value) {
  return recorded<event::SetUnbackedVarToVal>(std::tie(s, value), [&]() -> void {
    SF_CHECK(s->is_unbacked_symbol()) << "set_unbacked_var_to_val on " << s->str();
    symbols_.set_real_value(s, value);
    on_state_change();
  });
}

}  // namespace sf
