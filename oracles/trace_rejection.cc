// The wrong-rejection rules (docs/decisions.md "Wrong rejections anywhere"), recomputed from the
// eager run and the rejected trace's recorded state, never with the ShapeEnv's own evaluation.
#include "oracles/trace_rejection.h"

#include <variant>

#include "engine/sym/make.h"
#include "engine/sym/walk.h"

namespace sf::oracles {
namespace {

// `e` with the recorded replacements substituted until nothing changes (they may chain).
sym::ExprRef substitute_replacements(sym::ExprRef e, const sym::ExprMap& map) {
  for (int round = 0; round < 8 && !map.empty(); ++round) {
    sym::ExprRef next = sym::xreplace(e, map);
    if (next == e) break;
    e = next;
  }
  return e;
}

// The range of a sum of distinct symbols with coefficients ±1 plus a constant, exact by interval
// arithmetic; none for any other expression.
std::optional<std::pair<sym::ExtInt, sym::ExtInt>> unit_sum_range(const sym::ExprRef& d,
                                                                  const ShapeEnv& env) {
  std::vector<sym::ExprRef> terms =
      d->is(sym::ExprKind::kAdd) ? d->args() : std::vector<sym::ExprRef>{d};
  sym::ExtInt lo = 0, hi = 0;
  std::vector<const sym::Expr*> seen;
  for (const sym::ExprRef& t : terms) {
    if (t->is(sym::ExprKind::kInteger)) {
      lo = lo + t->int_value();
      hi = hi + t->int_value();
      continue;
    }
    int64_t coef = 1;
    sym::ExprRef s = t;
    if (t->is(sym::ExprKind::kMul) && t->num_args() == 2 &&
        t->arg(0)->is(sym::ExprKind::kInteger)) {
      coef = t->arg(0)->int_value();
      s = t->arg(1);
    }
    if ((coef != 1 && coef != -1) || !s->is(sym::ExprKind::kSymbol) || !s->is_int()) {
      return std::nullopt;
    }
    for (const sym::Expr* o : seen) {
      if (o == s.get()) return std::nullopt;
    }
    seen.push_back(s.get());
    auto it = env.var_to_range().find(s);
    if (it == env.var_to_range().end() || !it->second.is_int()) return std::nullopt;
    // A lower bound is never +oo nor an upper one -oo, so no sum below meets oo - oo.
    sym::ExtInt slo = it->second.lo(), shi = it->second.hi();
    lo = coef == 1 ? lo + slo : lo - shi;
    hi = coef == 1 ? hi + shi : hi - slo;
  }
  return std::make_pair(lo, hi);
}

// What the ranges say of a relation over a unit sum (d = rhs - lhs, as sym::relation_difference).
std::optional<bool> decided_by_ranges(const sym::ExprRef& rel, const ShapeEnv& env) {
  if (!rel->is_relation() || sym::involves_floats(rel)) return std::nullopt;
  sym::ExprRef d = sym::sub(rel->arg(1), rel->arg(0));
  auto range = unit_sum_range(d, env);
  if (!range) return std::nullopt;
  auto [lo, hi] = *range;
  const sym::ExtInt zero = 0;
  switch (rel->kind()) {
    case sym::ExprKind::kLe:  // d >= 0
      if (lo >= zero) return true;
      if (hi < zero) return false;
      return std::nullopt;
    case sym::ExprKind::kLt:  // d > 0
      if (lo > zero) return true;
      if (hi <= zero) return false;
      return std::nullopt;
    case sym::ExprKind::kEq:
    case sym::ExprKind::kNe: {
      std::optional<bool> eq;
      if (lo == zero && hi == zero) eq = true;
      if (lo > zero || hi < zero) eq = false;
      if (!eq) return std::nullopt;
      return rel->is(sym::ExprKind::kEq) ? *eq : !*eq;
    }
    default:
      return std::nullopt;
  }
}

// The expression of the evaluate_expr call whose data-dependent guard rejected the trace.
std::optional<sym::ExprRef> failed_guard(const ShapeEnv& env) {
  const EventLog& log = env.events();
  for (auto it = log.rbegin(); it != log.rend(); ++it) {
    if (it->outcome != EventOutcome::user_error(UserErrorKind::kDataDependentGuard)) continue;
    if (const auto* ev = std::get_if<event::EvaluateExpr>(&it->call)) return ev->expr;
    return std::nullopt;  // raised by another call: not a guard the rules describe
  }
  return std::nullopt;
}

}  // namespace

std::optional<bool> decided_by_facts(const sym::ExprRef& guard, const ShapeEnv& env,
                                     std::string* which) {
  sym::ExprMap replacements;
  for (const auto& [s, target] : env.replacements()) replacements[s] = target;
  sym::ExprRef e = substitute_replacements(guard, replacements);
  auto say = [&](const std::string& w) {
    if (which) *which = w;
  };
  if (e->is(sym::ExprKind::kBoolConst)) {
    say("the replacements");
    return e->bool_value();
  }
  sym::ExprRef negated = sym::not_(e);
  for (const auto& [axiom, value] : env.axioms()) {
    sym::ExprRef a = substitute_replacements(axiom, replacements);
    if (a == e || a == negated) {
      say("the recorded fact " + axiom->str() + " == " + (value ? "True" : "False"));
      return a == e ? value : !value;
    }
  }
  if (std::optional<bool> r = decided_by_ranges(e, env)) {
    std::string names;
    for (const sym::ExprRef& s : sym::free_symbols(e)) {
      auto it = env.var_to_range().find(s);
      names += (names.empty() ? "" : ", ") + s->str() + " in " + it->second.str();
    }
    say("the ranges " + names);
    return r;
  }
  return std::nullopt;
}

std::optional<int64_t> pinned_by_facts(const sym::ExprRef& value, const ShapeEnv& env,
                                       std::string* which) {
  sym::ExprMap replacements;
  for (const auto& [s, target] : env.replacements()) replacements[s] = target;
  sym::ExprRef e = substitute_replacements(value, replacements);
  if (e->is(sym::ExprKind::kInteger)) {
    if (which) *which = "the replacements";
    return e->int_value();
  }
  if (sym::involves_floats(e)) return std::nullopt;
  auto range = unit_sum_range(e, env);
  if (!range || range->first != range->second || !range->first.is_finite()) return std::nullopt;
  if (which) *which = "the ranges of " + e->str();
  return range->first.value();
}

std::optional<std::string> rejection_rule(const std::vector<graph::Trace::OpenStatement>& site,
                                          const eager::EagerTrail& eager_run) {
  for (const graph::Trace::OpenStatement& st : site) {
    if (!st.function.empty() && !eager_run.ran(st.function)) {
      return "function '" + st.function +
             "' never ran in eager: the trace traces every cond branch and loop body, as "
             "torch.cond and while_loop do";
    }
  }
  if (!site.empty() && program::is_higher_order(site.back().kind)) {
    return "the statement at line " + std::to_string(site.back().line) +
           " is a higher-order op, whose subgraphs the trace checks together for every input "
           "(torch.cond's branches must agree, a loop body must keep its carries' shapes) where "
           "eager runs one branch on these inputs";
  }
  return size_oblivious_rule(eager_run);
}

std::optional<std::string> size_oblivious_rule(const eager::EagerTrail& eager_run) {
  for (const eager::DataDependentInt& d : eager_run.data_dependent) {
    if (d.value == 0 || d.value == 1) {
      return "size-oblivious: " + d.what +
             (d.line > 0 ? " at line " + std::to_string(d.line) : "") + " was " +
             std::to_string(d.value) +
             " in eager, and the trace takes an unbacked size to be neither 0 nor 1";
    }
  }
  return std::nullopt;
}

RejectionJudgement judge_trace_rejection(const UserErrorInfo& error,
                                         const eager::EagerTrail& eager_run,
                                         const graph::Trace* rejected) {
  using K = RejectionJudgement::Kind;
  const ShapeEnv* env = rejected ? rejected->env.get() : nullptr;
  switch (error.kind) {
    case UserErrorKind::kParse:
    case UserErrorKind::kTooComplex:   // a limit of the tracer's (docs/decisions.md)
    case UserErrorKind::kUnsupported:  // deliberately not modelled
    case UserErrorKind::kGuardFailed:
    case UserErrorKind::kRuntimeAssertFailed:
      return {};
    case UserErrorKind::kDataDependentGuard: {
      if (!env) return {};
      std::optional<sym::ExprRef> guard = failed_guard(*env);
      if (!guard) return {};
      std::string which;
      if (!(*guard)->is_bool()) {  // an int specialized (guard_int): wrong if the facts pin it
        std::optional<int64_t> pinned = pinned_by_facts(*guard, *env, &which);
        if (!pinned) return {};
        return {K::kWrong, "a data-dependent guard on the int " + (*guard)->str() + " though " +
                               which + " pin it to " + std::to_string(*pinned)};
      }
      std::optional<bool> value = decided_by_facts(*guard, *env, &which);
      if (!value) return {};
      return {K::kWrong, "a data-dependent guard on " + (*guard)->str() + " though " + which +
                             " decide it (" + (*value ? "True" : "False") + ")"};
    }
    case UserErrorKind::kInvalidProgram:
    case UserErrorKind::kShape:
    case UserErrorKind::kCheckFailed:
    case UserErrorKind::kValueRange:
    case UserErrorKind::kValue:
    case UserErrorKind::kIndex:
    case UserErrorKind::kZeroDivision:
      break;
  }
  static const std::vector<graph::Trace::OpenStatement> kNoSite;
  if (std::optional<std::string> rule =
          rejection_rule(rejected ? rejected->open_statements : kNoSite, eager_run)) {
    return {K::kExplained, *rule};
  }
  return {K::kWrong, std::string("rejected (") + user_error_kind_name(error.kind) +
                         ") a program eager ran, and no rule explains it: eager ran the function "
                         "the trace rejected it in, the statement is no higher-order op, and "
                         "eager made no data-dependent int that was 0 or 1"};
}

}  // namespace sf::oracles
