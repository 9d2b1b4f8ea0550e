// ShapeEnv (spec §1–§2), a facade over parts with one job each: the symbol table and hints
// (symbol_table.h), value ranges (range_table.h), union-find replacements (replacement_table.h),
// guards, deferred asserts and axioms (assertion_store.h), and the event log (events.h). The
// facade implements the reasoning that spans parts: guards, unification, bindings, rebinding.
// Every public mutating call is recorded as a replayable event.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/shape_env/assertion_store.h"
#include "engine/shape_env/events.h"
#include "engine/shape_env/fact_graph.h"
#include "engine/shape_env/keypath.h"
#include "engine/shape_env/range_table.h"
#include "engine/shape_env/replacement_table.h"
#include "engine/shape_env/sym_value.h"
#include "engine/shape_env/symbol_stamps.h"
#include "engine/shape_env/symbol_table.h"
#include "engine/shape_env/value.h"
#include "engine/sym/bound.h"
#include "engine/sym/interval.h"
#include "engine/sym/walk.h"

namespace sf {

using sym::ValueRange;

struct ShapeEnvSettings {
  // Read by the meta functions (as PyTorch's FakeTensorMode reads them from its ShapeEnv): false
  // makes item / nonzero-like ops unsupported (DataDependentOutputException and
  // DynamicOutputShapeException).
  bool allow_scalar_outputs = true;
  bool allow_dynamic_output_shape_ops = true;
  bool specialize_zero_one = true;
  bool duck_shape = true;
  bool prefer_deferred_runtime_asserts_over_guards = false;
  bool backed_size_oblivious = false;
  // Keep the event log (events()). The oracles, the shrinker and replay read it, so it is on by
  // default; PyTorch keeps its log only under translation validation (should_record_events),
  // and the speed comparison with it turns ours off too.
  bool record_events = true;
};

// A per-input cache of source name -> symbol, keyed by ShapeEnv id, so that re-fakifying the
// same input in a fresh fake mode over the same ShapeEnv yields the same symbols (spec §1.5).
struct StatefulSymbolicContext {
  std::map<uint64_t, std::map<std::string, ExprRef>> cache;
};

struct StaticOptions {
  bool unbacked_only = false;
  bool compute_hint = false;
  bool size_oblivious = false;
};

class ShapeEnv {
 public:
  explicit ShapeEnv(ShapeEnvSettings settings = {});
  ShapeEnv(const ShapeEnv&) = delete;
  ShapeEnv& operator=(const ShapeEnv&) = delete;

  const ShapeEnvSettings& settings() const { return settings_; }
  uint64_t id() const { return id_; }

  // ---- symbol creation (symbols.cc) ----
  // A symbol for an input size/int (spec §2.20): static, cached, unbacked (size-like), or backed
  // with 0/1 specialization and duck sizing. `positive` is false for plain int inputs.
  SymInt create_symbol(int64_t hint, const std::string& source, DimDynamic dynamic,
                       bool positive = true, StatefulSymbolicContext* context = nullptr);
  SymInt create_unbacked_symint(const std::string& source = "");
  SymFloat create_unbacked_symfloat();
  SymBool create_unbacked_symbool();

  // RAII scope during which fresh unbacked symbols do not enter pending (nesting-safe).
  class IgnoreFreshScope {
   public:
    explicit IgnoreFreshScope(ShapeEnv* env);
    ~IgnoreFreshScope();
    IgnoreFreshScope(const IgnoreFreshScope&) = delete;
    IgnoreFreshScope& operator=(const IgnoreFreshScope&) = delete;

   private:
    ShapeEnv* env_;
    bool previous_;
  };
  IgnoreFreshScope ignore_fresh_unbacked_symbols() { return IgnoreFreshScope(this); }
  bool ignoring_fresh_unbacked_symbols() const { return symbols_.ignoring_fresh(); }

