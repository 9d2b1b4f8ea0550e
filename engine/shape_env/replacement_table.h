// ShapeEnv part: the replacement table (spec §2.9). symbol -> the expression it stands for, kept
// fully resolved (eager path compression, so find() is one lookup and queries never write), why
// each was installed, and the unbacked renamings made by re-propagation. The range checks and
// unification that decide whether to install live in the facade (replacements.cc).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/sym/expr.h"

namespace sf {

using sym::ExprRef;

class ReplacementTable {
 public:
  // The expression s stands for (s itself when it is not replaced).
  ExprRef find(const ExprRef& s) const;
  std::optional<ExprRef> target(const ExprRef& s) const;
  bool is_replaced(const ExprRef& s) const { return replacements_.count(s) > 0; }
  // e with every replaced symbol substituted.
  ExprRef replace(const ExprRef& e) const;
  // Writes a -> tgt (the first reason is kept) and substitutes tgt for a in every other target;
  // returns the symbols whose targets changed that way (their chains got shorter).
  std::vector<ExprRef> install(const ExprRef& a, const ExprRef& tgt, const std::string& why);

  void record_renaming(const ExprRef& orig, const ExprRef& dest) {
    unbacked_renamings_[orig] = dest;
  }
  // Follows renamings from s to the newest name (an SF_CHECK abort on a cycle).
  ExprRef resolve_renaming(const ExprRef& s) const;

  // Read-only views.
  const std::map<ExprRef, ExprRef, sym::ExprLess>& entries() const { return replacements_; }
  const std::map<ExprRef, std::string, sym::ExprLess>& reasons() const {
    return replacement_reasons_;
  }
  const std::map<ExprRef, ExprRef, sym::ExprLess>& renamings() const { return unbacked_renamings_; }

 private:
  std::map<ExprRef, ExprRef, sym::ExprLess> replacements_;
  std::map<ExprRef, std::string, sym::ExprLess> replacement_reasons_;
  std::map<ExprRef, ExprRef, sym::ExprLess> unbacked_renamings_;
};

}  // namespace sf
