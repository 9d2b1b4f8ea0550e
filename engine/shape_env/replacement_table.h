// ShapeEnv part: the replacement table (spec §2.9). symbol -> the expression it stands for, kept
// fully resolved (eager path compression, so find() is one lookup and queries never write), why
// each was installed, and the unbacked renamings made by re-propagation. The range checks and
// unification that decide whether to install live in the facade (replacements.cc).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/sym/expr.h"

namespace sf {

using sym::ExprRef;

class ReplacementTable {
 public:
  // The expression s stands for (s itself when it is not replaced).
  ExprRef find(const ExprRef& s) const;
  std::optional<ExprRef> target(const ExprRef& s) const;
  bool is_replaced(const ExprRef& s) const { return target_of_.count(s.get()) > 0; }
  // e with every replaced symbol substituted.
  ExprRef replace(const ExprRef& e) const;
  // Writes a -> tgt (the first reason is kept) and substitutes tgt for a in every other target;
  // returns the symbols whose targets changed that way (their chains got shorter).
  std::vector<ExprRef> install(const ExprRef& a, const ExprRef& tgt, const std::string& why);

  void record_renaming(const ExprRef& orig, const ExprRef& dest) {
    unbacked_renamings_[orig] = dest;
    touched_.push_back(orig);
  }
  // Follows renamings from s to the newest name (an SF_CHECK abort on a cycle).
  ExprRef resolve_renaming(const ExprRef& s) const;

  // Closing a fact scope: `saved` again, plus the renamings made inside it (each re-installed
  // as the replacement orig -> dest, resolved in the restored table).
  void restore_scope(const ReplacementTable& saved);
  // Read-only views.
  const std::map<ExprRef, ExprRef, sym::ExprLess>& entries() const { return replacements_; }
  const std::map<ExprRef, std::string, sym::ExprLess>& reasons() const {
    return replacement_reasons_;
  }
  const std::map<ExprRef, ExprRef, sym::ExprLess>& renamings() const { return unbacked_renamings_; }
  // Every key whose entry or renaming a change wrote, in order (a null entry: closing a fact
  // scope, which may change any): the rename oracle judges only the events that add to it, and
  // reads the keys each wrote.
  const std::vector<ExprRef>& touched() const { return touched_; }
  // The keys whose target mentioned s when it was written (a superset of those mentioning it).
  const std::set<ExprRef, sym::ExprLess>* keys_mentioning(const ExprRef& s) const {
    auto it = keys_mentioning_.find(s);
    return it == keys_mentioning_.end() ? nullptr : &it->second;
  }

 private:
  std::map<ExprRef, ExprRef, sym::ExprLess> replacements_;
  std::map<ExprRef, std::string, sym::ExprLess> replacement_reasons_;
  std::map<ExprRef, ExprRef, sym::ExprLess> unbacked_renamings_;
  // symbol -> the keys whose target mentioned it when written (a superset of those mentioning
  // it now), so install rewrites the targets through a without scanning every entry.
  std::map<ExprRef, std::set<ExprRef, sym::ExprLess>, sym::ExprLess> keys_mentioning_;
  // replacements_ by node address: lookups without structural comparisons.
  std::unordered_map<const sym::Expr*, ExprRef> target_of_;
  // replace()'s answers for expressions that mention a replaced symbol, until the next install:
  // one query replaces the same expression several times (static evaluation, simplification,
  // the guard's relation, its axioms). Keyed by node; the ExprRef keeps the node alive.
  mutable std::unordered_map<const sym::Expr*, std::pair<ExprRef, ExprRef>> replaced_;
  std::vector<ExprRef> touched_;
  void index_target(const ExprRef& key, const ExprRef& target);
};

}  // namespace sf