  // ---- fact scopes (fact_scope.cc) ----
  // Facts learned while a cond branch or a loop body is traced hold only where it runs (spec
  // §6.6). A scope saves what is known when it opens and puts it back when it closes. A close
  // keeps the guards (conditions on the inputs, checked before any run), the renamings (two names
  // of one runtime value) and the ranges, size-likeness and divisibility factors of the symbols
  // local to it (local_to_closing_scope: they have values only where the subgraph runs). The
  // rest of what the scope
  // learned (axioms, replacements, deferred asserts, narrowed ranges of older symbols) is gone:
  // the caller's reasoning never uses it. The subgraph keeps its own asserts (scoped_asserts.h).
  void push_fact_scope();
  void pop_fact_scope();
  size_t fact_scope_depth() const { return fact_scopes_.size(); }
  // What a scope saves when it opens and restores when it closes: that many facts.
  size_t fact_scope_cost() const {
    return ranges_.size() + replacements_.entries().size() + replacements_.renamings().size() +
           asserts_.num_axiom_entries();
  }
  class FactScope {
   public:
    explicit FactScope(ShapeEnv* env) : env_(env) { env_->push_fact_scope(); }
    ~FactScope() { env_->pop_fact_scope(); }
    FactScope(const FactScope&) = delete;
    FactScope& operator=(const FactScope&) = delete;

   private:
    ShapeEnv* env_;
  };
  FactScope fact_scope() { return FactScope(this); }

  // ---- ranges (ranges.cc) ----
  void constrain_range_for_size(const ExprRef& sym, std::optional<int64_t> min = std::nullopt,
                                std::optional<int64_t> max = std::nullopt);
  void constrain_symbol_range(const ExprRef& sym, sym::ExtInt min, sym::ExtInt max);
  void update_var_to_range(const ExprRef& sym, ValueRange vr, bool is_constraint = false);
  // Fresh symbols made by the divisibility rewrite: i1 -> (i0, d) with i0 == d * i1. They enter
  // pending; a tracer binds each at a node computing i0 // d.
  const std::map<ExprRef, std::pair<ExprRef, int64_t>, sym::ExprLess>& divisibility_factors()
      const {
    return ranges_.factors();
  }
  ValueRange var_range(const ExprRef& sym) const;
  bool is_size_like(const ExprRef& sym) const { return ranges_.is_size_like(sym); }
  ValueRange bound(const ExprRef& e, bool size_oblivious = false) const;

  // ---- replacements (replacements.cc) ----
  // The single writer of `replacements` (spec §2.9). Returns true when installed.
  bool set_replacement(const ExprRef& a, const ExprRef& tgt, const std::string& why);
  ExprRef find(const ExprRef& sym) const;
  ExprRef replace(const ExprRef& e) const;
  ExprRef simplify(const ExprRef& e, bool size_oblivious = false) const;
  // What simplify would answer from its cache now (INV-21: each must equal an uncached
  // recomputation), with the state changes counted when it was computed.
  struct CachedSimplification {
    ExprRef expr;
    bool size_oblivious;
    ExprRef out;
    uint64_t changes_before;
  };
  std::vector<CachedSimplification> cached_simplifications() const;
  // The latest kSimplificationLogSize simplifications computed outside fact scopes and not
  // size-oblivious (cache misses; any order), for the oracles to re-check at a run's values: the
  // cache itself is mostly invalidated by the time a program ends.
  static constexpr size_t kSimplificationLogSize = 256;
  const std::vector<CachedSimplification>& simplification_log() const {
    return simplification_log_;
  }
  // Every change of the state so far (each replacement, range, guard, assert, real value...).
  uint64_t state_changes() const { return state_changes_; }
  void rename_unbacked_to(const ExprRef& orig, const ExprRef& dest);
  void eliminate_unbacked(const ExprRef& orig, const ExprRef& dest);

