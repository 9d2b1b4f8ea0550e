// Facts are read from the ShapeEnv's const views (oracles never call its reasoning).
#include "oracles/smt/facts.h"

#include <cmath>
#include <functional>
#include <limits>

#include "engine/sym/make.h"
#include "oracles/smt/deadline.h"

namespace sf::smt {

using sym::ExprRef;

std::vector<Fact> range_facts(const ExprRef& s, const sym::ValueRange& r, bool detailed_label) {
  std::vector<Fact> out;
  std::string label = detailed_label ? "range " + s->str() + " " + r.str() : "range";
  if (r.is_float()) {
    if (std::isfinite(r.flo())) out.push_back({sym::le(sym::real(r.flo()), s), label});
    if (std::isfinite(r.fhi())) out.push_back({sym::le(s, sym::real(r.fhi())), label});
    return out;
  }
  // The int64 extremes bound nothing a size or scalar can take, and stating them invites
  // overflow when a fact is negated (INT64_MIN has no int64 negation).
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (r.lo().is_finite() && r.lo().value() != kMin) {
    out.push_back({sym::le(sym::integer(r.lo().value()), s), label});
  }
  if (r.hi().is_finite() && r.hi().value() != kMax) {
    out.push_back({sym::le(s, sym::integer(r.hi().value())), label});
  }
  return out;
}

const std::vector<Fact>& memo_range_facts(const ExprRef& s, const sym::ValueRange& r,
                                          FactMemo& memo) {
  auto it = memo.ranges.find(s.get());
  if (it == memo.ranges.end() || !(it->second.first == r)) {
    it = memo.ranges.insert_or_assign(s.get(), std::make_pair(r, range_facts(s, r, false))).first;
  }
  return it->second.second;
}

Fact replacement_fact(const ExprRef& s, const ExprRef& tgt, bool detailed_label, FactMemo* memo) {
  if (detailed_label) memo = nullptr;  // the memo's facts carry the kind only
  if (memo) {
    auto it = memo->replacements.find(s.get());
    if (it != memo->replacements.end() && it->second.first == tgt.get()) return it->second.second;
  }
  ExprRef lhs = s, rhs = tgt;
  if (s->is_float() != tgt->is_float()) {
    lhs = s->is_float() ? s : sym::to_float(s);
    rhs = tgt->is_float() ? tgt : sym::to_float(tgt);
  }
  Fact f{sym::eq(lhs, rhs), detailed_label ? "replacement " + s->str() + " -> " + tgt->str()
                                           : std::string("replacement")};
  if (memo) memo->replacements.insert_or_assign(s.get(), std::make_pair(tgt.get(), f));
  return f;
}

std::vector<Fact> assertion_facts(const ShapeEnv& env, bool detailed_labels) {
  std::vector<Fact> out;
  auto label = [&](const char* kind, const std::function<std::string()>& details) {
    return detailed_labels ? details() : std::string(kind);
  };
  // Loops over pairs by name, not structured bindings: clang 14 cannot capture those in lambdas.
  for (const auto& axiom : env.assertions().axioms()) {
    const ExprRef& e = axiom.first;
    const bool value = axiom.second;
    out.push_back({value ? e : sym::not_(e), label("axiom", [&] {
                     return "axiom " + e->str() + " == " + (value ? "True" : "False");
                   })});
  }
  for (const auto& [key, ras] : env.assertions().deferred()) {
    for (const RuntimeAssert& ra : ras) {
      out.push_back({ra.expr, label("deferred assert", [&] {
                       return "deferred assert " + ra.expr->str() +
                              (ra.msg.empty() ? "" : " ('" + ra.msg + "')");
                     })});
    }
  }
  for (const ShapeGuard& g : env.assertions().guards()) {
    out.push_back({g.expr, label("guard", [&] { return "guard " + g.expr->str(); })});
  }
  return out;
}

std::vector<Fact> env_facts(const ShapeEnv& env, bool detailed_labels, FactMemo* memo) {
  std::vector<Fact> out;
  if (detailed_labels) memo = nullptr;  // the memo's facts carry the kind only
  for (const auto& [s, r] : env.range_table().ranges()) {
    if (memo) {
      const std::vector<Fact>& fs = memo_range_facts(s, r, *memo);
      out.insert(out.end(), fs.begin(), fs.end());
      continue;
    }
    for (Fact& f : range_facts(s, r, detailed_labels)) out.push_back(std::move(f));
  }
  for (const auto& [s, tgt] : env.replacement_table().entries()) {
    out.push_back(replacement_fact(s, tgt, detailed_labels, memo));
  }
  for (Fact& f : assertion_facts(env, detailed_labels)) out.push_back(std::move(f));
  return out;
}

void assume_all(Session& session, const std::vector<Fact>& facts) {
  for (const Fact& f : facts) {
    // Past the oracle's deadline every query is unknown without solving: the rest need not be
    // encoded.
    if (deadline_passed()) return;
    if (f.expr->is(sym::ExprKind::kBoolConst) && f.expr->bool_value()) continue;
    session.assume(f.expr, f.label);
  }
}

}  // namespace sf::smt
