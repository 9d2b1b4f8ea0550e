// Runtime-assert insertion (spec §5.1).
#include "engine/graph/passes/runtime_asserts.h"

#include <algorithm>
#include <set>

#include "engine/base/check.h"
#include "engine/base/faults.h"
#include "engine/sym/make.h"
#include "engine/sym/walk.h"

namespace sf::graph {

namespace {

using Buckets = std::map<ExprRef, std::vector<RuntimeAssert>, sym::ExprLessNullFirst>;

// Buckets keyed by a fresh retrace symbol belong to the symbol it was renamed to. The top-level
// graph gets every deferred assert the ShapeEnv still has: those recorded while a subgraph was
// traced or re-propagated left it with the subgraph's fact scope (Graph::scoped_asserts). (They
// used to be told apart by expression and message, which conflated a caller's assert with an
// identical one in a branch: the same squeeze of the same size, both 'line 0' in a generated
// program, and the caller's was dropped.)
Buckets top_level_buckets(const ShapeEnv& env) {
  Buckets out;
  for (const auto& [key, ras] : env.deferred_runtime_asserts()) {
    ExprRef k = key ? env.resolve_renaming(key) : key;
    for (const RuntimeAssert& ra : ras) out[k].push_back(ra);
  }
  return out;
}

Buckets subgraph_buckets(const ShapeEnv& env, const Graph& g) {
  Buckets out;
  for (const RuntimeAssert& ra : g.scoped_asserts) {
    ExprRef key = AssertionStore::bucket_key(ra.expr);
    out[key ? env.resolve_renaming(key) : key].push_back(ra);
  }
  return out;
}

// One graph's pass. A subgraph of a cond/while_loop gets its own pass over the same buckets, right
// after its node in the caller's: an assert on a symbol bound inside the subgraph is placed there
// (spec §6, PR #165893); the symbols its placeholders lift from the caller are bound already.
class Inserter {
 public:
  Inserter(Graph& g, ShapeEnv& env, RuntimeAssertReport& report, Buckets& buckets,
           std::set<const Graph*>& done,
           const std::set<ExprRef, sym::ExprLess>* caller_bound = nullptr)
      : g_(g),
        env_(env),
        report_(report),
        buckets_(buckets),
        done_(done),
        caller_bound_(caller_bound) {}

  void run() {
    std::vector<Node*> nodes = g_.nodes();
    Node* last_placeholder = nullptr;
    std::vector<std::pair<ExprRef, KeyPath>> input_defs;
    for (Node* n : nodes) {
      if (n->kind != NodeKind::kPlaceholder) continue;
      last_placeholder = n;
      if (caller_bound_) {
        // A lifted symbol is the caller's; one the subgraph makes (a loop's int carry) is
        // defined here, with its range asserts and bucket.
        for (const auto& [s, path] : n->input_bindings) {
          ExprRef r = env_.resolve_renaming(s);
          if (caller_bound_->count(r) || !s->is_unbacked_symbol()) {
            bound_.insert(r);
            // A replacement made after the subgraph was traced (u0 -> s0 from a later check)
            // states what re-propagating it recorded in the canonical name, which the plan
            // reads from the same input (lowering's canonical bind).
            ExprRef canonical = env_.replace(r);
            if (canonical->is(sym::ExprKind::kSymbol)) bound_.insert(canonical);
          } else {
            input_defs.emplace_back(s, path);
          }
        }
        continue;
      }
      // Backed input symbols are bound by the placeholder; unbacked ones are defined below, so
      // their range asserts and buckets are emitted like any other binding site's.
      for (const auto& [s, path] : n->input_bindings) {
        if (!n->unbacked_bindings.count(s)) bound_.insert(env_.resolve_renaming(s));
      }
      for (const auto& [s, path] : n->unbacked_bindings) input_defs.emplace_back(s, path);
    }
    insert_after_ = last_placeholder;
    // Asserts over backed symbols only (the None bucket), then unbacked inputs' own asserts.
    emit_bucket(ExprRef());
    if (caller_bound_) {
      // The subgraph's own asserts over symbols its caller binds go right after its inputs.
      std::vector<ExprRef> lifted(bound_.begin(), bound_.end());
      for (const ExprRef& s : lifted) emit_bucket(s);
    }
    for (const auto& [s, path] : input_defs) {
      if (fault_on(Fault::kUnbackedInputAssertsDropped)) {  // placeholders skipped (#152231)
        ExprRef r = env_.resolve_renaming(s);
        bound_.insert(r);
        buckets_.erase(r);
        continue;
      }
      define(env_.resolve_renaming(s), path);
    }
    for (Node* n : nodes) {
      if (n->kind == NodeKind::kPlaceholder) continue;
      insert_after_ = n;
      if (n->kind == NodeKind::kCheck) {
        handle_check(n);
        continue;
      }
      for (const auto& [s, path] : env_.resolve_unbacked_bindings(n->unbacked_bindings)) {
        // The fault: a site defines only a symbol the value still shows unreplaced (#121079).
        if (fault_on(Fault::kAssertSiteLostByReplacement) &&
            env_.replace(key_get(n->value, path).expr()) != s) {
          continue;
        }
        define(s, path);
      }
      for (const auto& sub : n->subgraphs) {
        // A region several invoke_subgraph calls share gets its asserts once.
        if (!done_.insert(sub.get()).second) continue;
        std::set<ExprRef, sym::ExprLess> visible = bound_;
        if (caller_bound_) visible.insert(caller_bound_->begin(), caller_bound_->end());
        Buckets own = subgraph_buckets(env_, *sub);
        Inserter inner(*sub, env_, report_, own, done_, &visible);
        inner.run();
        inner.report_unplaced();
      }
    }
  }