  // ---- evaluation and guards (evaluate.cc) ----
  std::optional<ExprRef> maybe_evaluate_static(const ExprRef& e, StaticOptions opts = {}) const;
  // Both answers of maybe_evaluate_static at once: the constant it decides, if any, and the
  // expression as far as replacements, axioms and ranges take it (the unbacked_only answer).
  struct StaticEvaluation {
    std::optional<ExprRef> decided;
    ExprRef partial;
  };
  StaticEvaluation evaluate_statically(const ExprRef& e, StaticOptions opts = {}) const;
  // Installs a guard (backed) or raises GuardOnDataDependentSymNode; returns the concrete value.
  // With a fallback (guard_or_true/false), an undecidable data-dependent expr returns it as is.
  ExprRef evaluate_expr(const ExprRef& e, const std::optional<ExprRef>& hint = std::nullopt,
                        bool size_oblivious = false, std::optional<bool> fallback = std::nullopt,
                        const std::string& sloc = "");
  bool guard_or_defer_runtime_assert(const ExprRef& e, const std::string& msg);
  bool statically_known_true(const SymBool& b) const;
  bool statically_known_false(const SymBool& b) const;
  bool guard_bool(const SymBool& b, const std::string& sloc = "");
  int64_t guard_int(const SymInt& i, const std::string& sloc = "");
  bool guard_size_oblivious(const SymBool& b, const std::string& sloc = "");
  bool guard_or_false(const SymBool& b);
  bool guard_or_true(const SymBool& b);
  bool expect_true(const SymBool& b, const std::string& msg = "");
  bool expect_size(const SymInt& i, const std::string& msg = "");
  // torch._check: raises UserError(kCheckFailed) with `msg` when statically false.
  void check(const SymBool& cond, const std::string& msg);
  // torch._check_is_size(i, max).
  void check_is_size(const SymInt& i, std::optional<int64_t> max = std::nullopt);
  // guard_bool and check for callers that expect user errors (fuzz drivers, generators): the same
  // work and the same event, but a user error is returned in *error (when given) instead of
  // thrown. A C++ throw costs its unwinder ~16 k instructions, and a data-dependent guard or a
  // failed check ends about one call in seven of a trace-shaped sequence.
  std::optional<bool> try_guard_bool(const SymBool& b, UserErrorInfo* error = nullptr,
                                     const std::string& sloc = "");
  bool try_check(const SymBool& cond, const std::string& msg, UserErrorInfo* error = nullptr);
  // Hints: concrete values from backed hints (and real values for unbacked, if recorded).
  std::optional<int64_t> maybe_size_hint(const ExprRef& e) const;
  int64_t size_hint(const ExprRef& e) const;  // raises GuardOnDataDependentSymNode
  bool has_hint(const ExprRef& e) const { return maybe_size_hint(e).has_value(); }
  void set_unbacked_var_to_val(const ExprRef& sym, int64_t value);

  // ---- bindings (bindings.cc) ----
  std::optional<Bindings> compute_unbacked_bindings(const Value& v, const Value* old = nullptr,
                                                    bool peek = false);
  Bindings resolve_unbacked_bindings(const Bindings& b) const;
  ExprRef resolve_renaming(const ExprRef& sym) const;
  void rebind_unbacked(const Bindings& node_bindings, const Value& result, bool is_placeholder);

  // ---- const views of the parts (oracles read state through these, never the facade's
  // internals) ----
  const SymbolTable& symbols() const { return symbols_; }
  const RangeTable& range_table() const { return ranges_; }
  const ReplacementTable& replacement_table() const { return replacements_; }
  const AssertionStore& assertions() const { return asserts_; }

