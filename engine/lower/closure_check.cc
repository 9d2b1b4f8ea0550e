// INV-19 on the finished plan: every symbol a step uses is defined by an earlier step (directly,
// or through the replacements that map a fresh retrace name or a unified symbol to defined ones).
#include <set>
#include <vector>

#include "engine/base/check.h"
#include "engine/lower/lowering_internal.h"
#include "engine/lower/step_uses.h"
#include "engine/sym/walk.h"

namespace sf::lower::detail {

void Lowering::check_closure() {
  std::set<ExprRef, sym::ExprLess> defined;
  auto available = [&](const ExprRef& s) {
    if (defined.count(s)) return true;
    ExprRef r = env_.replace(s);
    if (r == s) return false;
    for (const ExprRef& x : sym::free_symbols(r)) {
      if (!defined.count(x)) return false;
    }
    return true;
  };
  for (size_t i = 0; i < plan_.steps.size(); ++i) {
    const Step& s = plan_.steps[i];
    if (s.kind == Step::Kind::kBindInput && s.symbol->is(sym::ExprKind::kSymbol) &&
        !defined.count(s.symbol)) {
      defined.insert(s.symbol);  // the input defines it
      continue;
    }
    for_each_step_use(plan_, s, {.expr = [&](const ExprRef& e) {
                        for (const ExprRef& x : sym::free_symbols(e)) {
                          SF_CHECK(available(x)) << "INV-19: plan step " << i << " uses "
                                                 << x->str() << " before any step defines it\n"
                                                 << plan_.print();
                        }
                      }});
    if (s.kind == Step::Kind::kBind) defined.insert(s.symbol);
    for (const auto& [sym_, path] : s.result_binds) defined.insert(sym_);
  }
}

}  // namespace sf::lower::detail