  bool added(const ExprRef& e) const { return added_.count(e) > 0; }
  // What is left in the buckets could not be placed (a symbol never bound in this graph).
  void report_unplaced() {
    for (auto& [key, ras] : buckets_) {
      for (RuntimeAssert& ra : ras) {
        if (!added(ra.expr)) report_.unplaced.push_back(ra);
      }
    }
  }

 private:
  void handle_check(Node* n) {
    std::optional<ExprRef> st = env_.maybe_evaluate_static(n->assert_expr);
    bool implied = (st && (*st)->bool_value()) || added_.count(n->assert_expr);
    if (implied && n->users.empty()) {
      // The deferred assert recorded for this check is emitted from its bucket instead.
      insert_after_ = std::prev(n->pos)->get();
      g_.erase(n);
      ++report_.dropped_checks;
      return;
    }
    added_.insert(n->assert_expr);
  }

  void define(const ExprRef& s, const KeyPath& path) {
    // The fault marks s bound only after its bucket is emitted (#151170).
    bool late_bound = fault_on(Fault::kAssertBucketBeforeBound);
    if (late_bound ? bound_.count(s) > 0 : !bound_.insert(s).second) return;
    bool is_bool = !path.empty() && path.back().kind == KeyEntry::Kind::kConvertInt;
    sym::ValueRange vr = env_.var_range(s);
    if (!is_bool && !vr.is_float() && !vr.is_unknown() && !fault_on(Fault::kRangeAssertsSkipped)) {
      if (vr.lo().is_finite())
        add_assert(sym::ge(s, sym::integer(vr.lo().value())), "range of " + s->str(), true);
      // sys.maxsize - 1 is the "no bound" of size-like symbols (spec §5.1).
      if (vr.hi().is_finite() && vr.hi().value() < INT64_MAX - 1) {
        add_assert(sym::le(s, sym::integer(vr.hi().value())), "range of " + s->str(), true);
      }
      range_asserted_.insert(s);
    }
    emit_bucket(s);
    if (late_bound) bound_.insert(s);
  }

  void emit_bucket(const ExprRef& key) {
    auto it = buckets_.find(key);
    if (it == buckets_.end()) return;
    std::vector<RuntimeAssert> ras = std::move(it->second);
    buckets_.erase(it);
    for (const RuntimeAssert& ra : ras) place(ra);
  }

