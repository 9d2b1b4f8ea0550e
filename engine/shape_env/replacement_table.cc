// Replacement writes with eager path compression, lookups and renaming chains.
#include "engine/shape_env/replacement_table.h"

#include "engine/base/check.h"
#include "engine/sym/walk.h"

namespace sf {

ExprRef ReplacementTable::find(const ExprRef& s) const {
  auto it = replacements_.find(s);
  return it == replacements_.end() ? s : it->second;
}

std::optional<ExprRef> ReplacementTable::target(const ExprRef& s) const {
  auto it = replacements_.find(s);
  if (it == replacements_.end()) return std::nullopt;
  return it->second;
}

ExprRef ReplacementTable::replace(const ExprRef& e) const {
  if (replacements_.empty() || e->is_ground()) return e;
  return sym::substitute_symbols(e, [this](const ExprRef& s) { return find(s); });
}

std::vector<ExprRef> ReplacementTable::install(const ExprRef& a, const ExprRef& tgt,
                                               const std::string& why) {
  replacements_[a] = tgt;
  replacement_reasons_.emplace(a, why);
  sym::ExprMap subst{{a, tgt}};
  std::vector<ExprRef> rewritten;
  for (auto& [k, v] : replacements_) {
    if (k != a && sym::has_symbol(v, a)) {
      v = sym::xreplace(v, subst);
      rewritten.push_back(k);
    }
  }
  return rewritten;
}

ExprRef ReplacementTable::resolve_renaming(const ExprRef& s) const {
  ExprRef cur = s;
  for (size_t steps = 0; steps <= unbacked_renamings_.size(); ++steps) {
    auto it = unbacked_renamings_.find(cur);
    if (it == unbacked_renamings_.end()) return cur;
    cur = it->second;
  }
  SF_UNREACHABLE() << "cycle in unbacked_renamings at " << s->str();
}

}  // namespace sf
