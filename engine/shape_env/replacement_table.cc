// Replacement writes with eager path compression, lookups and renaming chains.
#include "engine/shape_env/replacement_table.h"

#include "engine/base/check.h"
#include "engine/sym/walk.h"

namespace sf {

ExprRef ReplacementTable::find(const ExprRef& s) const {
  auto it = target_of_.find(s.get());
  return it == target_of_.end() ? s : it->second;
}

std::optional<ExprRef> ReplacementTable::target(const ExprRef& s) const {
  auto it = target_of_.find(s.get());
  if (it == target_of_.end()) return std::nullopt;
  return it->second;
}

ExprRef ReplacementTable::replace(const ExprRef& e) const {
  if (target_of_.empty() || e->is_ground()) return e;
  // Most expressions mention no replaced symbol: find that out without allocating.
  if (!sym::any_symbol(e, [this](const sym::Expr* s) { return target_of_.count(s) > 0; })) {
    return e;
  }
  auto known = replaced_.find(e.get());
  if (known != replaced_.end()) return known->second.second;
  ExprRef out = sym::substitute_symbols(e, [this](const ExprRef& s) { return find(s); });
  if (replaced_.size() >= 4096) replaced_.clear();  // a long run without installs
  replaced_.emplace(e.get(), std::make_pair(e, out));
  return out;
}

std::vector<ExprRef> ReplacementTable::install(const ExprRef& a, const ExprRef& tgt,
                                               const std::string& why) {
  touched_.push_back(a);
  replaced_.clear();
  replacements_[a] = tgt;
  target_of_[a.get()] = tgt;
  replacement_reasons_.emplace(a, why);
  index_target(a, tgt);
  sym::ExprMap subst{{a, tgt}};
  std::vector<ExprRef> rewritten;
  auto users = keys_mentioning_.find(a);
  if (users == keys_mentioning_.end()) return rewritten;
  std::set<ExprRef, sym::ExprLess> keys = std::move(users->second);  // in key order, as a scan
  keys_mentioning_.erase(users);
  for (const ExprRef& k : keys) {
    ExprRef& v = replacements_.at(k);
    if (k != a && sym::has_symbol(v, a)) {
      v = sym::xreplace(v, subst);
      target_of_[k.get()] = v;
      index_target(k, v);
      rewritten.push_back(k);
      touched_.push_back(k);
    }
  }
  return rewritten;
}

void ReplacementTable::index_target(const ExprRef& key, const ExprRef& target) {
  for (const ExprRef& s : sym::free_symbols(target)) keys_mentioning_[s].insert(key);
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

void ReplacementTable::restore_scope(const ReplacementTable& saved) {
  ReplacementTable out = saved;
  for (const auto& [orig, dest] : unbacked_renamings_) {
    auto old = saved.unbacked_renamings_.find(orig);
    if (old != saved.unbacked_renamings_.end() && old->second == dest) continue;
    out.record_renaming(orig, dest);
    ExprRef tgt = out.find(dest);
    if (!out.is_replaced(orig) && tgt != orig) out.install(orig, tgt, "rename_unbacked_to");
  }
  std::vector<ExprRef> touched = std::move(touched_);  // the saved table's journal is older
  touched.push_back(ExprRef());
  *this = std::move(out);
  touched_ = std::move(touched);
}

}  // namespace sf
