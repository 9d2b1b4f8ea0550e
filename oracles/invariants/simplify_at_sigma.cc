// Simplifications re-checked at the run's symbol values (issue 30: the campaign judged the
// simplifier only through its consequences, so an unsound rewrite showed up at best as a wrong
// rejection).
#include "oracles/invariants/simplify_at_sigma.h"

#include <cmath>

namespace sf::oracles {

namespace {

bool agree(const sym::Concrete& a, const sym::Concrete& b) {
  bool af = a.type == sym::ExprType::kFloat, bf = b.type == sym::ExprType::kFloat;
  if (!af && !bf) return a == b;
  double x = af ? a.f : a.type == sym::ExprType::kBool ? a.b : static_cast<double>(a.i);
  double y = bf ? b.f : b.type == sym::ExprType::kBool ? b.b : static_cast<double>(b.i);
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (x == y) return true;  // infinities of one sign
  return std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y));
}

}  // namespace

std::vector<Violation> check_simplifications_at(
    const std::vector<ShapeEnv::CachedSimplification>& cached, const sym::Assignment& sigma) {
  std::vector<Violation> out;
  for (const ShapeEnv::CachedSimplification& c : cached) {
    if (c.size_oblivious) continue;
    sym::EvalResult before = sym::evaluate(c.expr, sigma);
    sym::EvalResult after = sym::evaluate(c.out, sigma);
    if (!before.defined || !after.defined || agree(before.value, after.value)) continue;
    out.push_back({"simplify", "simplify(" + c.expr->str() + ") = " + c.out->str() + ", but at σ " +
                                   c.expr->str() + " = " + before.value.str() + " and " +
                                   c.out->str() + " = " + after.value.str()});
  }
  return out;
}

}  // namespace sf::oracles
