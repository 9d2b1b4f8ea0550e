// Fact scopes (spec §6.6): what a cond branch or loop body learned stays with it.
#include "engine/base/check.h"
#include "engine/base/faults.h"
#include "engine/shape_env/shape_env.h"

namespace sf {

void ShapeEnv::push_fact_scope() {
  return recorded<event::PushFactScope>(std::tie(), [&]() -> void {
    fact_scopes_.push_back(SavedFacts{ranges_, replacements_, asserts_});
  });
}

std::set<ExprRef, sym::ExprLess> ShapeEnv::local_to_closing_scope(const RangeTable& saved) const {
  std::set<ExprRef, sym::ExprLess> local;
  ranges_.for_each_range([&](const ExprRef& s, const ValueRange&) {
    if (!saved.has(s)) local.insert(s);
  });
  for (bool grew = true; grew;) {  // along chains of renamings
    grew = false;
    for (const auto& [orig, dest] : replacements_.renamings()) {
      if (local.count(orig)) grew = local.insert(dest).second || grew;
    }
  }
  return local;
}

void ShapeEnv::pop_fact_scope() {
  return recorded<event::PopFactScope>(std::tie(), [&]() -> void {
    SF_CHECK(!fact_scopes_.empty()) << "pop_fact_scope without an open scope";
    SavedFacts saved = std::move(fact_scopes_.back());
    fact_scopes_.pop_back();
    if (fault_on(Fault::kBranchFactsGlobal)) return;  // everything learned inside stays
    std::set<ExprRef, sym::ExprLess> local = local_to_closing_scope(saved.ranges);
    ranges_.restore_scope(saved.ranges, [&](const ExprRef& s) { return local.count(s) > 0; });
    replacements_.restore_scope(saved.replacements);
    asserts_.restore_scope(saved.asserts);
    // Every simplification cached inside may have read a fact that is gone; the fact graph is
    // rebuilt from the restored axioms on its next use (their revision moved on).
    simplify_cache_[0].clear();
    simplify_cache_[1].clear();
    ++facts_version_;
    on_state_change();
  });
}

}  // namespace sf
