// ShapeEnv part: what has been asserted. Guards over backed symbols, deferred runtime asserts
// bucketed by their newest unbacked symbol (spec §2.18), the axioms every guard and assert
// implies (with their current simplified forms, so simplified queries match them), and the
// frozen state of Inductor lowering. Deciding guard vs assert is the facade's job (evaluate.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/sym/expr.h"
#include "engine/sym/walk.h"

namespace sf {

using sym::ExprRef;

struct RuntimeAssert {
  ExprRef expr;  // canonical, not replacement-simplified (INV-11)
  std::string msg;
};

struct ShapeGuard {
  ExprRef expr;  // over backed symbols only (INV-10)
  std::string sloc;
  bool size_oblivious = false;
};

class AssertionStore {
 public:
  void add_guard(ShapeGuard g) { guards_.push_back(std::move(g)); }
  // Stores the assert in the bucket of its newest unbacked int symbol (None when it has none).
  void defer(const ExprRef& expr, const std::string& msg);
  // The bucket key rule of §2.18.
  static ExprRef bucket_key(const ExprRef& expr);

  void freeze() { frozen_ = true; }
  bool frozen() const { return frozen_; }
  void count_ignored_while_frozen() { ++ignored_frozen_; }
  int64_t ignored_while_frozen() const { return ignored_frozen_; }

  // e is known to have value v; `simplified` is e as the facade currently simplifies it.
  void add_axiom(const ExprRef& e, bool v, const ExprRef& simplified);
  // The same for e and its negation ne, whose simplified form is the negation of e's (see
  // negates_simply): a re-simplification then negates e's new form instead of simplifying
  // ne's again.
  void add_axiom_and_negation(const ExprRef& e, bool v, const ExprRef& simplified,
                              const ExprRef& ne);
  // True when simplify(not_(x)) is not_(simplify(x)) for every x simplifying to `simplified`:
  // a relation (its negation is the flipped relation over the same simplified arguments,
  // decided by the same bound) or a constant.
  static bool negates_simply(const ExprRef& simplified) {
    return simplified->is_relation() || simplified->is(sym::ExprKind::kBoolConst);
  }
  // Re-simplifies the axioms whose current form mentions s (after s was replaced), so that
  // queries, which are simplified with the new replacement, still match them.
  void reindex_mentioning(const ExprRef& s, const std::function<ExprRef(const ExprRef&)>& simplify);
  // e with every known axiom (as stated or in its current form) replaced by its value.
  ExprRef apply_axioms(const ExprRef& e) const;
  // Every axiom in its current form, with its value, in the order they were added (from the
  // `from`-th on).
  std::vector<std::pair<ExprRef, bool>> current_axioms(size_t from = 0) const;
  size_t num_axiom_entries() const { return axiom_entries_.size(); }
  // Changes whenever an axiom is added or its current form rewritten.
  uint64_t axiom_revision() const { return axiom_revision_; }
  // Entry i: its current form and value.
  std::pair<ExprRef, bool> axiom_entry(size_t i) const {
    return {axiom_entries_[i].current, axiom_entries_[i].value};
  }
  // Each rewrite of an axiom's current form, in order: (entry, old form, value). A fact scope's
  // close, which drops axioms, is an entry with a null old form.
  struct Rewrite {
    size_t entry;
    ExprRef old_form;
    bool value;
  };
  const std::vector<Rewrite>& rewrites() const { return rewrites_; }

  // Closing a fact scope: the axioms and deferred asserts of `saved` again; the guards and the
  // frozen state stay as they are. The axiom revision moves on (the old facts are stale).
  void restore_scope(const AssertionStore& saved);
  // Read-only views.
  const std::vector<ShapeGuard>& guards() const { return guards_; }
  const std::map<ExprRef, std::vector<RuntimeAssert>, sym::ExprLessNullFirst>& deferred() const {
    return deferred_;
  }
  int64_t num_deferred() const { return num_deferred_; }
  // In the structural order (built on demand: the store keeps them hashed, as insertion is hot).
  std::map<ExprRef, bool, sym::ExprLess> axioms() const {
    return std::map<ExprRef, bool, sym::ExprLess>(axioms_.begin(), axioms_.end());
  }

 private:
  std::vector<ShapeGuard> guards_;
  std::map<ExprRef, std::vector<RuntimeAssert>, sym::ExprLessNullFirst> deferred_;
  int64_t num_deferred_ = 0;
  bool frozen_ = false;
  int64_t ignored_frozen_ = 0;
  std::unordered_map<ExprRef, bool, sym::ExprHash> axioms_;
  struct AxiomEntry {
    ExprRef current;
    bool value;
    bool negation_follows = false;  // the next entry is the negation (add_axiom_and_negation)
  };
  std::vector<AxiomEntry> axiom_entries_;
  // symbol -> the entries whose current form mentioned it when written (a superset of those
  // mentioning it now), so a replacement revisits only those instead of every axiom.
  std::unordered_map<const sym::Expr*, std::vector<size_t>> entries_mentioning_;
  void index_entry(size_t i);
  sym::ExprMap axiom_rewrites_;  // original and current forms -> True/False
  uint64_t axiom_revision_ = 0;
  std::vector<Rewrite> rewrites_;
};

}  // namespace sf
