// The memo invariant on PyTorch's graph (oracles/torch_graph/memo_invariant.h): which ops torch
// 2.15 memoizes, which calls read the same values, and the two halves of the check.
#include "oracles/torch_graph/memo_invariant.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/sym/walk.h"

namespace sf::torch_graph {

namespace {

std::string join(const std::vector<std::string>& xs) {
  std::string out;
  for (const std::string& x : xs) out += (out.empty() ? "" : ", ") + x;
  return out;
}

class MemoChecker {
 public:
  MemoChecker(const CapturedGraph& g, const MemoFacts& facts, InvariantReport& r)
      : g_(g), facts_(facts), r_(r) {}

  // Two data-dependent calls on the same values in one (functionalized) graph: PyTorch's memo
  // gives them one symbol, or a fact makes them equal (spec §8, the memo invariant). A call that
  // binds a fresh symbol where an earlier identical call already has one, with nothing relating
  // the two, is a violation. Only the ops torch 2.15 memoizes (fake_impls: nonzero, item, unique
  // and unique_consecutive without a dim; unique_dim deliberately not, masked_select never).
  // Conservatively, this half compares whole calls (the same argument nodes and literals), though
  // torch keeps one memo per input whatever the flags: a call with other flags is not held to
  // share. The other half: a call on other values (in a functionalized graph a mutated tensor
  // is another node) that binds nothing and reuses an earlier call's symbol kept a memo across
  // a mutation.
  void run() {
    for (size_t j = 0; j < g_.nodes.size(); ++j) {
      const CapturedNode& b = g_.nodes[j];
      if (b.args.empty() || !b.val || !memoized(b)) continue;
      if (b.bindings.empty()) {
        check_no_stale_memo(b);
        continue;
      }
      for (size_t i = 0; i < j; ++i) {
        const CapturedNode& a = g_.nodes[i];
        if (a.target != b.target || a.args != b.args || a.call != b.call || !a.val) continue;
        std::vector<ExprRef> xs, ys;
        each_expr(*a.val, [&](const ExprRef& e) { xs.push_back(e); });
        each_expr(*b.val, [&](const ExprRef& e) { ys.push_back(e); });
        if (xs.size() != ys.size()) continue;
        for (size_t k = 0; k < xs.size(); ++k) {
          if (!xs[k] || !ys[k] || !sym::has_free_unbacked_symbols(ys[k])) continue;
          ExprRef x = facts_.canonical(xs[k]), y = facts_.canonical(ys[k]);
          ++r_.checked;
          if (x == y || facts_.asserted_equal(x, y)) continue;
          r_.violations.push_back({"memo", b.target,
                                   a.name + " and " + b.name + " compute " + b.target +
                                       " of the same values (" + join(b.args) + ") but give " +
                                       xs[k]->str() + " and " + ys[k]->str() +
                                       " with nothing making them equal"});
          break;
        }
        break;  // one earlier call is enough
      }
    }
  }

  // Whether torch 2.15's fake kernel of n's op keeps its data-dependent size in a memo of its
  // input (fake_impls.py): unique_consecutive only without a dim (aten's 4th argument).
  static bool memoized(const CapturedNode& n) {
    if (n.target == "aten.nonzero.default" || n.target == "aten._local_scalar_dense.default" ||
        n.target == "aten._unique2.default") {
      return true;
    }
    if (n.target != "aten.unique_consecutive.default") return false;
    for (size_t i = 0; i < n.call.size(); ++i) {
      const std::string& a = n.call[i];
      if ((i == 3 && a.find('=') == std::string::npos && a != "None") ||
          (a.rfind("dim=", 0) == 0 && a != "dim=None")) {
        return false;
      }
    }
    return true;
  }

  // A memoized call `b` that binds nothing: each unbacked symbol of its value must come from a
  // call of the same op on the same values (the memo's answer), not on other values.
  void check_no_stale_memo(const CapturedNode& b) {
    std::vector<ExprRef> symbols;  // in the order of the value (the report is deterministic)
    std::unordered_set<ExprRef, sym::ExprHash> seen;
    each_expr(*b.val, [&](const ExprRef& e) {
      if (!e) return;
      for (const ExprRef& s : sym::free_unbacked_symbols(e)) {
        if (seen.insert(s).second) symbols.push_back(s);
      }
    });
    for (const ExprRef& s : symbols) {
      std::optional<size_t> binder = facts_.bound_at(s);
      if (!binder) continue;  // unbound: the binding invariant's
      const CapturedNode& a = g_.nodes[*binder];
      if (a.target != b.target) continue;
      ++r_.checked;
      // The memo is the input's, whatever the call's flags (unique with and without counts
      // share it): only other input values make the reuse stale.
      if (values_of(a) == values_of(b)) continue;
      r_.violations.push_back({"memo", b.target,
                               b.name + " computes " + b.target + " of " + join(b.args) +
                                   " but reuses " + s->str() + " of " + a.name +
                                   ", which computed it of other values (" + join(a.args) +
                                   "): a memo kept across a mutation"});
      return;
    }
  }

  // Which values a memoized call reads, as a node name: its input, followed through the ops
  // that may hand back their input itself (flatten of a 1-D tensor, a view or reshape to the
  // same shape, contiguous of a contiguous tensor, alias, detach: one input node, the same
  // sizes). Anything else, in-place or not, is other values: in a functionalized graph
  // `x.add_(1)` is `aten.add.Tensor(x, 1)`, a node of the same shape whose values differ.
  std::string values_of(const CapturedNode& call) const {
    static const char* kMayReturnItsInput[] = {
        "aten.flatten.using_ints",   "aten.view.default",       "aten.reshape.default",
        "aten._unsafe_view.default", "aten.contiguous.default", "aten.alias.default",
        "aten.detach.default"};
    if (call.args.size() != 1) return join(call.args);
    std::string name = call.args[0];
    for (int hops = 0; hops < 64; ++hops) {
      const CapturedNode* n = node_named(name);
      if (!n || n->args.size() != 1 || !n->val ||
          std::none_of(std::begin(kMayReturnItsInput), std::end(kMayReturnItsInput),
                       [&](const char* t) { return n->target == t; })) {
        break;
      }
      const CapturedNode* in = node_named(n->args[0]);
      if (!in || !in->val || in->val->kind != CapturedValue::Kind::kTensor ||
          n->val->kind != CapturedValue::Kind::kTensor || in->val->sizes != n->val->sizes) {
        break;
      }
      name = in->name;
    }
    return name;
  }

  const CapturedNode* node_named(const std::string& name) const {
    for (const CapturedNode& n : g_.nodes) {
      if (n.name == name) return &n;
    }
    return nullptr;
  }

 private:
  const CapturedGraph& g_;
  const MemoFacts& facts_;
  InvariantReport& r_;
};

}  // namespace

void check_memo(const CapturedGraph& g, const MemoFacts& facts, InvariantReport& r) {
  MemoChecker(g, facts, r).run();
}

}  // namespace sf::torch_graph