  void place(const RuntimeAssert& original) {
    // An assert recorded during re-propagation may name a fresh retrace symbol: state it over
    // the names the graph's bindings resolve to.
    RuntimeAssert ra = original;
    if (fault_on(Fault::kAssertReplacedBeforeEmit)) {  // full replacement (#153661)
      ra.expr = env_.simplify(ra.expr);
      if (ra.expr->is(sym::ExprKind::kBoolConst) && ra.expr->bool_value()) return;
    }
    ra.expr = sym::substitute_symbols(ra.expr, [&](const ExprRef& s) -> ExprRef {
      ExprRef r = env_.resolve_renaming(s);
      return r == s ? ExprRef() : r;
    });
    if (added_.count(ra.expr)) return;
    std::vector<ExprRef> fs = sym::free_symbols(ra.expr);
    if (fs.size() == 1 && range_asserted_.count(fs[0]) && implied_by_range(ra.expr, fs[0])) {
      return;  // a plain bound of a symbol that its (asserted) range already implies
    }
    std::vector<ExprRef> missing;
    for (const ExprRef& s : fs) {
      // The fault buckets by unbacked ints only; float symbols count as bound (#185692).
      bool ignored =
          fault_on(Fault::kFloatAssertEmittedEarly) && s->sym_kind() != sym::SymKind::kUnbackedInt;
      if (!bound_.count(s) && !ignored) missing.push_back(s);
    }
    if (!missing.empty()) {
      // Re-bucket under the smallest missing symbol (by name), as upstream.
      ExprRef key =
          *std::min_element(missing.begin(), missing.end(),
                            [](const ExprRef& a, const ExprRef& b) { return a->str() < b->str(); });
      buckets_[key].push_back(ra);
      return;
    }
    add_assert(ra.expr, ra.msg, false);
  }

  // `s <= c`, `s < c`, `c <= s` or `c < s` with the range of s inside it. Anything else (e.g.
  // Max(1, s) <= 1, which the translation-validation oracle caught being dropped) is kept.
  bool implied_by_range(const ExprRef& e, const ExprRef& s) const {
    if (!(e->is(sym::ExprKind::kLe) || e->is(sym::ExprKind::kLt))) return false;
    if (fault_on(Fault::kAssertSelfImpliedDropped)) {
      return e->arg(0)->is_number() || e->arg(1)->is_number();  // the old, loose rule
    }
    bool strict = e->is(sym::ExprKind::kLt);
    sym::ValueRange r = env_.var_range(s);
    const ExprRef &lhs = e->arg(0), &rhs = e->arg(1);
    if (lhs == s && rhs->is(sym::ExprKind::kInteger)) {
      int64_t c = rhs->int_value();
      return r.hi().is_finite() && (strict ? r.hi().value() < c : r.hi().value() <= c);
    }
    if (rhs == s && lhs->is(sym::ExprKind::kInteger)) {
      int64_t c = lhs->int_value();
      return r.lo().is_finite() && (strict ? r.lo().value() > c : r.lo().value() >= c);
    }
    return false;
  }

  void add_assert(const ExprRef& expr, const std::string& msg, bool is_range) {
    if (added_.count(expr)) return;
    added_.insert(expr);
    Node* a = g_.add(NodeKind::kAssertScalar, "assert", {}, insert_after_);
    a->assert_expr = expr;
    a->message = msg;
    insert_after_ = a;
    if (is_range) {
      ++report_.range_asserts;
    } else {
      ++report_.deferred_asserts;
    }
  }

  Graph& g_;
  ShapeEnv& env_;
  RuntimeAssertReport& report_;
  Buckets& buckets_;
  std::set<const Graph*>& done_;                          // the subgraphs that had their pass
  const std::set<ExprRef, sym::ExprLess>* caller_bound_;  // subgraphs: what the caller binds
  std::set<ExprRef, sym::ExprLess> bound_, range_asserted_, added_;
  Node* insert_after_ = nullptr;
};

}  // namespace

RuntimeAssertReport insert_runtime_asserts(Graph& g, ShapeEnv& env) {
  RuntimeAssertReport report;
  Buckets buckets = top_level_buckets(env);
  std::set<const Graph*> done;
  Inserter top(g, env, report, buckets, done);
  top.run();
  top.report_unplaced();
  return report;
}

}  // namespace sf::graph
