// Value-range bookkeeping: size-like constraints, monotone range refinement, and the range view
// (optionally size-oblivious) that the simplifier consults (spec §1.4, §2.5).
#include <algorithm>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/make.h"

namespace sf {

using sym::ExtInt;

void ShapeEnv::constrain_range_for_size(const ExprRef& s, std::optional<int64_t> min,
                                        std::optional<int64_t> max) {
  return recorded<event::ConstrainRangeForSize>(std::tie(s, min, max), [&]() -> void {
    if (!s->is(sym::ExprKind::kSymbol) || !s->is_int()) {
      throw_user_error(UserErrorKind::kValue,
                       "constrain_range_for_size expects an integer symbol, got " + s->str());
    }
    int64_t lo = min.value_or(0);
    ExtInt hi = max ? ExtInt(*max) : ExtInt::pos_inf();
    if (hi < ExtInt(lo)) {
      throw_user_error(UserErrorKind::kValue, "constrain_range_for_size(" + s->str() + "): max " +
                                                  hi.str() + " < min " + std::to_string(lo));
    }
    constrain_symbol_range(s, lo, hi);
    mark_size_like(s);
  });
}

bool ShapeEnv::mark_size_like(const ExprRef& s) {
  if (ranges_.is_size_like(s)) return true;
  // Size-likeness is only advice for size-oblivious reasoning ("assume >= 2"). Upstream marks a
  // symbol even when its range is [0, 0] or [0, 1], where that reasoning is skipped anyway; we do
  // not, so every size-like symbol keeps an upper bound >= 2 (INV-9b) while ranges only shrink.
  if (var_range(s).hi() < ExtInt(2)) return false;
  update_var_to_range(s, ValueRange::ints(0, ExtInt::pos_inf()));
  ranges_.add_size_like(s);
  on_state_change();
  symbol_changed(s);
  return true;
}

void ShapeEnv::constrain_symbol_range(const ExprRef& s, ExtInt min, ExtInt max) {
  return recorded<event::ConstrainSymbolRange>(std::tie(s, min, max), [&]() -> void {
    if (!s->is(sym::ExprKind::kSymbol)) {
      throw_user_error(UserErrorKind::kValue,
                       "constrain_symbol_range expects a symbol, got " + s->str());
    }
    if (max < min) {
      throw_user_error(UserErrorKind::kValue, "constrain_symbol_range(" + s->str() + "): max " +
                                                  max.str() + " < min " + min.str());
    }
    update_var_to_range(s, ValueRange::ints(min, max));
  });
}

void ShapeEnv::update_var_to_range(const ExprRef& s, ValueRange vr, bool is_constraint) {
  if (ranges_.narrow(s, vr)) {
    on_state_change();
    if (!fault_on(Fault::kSimplifyCacheMissesRangeUpdate)) symbol_changed(s);
  }
  // A replaced symbol stands for its target: carry the new bounds over to the target's symbols,
  // or the knowledge is lost as soon as expressions are replaced.
  std::optional<ExprRef> target = replacements_.target(s);
  if (target && !(*target)->is_ground() && (*target)->is_int()) {
    ValueRange now = ranges_.get(s);
    if (now.lo().is_finite()) refine_ranges(sym::le(sym::integer(now.lo().value()), *target));
    if (now.hi().is_finite()) refine_ranges(sym::le(*target, sym::integer(now.hi().value())));
  }
  std::optional<int64_t> hint = symbols_.hint(s);
  if (hint && !is_constraint) {
    SF_CHECK(ranges_.get(s).contains(*hint))
        << "hint " << *hint << " of " << s->str() << " outside its range " << ranges_.get(s).str();
  }
}

ValueRange ShapeEnv::var_range(const ExprRef& s) const { return ranges_.get(s); }

ValueRange ShapeEnv::Ranges::symbol_range(const ExprRef& s) const {
  bool oblivious = size_oblivious_ || fault_on(Fault::kSizeObliviousEverywhere);
  return oblivious ? env_.ranges_.size_oblivious(s) : env_.ranges_.get(s);
}

bool ShapeEnv::Ranges::known_divisible(const ExprRef& a, const ExprRef& b) const {
  if (!env_.ranges_.any_divisible()) return false;
  return env_.ranges_.is_divisible(sym::mod(a, b));
}

bool ShapeEnv::Ranges::fact_nonnegative(const ExprRef& d) const {
  consulted_facts_ = true;  // also when there are none: a fact added later may decide it
  const FactGraph& facts = env_.facts();
  return !facts.empty() && !fault_on(Fault::kGuardIgnoresAxioms) &&
         facts.proves_nonnegative(d, *this);
}

sym::FactBounds ShapeEnv::Ranges::fact_bounds_of_difference(const ExprRef& rel) const {
  consulted_facts_ = true;  // also when there are none: a fact added later may decide it
  const FactGraph& facts = env_.facts();
  if (facts.empty() || fault_on(Fault::kGuardIgnoresAxioms)) return {};
  return facts.difference_bounds(rel->arg(1), rel->arg(0), *this);
}

bool ShapeEnv::Ranges::has_facts_about(const ExprRef& e) const {
  consulted_facts_ = true;  // a fact added later may mention it
  const FactGraph& facts = env_.facts();
  if (facts.empty()) return false;
  return sym::any_symbol(e, [&](const sym::Expr* s) { return facts.mentions(s); });
}

bool ShapeEnv::Ranges::has_facts() const {
  consulted_facts_ = true;  // none now; one added later may decide what was asked
  return !env_.facts().empty() && !fault_on(Fault::kGuardIgnoresAxioms);
}

const FactGraph& ShapeEnv::facts() const {
  if (axioms_read_ == asserts_.axiom_revision() || facts_held_) return facts_;
  // Axioms only appended since the graph was built (the common case: each check adds some):
  // extend it with the new ones. Otherwise (a form rewritten by a replacement, a fact scope
  // closed) build it again from all of them. A rewrite of a form that constrains nothing into
  // another that constrains nothing (u0 <= 5 become 2*u1 <= 5 by a divisibility replacement)
  // counts as no rewrite: the graph is as it was. So does a rewrite of an axiom after the one
  // at which a graph past the atom limit stopped reading (late in a long trace, most are).
  bool appended = axioms_read_ && facts_entries_read_ <= asserts_.num_axiom_entries();
  const auto& rewrites = asserts_.rewrites();
  for (size_t i = facts_rewrites_read_; appended && i < rewrites.size(); ++i) {
    const AssertionStore::Rewrite& r = rewrites[i];
    appended =
        r.old_form &&
        ((facts_stopped_entry_ && r.entry > *facts_stopped_entry_) ||
         (!FactGraph::contributes(r.old_form, r.value, fact_forms_) &&
          (r.entry >= facts_entries_read_ ||
           !FactGraph::contributes(asserts_.axiom_entry(r.entry).first, r.value, fact_forms_))));
  }
  // Entries rewritten since facts_ read them: a replay would find their old forms.
  for (size_t i = facts_rewrites_read_; i < rewrites.size(); ++i) {
    if (rewrites[i].entry < facts_read_at_.size()) facts_read_at_[rewrites[i].entry] = -1;
  }
  if (appended) {
    size_t first = facts_.num_read();
    if (facts_.extend(asserts_.current_axioms(facts_entries_read_), fact_forms_)) {
      ++facts_version_;
    }
    facts_read_at_.resize(asserts_.num_axiom_entries(), -1);
    for (size_t e = facts_entries_read_; e < facts_read_at_.size(); ++e) {
      facts_read_at_[e] = static_cast<int64_t>(first + (e - facts_entries_read_));
    }
    if (facts_.stopped_at() && !facts_stopped_entry_) {
      facts_stopped_entry_ = facts_entries_read_ + *facts_.stopped_at();
    }
  } else {
    FactGraph now = rebuild_facts();
    // Most new axioms bound one symbol (its range's business) and leave the graph as it was:
    // then cached answers that read it stay valid.
    if (!now.same_facts(facts_)) ++facts_version_;
    facts_ = std::move(now);  // (with what it read, for the next rebuild to replay)
  }
  axioms_read_ = asserts_.axiom_revision();
  facts_rewrites_read_ = asserts_.rewrites().size();
  facts_entries_read_ = asserts_.num_axiom_entries();
  return facts_;
}

bool ShapeEnv::scope_closed_since(size_t rewrite) const {
  const auto& rewrites = asserts_.rewrites();
  for (size_t i = rewrite; i < rewrites.size(); ++i) {
    if (!rewrites[i].old_form) return true;  // (a closed scope's entries are others now)
  }
  return false;
}

bool ShapeEnv::note_axiom_rewrites() const {
  const auto& rewrites = asserts_.rewrites();
  bool restored = asserts_.num_axiom_entries() < graph_reads_.size() ||
                  scope_closed_since(graph_rewrites_noted_);
  if (restored) {
    graph_reads_.clear();
  } else {
    for (size_t i = graph_rewrites_noted_; i < rewrites.size(); ++i) {
      if (rewrites[i].entry < graph_reads_.size()) graph_reads_[rewrites[i].entry] = kUnread;
    }
  }
  graph_rewrites_noted_ = rewrites.size();
  return restored;
}

FactGraph ShapeEnv::rebuild_facts() const {
  // The entries facts_ read that are as they were then are replayed from its edges, not read
  // again: a replacement rewrites a few axioms, and reading all of them was a rebuild's cost.
  // (A close noted by a rebuild that threw is still one facts_ did not see.)
  bool restored = note_axiom_rewrites() || scope_closed_since(facts_rewrites_read_);
  if (restored) facts_read_at_.clear();  // a scope closed: the entries are others now
  graph_reads_.resize(asserts_.num_axiom_entries(), kUnread);
  // The entries before the first one changed since facts_ read them were read in the same order
  // with the same forms: the new graph starts as facts_ was after reading them.
  // Where facts_ read entry e as it is now, if it can be replayed from there.
  auto replayable_at = [&](size_t e) -> std::optional<size_t> {
    int64_t position = e < facts_read_at_.size() ? facts_read_at_[e] : -1;
    if (position < 0 || !facts_.can_replay(static_cast<size_t>(position))) return std::nullopt;
    return static_cast<size_t>(position);
  };
  size_t prefix = 0, i = 0;
  for (size_t e = 0; e < graph_reads_.size(); ++e) {
    if (graph_reads_[e] == kNotReadByGraph) continue;
    std::optional<size_t> position = replayable_at(e);
    if (!position) break;
    prefix = *position + 1;
    i = e + 1;
  }
  std::vector<int64_t> read_at(graph_reads_.size(), -1);  // the new graph's positions
  std::copy(facts_read_at_.begin(), facts_read_at_.begin() + i, read_at.begin());
  std::vector<size_t> fed;  // the entries the graph read after the prefix, in order
  auto next = [&]() -> std::optional<FactGraph::Read> {
    for (; i < graph_reads_.size(); ++i) {
      if (graph_reads_[i] == kNotReadByGraph) continue;
      std::optional<FactGraph::Read> out;
      if (std::optional<size_t> position = replayable_at(i)) {
        // (An entry the last graph took in whole, unclassified: classified by what it read.)
        if (!facts_.read_atoms(*position)) {
          graph_reads_[i] = kNotReadByGraph;
          continue;
        }
        graph_reads_[i] = kReadByGraph;
        out = FactGraph::Read{ExprRef(), false, *position};
      } else {
        std::pair<ExprRef, bool> entry = asserts_.axiom_entry(i);
        if (graph_reads_[i] == kUnread) {
          bool read = FactGraph::read_by_graph(entry.first, entry.second, fact_forms_);
          graph_reads_[i] = read ? kReadByGraph : kNotReadByGraph;
          if (!read) continue;
        }
        out = FactGraph::Read{std::move(entry.first), entry.second, std::nullopt};
      }
      read_at[i] = static_cast<int64_t>(prefix + fed.size());
      fed.push_back(i++);
      return out;
    }
    return std::nullopt;
  };
  FactGraph now(next, fact_forms_, &facts_, prefix);
  facts_read_at_ = std::move(read_at);
  facts_stopped_entry_.reset();
  if (now.stopped_at()) facts_stopped_entry_ = fed[*now.stopped_at() - prefix];
  return now;
}

ValueRange ShapeEnv::bound(const ExprRef& e, bool size_oblivious) const {
  return sym::bound_expr(replace(e), Ranges(*this, size_oblivious));
}

}  // namespace sf
