// ShapeEnv part: the symbol table. Which symbols exist, how they are named, what is known of
// their values (hints of backed symbols, real values of unbacked ones), their sources, duck
// sizing, and the pending list of fresh unbacked symbols with its ignore-fresh flag (spec §2.1–4).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/sym/expr.h"

namespace sf {

using sym::ExprRef;

class SymbolTable {
 public:
  // A backed size symbol for `source` with its hint: named s<sha256(source) mod 100>, probing
  // linearly, so names survive input reordering.
  ExprRef new_backed(const std::string& source, int64_t hint);
  // A fresh unbacked symbol (u<n> for ints and bools, zuf<n> for floats): pending, or unbound by
  // design when fresh symbols are being ignored.
  ExprRef new_unbacked(sym::SymKind kind);

  void add_source(const ExprRef& s, const std::string& source);
  // Duck sizing: the backed symbol already standing for this hint, if any.
  std::optional<ExprRef> duck(int64_t hint) const;
  void set_duck(int64_t hint, const ExprRef& s) { val_to_var_[hint] = s; }
  // An unbacked symbol for a mark_unbacked input; an oblivious hint when it has one.
  void mark_unbacked_input(const ExprRef& s, std::optional<int64_t> oblivious_hint);
  void set_real_value(const ExprRef& s, int64_t v) { unbacked_var_to_val_[s] = v; }

  bool is_backed(const ExprRef& s) const { return var_to_val_.count(s) > 0; }
  std::optional<int64_t> hint(const ExprRef& s) const;        // backed symbols
  std::optional<int64_t> real_value(const ExprRef& s) const;  // unbacked, when recorded
  std::optional<int64_t> oblivious_hint(const ExprRef& s) const;
  // The hint, else the recorded real value: what a concrete evaluation may substitute.
  std::optional<int64_t> known_value(const ExprRef& s) const;

  // Pending fresh symbols (spec §2.3) and the ignore-fresh scope (§2.4).
  const std::vector<ExprRef>& pending() const { return pending_; }
  std::vector<ExprRef> take_pending();  // returns them and empties the list
  void discard_pending();               // they become unbound by design
  bool set_ignore_fresh(bool on);       // returns the previous setting
  bool ignoring_fresh() const { return ignore_fresh_; }

  // Read-only views.
  const std::unordered_map<ExprRef, int64_t, sym::ExprHash>& hints() const { return var_to_val_; }
  const std::map<ExprRef, int64_t, sym::ExprLess>& real_values() const {
    return unbacked_var_to_val_;
  }
  bool has_oblivious_hints() const { return !oblivious_var_to_val_.empty(); }
  const std::map<ExprRef, std::vector<std::string>, sym::ExprLess>& sources() const {
    return var_to_sources_;
  }
  const std::set<ExprRef, sym::ExprLess>& unbacked_inputs() const { return unbacked_inputs_; }
  const std::set<ExprRef, sym::ExprLess>& unbound_by_design() const { return unbound_by_design_; }
  int64_t int_counter() const { return unbacked_symint_counter_; }
  int64_t float_counter() const { return unbacked_symfloat_counter_; }

 private:
  std::unordered_map<ExprRef, int64_t, sym::ExprHash> var_to_val_;
  std::map<ExprRef, int64_t, sym::ExprLess> unbacked_var_to_val_;
  std::map<ExprRef, int64_t, sym::ExprLess> oblivious_var_to_val_;
  std::map<ExprRef, std::vector<std::string>, sym::ExprLess> var_to_sources_;
  std::map<int64_t, ExprRef> val_to_var_;
  std::set<int64_t> used_backed_ids_;
  std::set<ExprRef, sym::ExprLess> unbacked_inputs_;
  std::vector<ExprRef> pending_;
  std::set<ExprRef, sym::ExprLess> unbound_by_design_;
  bool ignore_fresh_ = false;
  int64_t unbacked_symint_counter_ = 0;
  int64_t unbacked_symfloat_counter_ = 0;
};

}  // namespace sf