  // ---- state (shorthands for the views above) ----
  const std::vector<ExprRef>& pending_fresh_unbacked_symbols() const { return symbols_.pending(); }
  void clear_pending_fresh_unbacked_symbols();  // AOT metadata pass: symbols thrown away
  const std::unordered_map<ExprRef, int64_t, sym::ExprHash>& var_to_val() const {
    return symbols_.hints();
  }
  const std::map<ExprRef, ExprRef, sym::ExprLess>& replacements() const {
    return replacements_.entries();
  }
  // Why each replacement was first installed ("trivial_lhs", "divisibility",
  // "rename_unbacked_to"…).
  const std::map<ExprRef, std::string, sym::ExprLess>& replacement_reasons() const {
    return replacements_.reasons();
  }
  const std::map<ExprRef, ExprRef, sym::ExprLess>& unbacked_renamings() const {
    return replacements_.renamings();
  }
  const std::set<ExprRef, sym::ExprLess>& size_like() const { return ranges_.size_like(); }
  const std::set<ExprRef, sym::ExprLess>& unbacked_inputs() const {
    return symbols_.unbacked_inputs();
  }
  const std::set<ExprRef, sym::ExprLess>& divisible() const { return ranges_.divisible(); }
  const std::vector<ShapeGuard>& guards() const { return asserts_.guards(); }
  // Bucket key = the unbacked int symbol with the largest index, or null (the None bucket).
  const std::map<ExprRef, std::vector<RuntimeAssert>, sym::ExprLessNullFirst>&
  deferred_runtime_asserts() const {
    return asserts_.deferred();
  }
  int64_t num_deferred_runtime_asserts() const { return asserts_.num_deferred(); }
  std::map<ExprRef, bool, sym::ExprLess> axioms() const { return asserts_.axioms(); }
  const std::map<ExprRef, std::vector<std::string>, sym::ExprLess>& var_to_sources() const {
    return symbols_.sources();
  }
  const std::map<ExprRef, int64_t, sym::ExprLess>& unbacked_var_to_val() const {
    return symbols_.real_values();
  }
  const std::map<ExprRef, ValueRange, sym::ExprLess>& var_to_range() const {
    return ranges_.ranges();
  }
  int64_t unbacked_symint_counter() const { return symbols_.int_counter(); }
  // Unbacked symbols that need no binding site (INV-2): allocated under ignore-fresh, or thrown
  // away by clear_pending_fresh_unbacked_symbols.
  const std::set<ExprRef, sym::ExprLess>& unbound_by_design() const {
    return symbols_.unbound_by_design();
  }
  int64_t unbacked_symfloat_counter() const { return symbols_.float_counter(); }
  uint64_t version() const { return version_; }
  // Runtime asserts frozen (Inductor lowering): new asserts are ignored and counted.
  void freeze_runtime_asserts();
  bool runtime_asserts_frozen() const { return asserts_.frozen(); }
  int64_t num_ignored_frozen_asserts() const { return asserts_.ignored_while_frozen(); }
  bool is_unbacked_symint(const ExprRef& s) const;
  bool is_backed(const ExprRef& sym) const { return symbols_.is_backed(sym); }
  // The bucket key rule of §2.18.
  static ExprRef assert_bucket_key(const ExprRef& expr) { return AssertionStore::bucket_key(expr); }

  // A complete, deterministic text dump of the state (replay and determinism checks compare it).
  std::string state_str() const;
  const EventLog& events() const;  // aborts unless settings().record_events

  // The bounds the simplifier sees, size-oblivious or not.
  class Ranges : public sym::RangeEnv {
   public:
    Ranges(const ShapeEnv& env, bool size_oblivious) : env_(env), size_oblivious_(size_oblivious) {}
    ValueRange symbol_range(const ExprRef& sym) const override;
    bool known_divisible(const ExprRef& a, const ExprRef& b) const override;
    bool fact_nonnegative(const ExprRef& d) const override;
    sym::FactBounds fact_bounds_of_difference(const ExprRef& rel) const override;
    bool has_facts() const override;
    bool has_facts_about(const ExprRef& e) const override;
    // Whether an answer read the facts (a result that did is stale once the axioms change).
    bool consulted_facts() const { return consulted_facts_; }

   private:
    const ShapeEnv& env_;
    bool size_oblivious_;
    mutable bool consulted_facts_ = false;
  };
  // The difference-constraint closure of the current axioms (rebuilt when they change).
  const FactGraph& facts() const;

 private:
  // Runs the body of a public mutating call, recording the call (top-level calls only) and how
  // it ended: normally, by a user error of some kind, or by an engine bug.
  // `args` (std::tie of the call's arguments) becomes the record, a Call, only when the call is
  // recorded: a nested call, or any call with recording off, copies nothing.
  template <typename Call, typename Args, typename F>
  auto recorded(const Args& args, F&& body) -> decltype(body());
  // A user error found deep inside a call is raised by the call's own frame once the work that
  // found it has returned: each frame it unwinds costs the unwinder its CFI and call-site table
  // twice, each landing pad a restart, and a data-dependent guard ends an eighth of the calls of
  // a trace-shaped sequence. The body stores it (and returns a null result); `recorded` records
  // the outcome; the public wrapper then calls raise_deferred_error.
  ExprRef defer_user_error(UserErrorKind kind, std::string message);
  [[noreturn]] void raise_deferred_error();
  // The try_ calls' wrapper: body's result, or its default ({} or false) with the user error,
  // deferred or thrown, moved into *error.
  template <typename F>
  auto without_throwing(UserErrorInfo* error, F&& body) -> decltype(body());
  // guard_bool, expect_true and check with a deferred user error (nullopt, or false for check).
  std::optional<bool> guard_bool_deferring(const SymBool& b, const std::string& sloc);
  std::optional<bool> expect_true_deferring(const SymBool& b, const std::string& msg);
  bool check_deferring(const SymBool& cond, const std::string& msg);

