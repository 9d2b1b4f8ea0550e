// Z3 proves a sample of the ShapeEnv's logged simplifications from the facts (see the header).
#include "oracles/simplify_by_solver.h"

#include "engine/sym/make.h"
#include "engine/sym/walk.h"

namespace sf::oracles {

namespace {

// expr == simplified, for booleans as (expr and simplified) or (not expr and not simplified).
sym::ExprRef same_value(const sym::ExprRef& a, const sym::ExprRef& b) {
  if (!a->is_bool()) return sym::eq(a, b);
  return sym::or_({sym::and_({a, b}), sym::and_({sym::not_(a), sym::not_(b)})});
}

}  // namespace

std::vector<Violation> check_simplifications_by_solver(
    const std::vector<ShapeEnv::CachedSimplification>& logged, smt::Session& session, size_t sample,
    size_t* proved) {
  std::vector<Violation> out;
  std::vector<const ShapeEnv::CachedSimplification*> judgeable;
  for (const ShapeEnv::CachedSimplification& c : logged) {
    if (c.size_oblivious || sym::involves_floats(c.expr) || sym::involves_floats(c.out)) continue;
    judgeable.push_back(&c);
  }
  if (judgeable.empty() || sample == 0) return out;
  size_t n = judgeable.size(), k = std::min(sample, n);
  for (size_t i = 0; i < k; ++i) {
    // Evenly spread, from the newest back: the last one logged is always among them.
    const ShapeEnv::CachedSimplification& c = *judgeable[n - 1 - i * n / k];
    smt::Result r = session.entails(same_value(c.expr, c.out));
    if (r.status == smt::Status::kUnsat) {
      if (proved) ++*proved;
    } else if (r.status == smt::Status::kSat) {
      out.push_back({"simplify", "simplified " + c.expr->str() + " to " + c.out->str() +
                                     ", but the facts allow " + r.model_str() +
                                     ", where the two differ"});
    }
  }
  return out;
}

}  // namespace sf::oracles
