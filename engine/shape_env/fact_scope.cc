// Fact scopes (spec §6.6): what a cond branch or loop body learned stays with it.
#include "engine/base/check.h"
#include "engine/base/faults.h"
#include "engine/shape_env/shape_env.h"

namespace sf {

void ShapeEnv::push_fact_scope() {
  return recorded(event::PushFactScope{}, [&]() -> void {
    fact_scopes_.push_back(SavedFacts{next_fact_scope_id_++, ranges_, replacements_, asserts_});
  });
}

bool ShapeEnv::local_to_closing_scope(const ExprRef& s, const RangeTable& saved) const {
  if (!saved.has(s)) return true;  // made inside
  auto made = created_in_scope_.find(s.get());
  if (made == created_in_scope_.end()) return false;  // the top level's
  for (const SavedFacts& open : fact_scopes_) {
    if (open.id == made->second) return false;  // an enclosing scope's
  }
  return true;
}

void ShapeEnv::pop_fact_scope() {
  return recorded(event::PopFactScope{}, [&]() -> void {
    SF_CHECK(!fact_scopes_.empty()) << "pop_fact_scope without an open scope";
    SavedFacts saved = std::move(fact_scopes_.back());
    fact_scopes_.pop_back();
    if (fault_on(Fault::kBranchFactsGlobal)) return;  // everything learned inside stays
    ranges_.restore_scope(
        saved.ranges, [&](const ExprRef& s) { return local_to_closing_scope(s, saved.ranges); });
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