  // internals
  ExprRef new_unbacked_symbol(sym::SymKind kind, bool is_bool);
  void bump_version();
  void on_state_change();  // follows the cache-key tuple (version_)
  // s's range, replacement, size-likeness or a divisibility fact over it changed: simplify
  // results that read s are stale, and so are those that read facts over an atom mentioning s.
  void symbol_changed(const ExprRef& s);
  void add_axioms(const ExprRef& g);
  // The implications of a simplified guard (each stored as its own current form).
  void add_implications(const ExprRef& g);
  void maybe_guard_rel(const ExprRef& expr);
  void refine_ranges(const ExprRef& expr);
  void divisibility_rewrite(const ExprRef& mod_atom);
  // Marks a symbol size-like (and >= 0) unless its range is below 2, where size-oblivious
  // reasoning cannot apply (keeps INV-9b). Returns whether it is size-like afterwards.
  bool mark_size_like(const ExprRef& sym);
  // The last step of set_replacement: write, path-compress, bump the version.
  void install_replacement(const ExprRef& a, const ExprRef& tgt, const std::string& why);
  // Makes x and y equal under replace(): a symbol side is replaced by the other side (forced if the
  // range checks decline); two compound sides become a deferred assert. Contradictions throw.
  void unify(const ExprRef& x, const ExprRef& y, const std::string& why);
  std::optional<ExprRef> solve_linear(const ExprRef& rel, const ExprRef& x) const;
  std::string dde_message(const ExprRef& expr, bool is_bool) const;
  // evaluate_expr's recorded work (a null result: a user error was deferred).
  ExprRef evaluate_expr_recorded(const ExprRef& orig, const std::optional<ExprRef>& hint,
                                 bool size_oblivious, std::optional<bool> fallback,
                                 const std::string& sloc);
  // evaluate_expr, inlined into the guards of evaluate.cc (one frame fewer for a DDE to unwind).
  inline ExprRef evaluate_expr_inlined(const ExprRef& orig, const std::optional<ExprRef>& hint,
                                       bool size_oblivious, std::optional<bool> fallback,
                                       const std::string& sloc);
  // evaluate_expr's work (a null result: a user error was deferred).
  ExprRef evaluate_expr_deferring(const ExprRef& orig, const std::optional<ExprRef>& hint,
                                  bool size_oblivious, std::optional<bool> fallback,
                                  const std::string& sloc);
  // check's message for a condition that is false for every allowed value, deferred.
  void defer_check_failure(const SymBool& cond, const std::string& msg);
  // The hint of s, else its observed real value, as a constant (null when neither is known).
  ExprRef known_value_of(const ExprRef& s) const;
  // After s was replaced: the axioms mentioning s get their current simplified form again.
  void reindex_axioms_mentioning(const ExprRef& s);

  ShapeEnvSettings settings_;
  uint64_t id_;

  SymbolTable symbols_;
  RangeTable ranges_;
  ReplacementTable replacements_;
  AssertionStore asserts_;
  EventRecorder events_;
  // The deferred user error (valid while error_deferred_); the message outlives the raise.
  bool error_deferred_ = false;
  UserErrorKind deferred_kind_ = UserErrorKind::kDataDependentGuard;
  std::string deferred_message_;

  // Cache versioning (INV-21): version_ follows the key tuple.
  uint64_t version_ = 0;
  uint64_t state_changes_ = 0;
  std::tuple<size_t, size_t, int64_t, size_t> prev_cache_key_{0, 0, 0, 0};
  // simplify's cache (one per size_oblivious): an entry is valid while none of the symbols it
  // read (those of the expression and of its replaced form) changed since it was computed.
  struct Simplified {
    ExprRef out;
    uint64_t stamp;
    std::vector<ExprRef> read;
    uint64_t changes_before;  // state changes when it was computed (for the INV-21 checker)
    // The facts version it read, when it read the facts (stale once it moves).
    std::optional<uint64_t> facts_version;
  };
  bool still_valid(const Simplified& entry) const;
  // Forgets what the graph read of each axiom entry rewritten since the last rebuild (all of
  // them when a fact scope closed), so the next rebuild reads those again.
  // Returns whether a fact scope closed (or entries went away): no entry is what it was.
  bool note_axiom_rewrites() const;
  // Whether a fact scope closed since this position in the axiom rewrites.
  bool scope_closed_since(size_t rewrite) const;
  // The graph of the current axioms: the entries it reads, in order, are classified (read by
  // the graph or not) as it asks for them, so none after the atom limit is, and those facts_
  // read unchanged are replayed from it rather than read again.
  FactGraph rebuild_facts() const;
  mutable FactGraph facts_;
  mutable FactGraph::Forms fact_forms_;  // what each axiom says to facts_, read once
  // Per axiom entry, whether the graph reads its current form (most axioms bound one symbol
  // and are never read): kUnread until a rebuild has asked (entries past this vector's end
  // too), and again after a rewrite. Classifying every new or rewritten entry at each rebuild,
  // when a long trace's graph stops at its atom limit early on, was 8% of a 10,000-operation
  // trace's instructions.
  enum GraphRead : uint8_t { kUnread, kReadByGraph, kNotReadByGraph };
  mutable std::vector<GraphRead> graph_reads_;
  // Per axiom entry, the position among the relations facts_ read of its current form (-1:
  // none, or rewritten since), for a rebuild to replay instead of reading it again.
  mutable std::vector<int64_t> facts_read_at_;
  mutable size_t graph_rewrites_noted_ = 0;
  // Past the atom limit: the axiom entry at which facts_ stopped reading.
  mutable std::optional<size_t> facts_stopped_entry_;
  mutable std::optional<uint64_t> axioms_read_;  // the axiom revision facts_ is current for
  mutable size_t facts_rewrites_read_ = 0;       // ... the axiom rewrites it took into account
  mutable size_t facts_entries_read_ = 0;        // ... and how many axiom entries it read
  bool facts_held_ = false;  // facts() answers facts_ as it is (reindex_axioms_mentioning)
  mutable uint64_t facts_version_ = 0;  // changes when facts_ closes other facts
  uint64_t facts_version() const {
    facts();
    return facts_version_;
  }
  SymbolStamps stamps_;
  // What each open fact scope saw when it opened (innermost last).
  struct SavedFacts {
    RangeTable ranges;
    ReplacementTable replacements;
    AssertionStore asserts;
  };
  std::vector<SavedFacts> fact_scopes_;
  // The symbols whose facts learned in the scope closing now stay: those made inside it, and
  // those a symbol made inside it was renamed to (re-propagating a subgraph renames its fresh
  // symbols to the ones its trace made), for they have values only where the subgraph runs.
  std::set<ExprRef, sym::ExprLess> local_to_closing_scope(const RangeTable& saved) const;
  mutable std::unordered_map<ExprRef, Simplified, sym::ExprHash> simplify_cache_[2];
  mutable std::vector<CachedSimplification> simplification_log_;
  mutable size_t simplification_log_next_ = 0;  // the slot the next one overwrites once full
};

// The §2.6 traversal on its own (pure): where each of `symbols` first occurs in `v`, in the order
// compute_unbacked_bindings would find it (oracles use it to check INV-5, the earliest path).
Bindings binding_paths(const ShapeEnv& env, const Value& v, const std::vector<ExprRef>& symbols);

template <typename Call, typename Args, typename F>
auto ShapeEnv::recorded(const Args& args, F&& body) -> decltype(body()) {
  if (events_.in_event() || !settings_.record_events) {
    // A call the engine makes while handling another one is part of that event: no outcome to
    // record, so no catch and rethrow (each rethrow unwinds the stack again; a user error used
    // to pass through several).
    EventRecorder::Nested nested(events_);
    return body();
  }
  events_.begin(std::apply([](const auto&... a) { return EventCall(Call{a...}); }, args));
  EventRecorder::EndOfEvent end(events_);  // records how it ended, even when it unwinds
  if constexpr (std::is_void_v<decltype(body())>) {
    body();
    end.returned();
  } else {
    auto result = body();
    if (error_deferred_) {
      end.failed(deferred_kind_);  // the caller raises it
    } else {
      end.returned();
    }
    return result;
  }
}

}  // namespace sf
