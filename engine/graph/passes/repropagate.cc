// Re-propagation with rebinding.
#include "engine/graph/passes/repropagate.h"

#include <iterator>
#include <map>
#include <set>

#include "engine/base/check.h"
#include "engine/base/errors.h"
#include "engine/base/faults.h"
#include "engine/graph/divisibility_factors.h"
#include "engine/graph/hop_outputs.h"
#include "engine/graph/node_eval.h"
#include "engine/graph/scoped_asserts.h"
#include "engine/sym/make.h"
#include "engine/sym/walk.h"

namespace sf::graph {

namespace {

NodeArg remap(const NodeArg& a, const std::map<Node*, Node*>& m) {
  NodeArg out = a;
  if (a.kind == NodeArg::Kind::kNode) out.node = m.at(a.node);
  for (NodeArg& e : out.list) e = remap(e, m);
  return out;
}

std::vector<NodeArg> remap_all(const std::vector<NodeArg>& args, const std::map<Node*, Node*>& m) {
  std::vector<NodeArg> out;
  for (const NodeArg& a : args) out.push_back(remap(a, m));
  return out;
}

}  // namespace

namespace {

// The value an output argument denotes: a node's, a literal's, or a tuple of them (`return
// tolist(x)` returns a list of nodes). The binding oracle compares it with the run's output.
Value output_value(const NodeArg& a) {
  if (a.kind != NodeArg::Kind::kList) {
    return arg_value(a, [](Node* n) -> const Value& { return n->value; });
  }
  std::vector<Value> elems;
  for (const NodeArg& e : a.list) elems.push_back(output_value(e));
  return Value::tuple(std::move(elems));
}

// Re-propagates one graph. `subgraph`: its placeholders keep their traced values (the symbols
// the caller lifted in, and a loop's int carries, are stated in the traced names, which the
// caller's rebinding restores); the top-level graph's placeholders are re-fakified. `late`: the
// symbols a subgraph gets as placeholders after its traced ones (late_inputs).
Graph repropagate_graph(Trace& t, const Graph& old_graph, bool subgraph,
                        const RepropagateOptions& opts, const std::vector<ExprRef>& late = {},
                        const std::map<std::string, Value>& refakified = {});

// Where `g` binds a symbol: the node whose binding resolves to it (a fresh symbol renamed to it).
BindingSite bound_in(const Graph& g, const ShapeEnv& env);

// The symbols a replacement recorded after a HOP's subgraphs were traced brought into their
// lifted sizes (u2 == u0*u1 from a broadcast after the call, u0 == 2*s0 from a later check):
// re-propagated, the subgraphs' values read them, and no traced placeholder gives them. They
// are lifted now, as placeholders after the traced ones, in this order, for every subgraph of
// the node (its args are shared).
std::vector<ExprRef> late_inputs(const Node& old, const ShapeEnv& env) {
  std::set<ExprRef, sym::ExprLess> have, seen;
  std::vector<ExprRef> out;
  for (const auto& sub : old.subgraphs) {
    std::vector<Value> values;
    for (const Node* ph : sub->placeholders()) values.push_back(ph->value);
    std::set<ExprRef, sym::ExprLess> lifted = symbols_of(values);
    have.insert(lifted.begin(), lifted.end());
  }
  for (const ExprRef& s : have) {
    for (const ExprRef& x : sym::free_symbols(env.replace(s))) {
      if (!have.count(x) && seen.insert(x).second) out.push_back(x);
    }
  }
  return out;
}

// The subgraphs of one graph re-propagated so far, by their traced graph: a region that several
// invoke_subgraph nodes share is re-propagated once and shared again, as it was traced.
using Regions = std::map<const Graph*, std::shared_ptr<Graph>>;

// A HOP node again: its subgraphs re-propagated (each in a fresh epoch, as traced), then its
// outputs merged again, which makes fresh symbols for the node to bind.
Value repropagate_hop(Trace& t, Graph& g, const Node& old, Node& n, const RepropagateOptions& opts,
                      Regions& regions) {
  // Late inputs the caller can give (bound before the node): read here, passed as extra args.
  std::vector<ExprRef> late;
  BindingSite site_of = bound_in(g, *t.env);
  Node* before = g.before(&n);
  for (const ExprRef& x : late_inputs(old, *t.env)) {
    std::optional<std::pair<Node*, KeyPath>> site = site_of(x);
    if (!site || site->first == &n) continue;  // bound later: lowering re-derives what it can
    Node* src = reify_keypath(g, site->first, site->second, before);
    if (src != site->first) before = src;
    n.args.push_back(NodeArg::of(src));
    src->users.push_back(&n);
    late.push_back(x);
  }
  std::vector<Value> outs[2];
  for (size_t i = 0; i < old.subgraphs.size(); ++i) {
    t.mode->bump_epoch();
    std::shared_ptr<Graph>& sub = regions[old.subgraphs[i].get()];
    if (!sub) {
      sub = std::make_shared<Graph>();
      {
        // What re-propagating it records (a fresh symbol's own asserts) belongs to it as well,
        // and what it learns holds only inside it, as when it was traced.
        ShapeEnv::FactScope facts(t.env.get());
        ScopedAsserts scope(*t.env, *sub);
        *sub = repropagate_graph(t, *old.subgraphs[i], true, opts, late);
      }
      sub->scoped_asserts.insert(sub->scoped_asserts.begin(),
                                 old.subgraphs[i]->scoped_asserts.begin(),
                                 old.subgraphs[i]->scoped_asserts.end());
      t.mode->bump_epoch();
    }
    n.subgraphs.push_back(sub);
    Node* out = sub->output();
    SF_CHECK(out) << "subgraph " << i << " of %" << old.name << " has no output";
    outs[i] = out->value.elems();
  }
  std::string where = "line " + std::to_string(old.line) + ": " + old.name;
  std::vector<Value> values;
  if (old.kind == NodeKind::kCond) {
    SF_CHECK(outs[0].size() == outs[1].size()) << "cond branches re-propagated apart";
    for (size_t i = 0; i < outs[0].size(); ++i)
      values.push_back(merge_cond_output(*t.mode, outs[0][i], outs[1][i], i, where));
  } else if (old.kind == NodeKind::kInvokeSubgraph || old.kind == NodeKind::kMap ||
             old.kind == NodeKind::kScan) {
    // What the region's placeholders hold are its inputs (the traced names, as the caller's
    // rebinding restores them).
    std::vector<Value> placeholder_values;
    for (const Node* ph : n.subgraphs[0]->placeholders()) placeholder_values.push_back(ph->value);
    std::set<ExprRef, sym::ExprLess> inputs = symbols_of(placeholder_values);
    if (old.kind == NodeKind::kMap || old.kind == NodeKind::kScan) {
      // The rows: the first mapped operand's first size, as it is now; a scan's carries first.
      const NodeArg& xs = n.args.at(old.mapped_args.at(0));
      SF_CHECK(xs.kind == NodeArg::Kind::kNode) << "map/scan operand of %" << old.name;
      SymInt rows = xs.node->value.tensor()->sizes().at(0);
      for (size_t i = 0; i < outs[0].size(); ++i) {
        if (i < old.carry_args.size()) {
          const NodeArg& a = n.args.at(old.carry_args[i]);
          Value carry = a.kind == NodeArg::Kind::kNode ? a.node->value : Value(SymInt(a.i));
          values.push_back(while_loop_output(*t.mode, carry));
        } else {
          values.push_back(map_output(*t.mode, outs[0][i], rows, inputs, where));
        }
      }
    } else {
      for (const Value& v : outs[0])
        values.push_back(invoke_subgraph_output(*t.mode, v, inputs, where));
    }
  } else {
    // while_loop: the carries' values entering the loop (the other args are lifted symbols);
    // associative_scan: its operands (in the left rows' slots), whose shapes its outputs keep.
    for (size_t k : old.carry_args) {
      const NodeArg& a = n.args.at(k);
      Value carry = a.kind == NodeArg::Kind::kNode ? a.node->value : Value(SymInt(a.i));
      values.push_back(while_loop_output(*t.mode, carry));
    }
  }
  return Value::tuple(values);
}

BindingSite bound_in(const Graph& g, const ShapeEnv& env) {
  return [&g, &env](const ExprRef& s) -> std::optional<std::pair<Node*, KeyPath>> {
    for (Node* n : g.nodes()) {
      for (const Bindings* b : {&n->unbacked_bindings, &n->input_bindings}) {
        for (const auto& [x, path] : *b) {
          if (x == s || env.resolve_renaming(x) == s) return std::make_pair(n, path);
        }
      }
    }
    return std::nullopt;
  };
}

Graph repropagate_graph(Trace& t, const Graph& old_graph, bool subgraph,
                        const RepropagateOptions& opts, const std::vector<ExprRef>& late,
                        const std::map<std::string, Value>& refakified) {
  ShapeEnv& env = *t.env;
  Graph g;
  std::map<Node*, Node*> m;
  Regions regions;
  bool late_added = false;
  auto add_late_placeholders = [&] {
    if (late_added) return;
    late_added = true;
    for (const ExprRef& x : late) {
      Node* p = g.add(NodeKind::kPlaceholder, x->str(), {});
      p->input_name = x->str();
      p->value = Value(SymInt(x));
      p->input_bindings.emplace(x, KeyPath{});
    }
  };
  auto value_of = [&](Node* old) -> const Value& { return m.at(old)->value; };
  for (Node* old : old_graph.nodes()) {
    if (old->kind != NodeKind::kPlaceholder) add_late_placeholders();
    Node* n = g.add(old->kind, old->name, remap_all(old->args, m));
    m[old] = n;
    n->op = old->op;
    n->line = old->line;
    n->message = old->message;
    n->input_name = old->input_name;
    n->derived_binding = old->derived_binding;
    n->function_names = old->function_names;
    n->carry_args = old->carry_args;
    n->mapped_args = old->mapped_args;
    n->scan_dim = old->scan_dim;
    n->view_decisions = old->view_decisions;
    switch (old->kind) {
      case NodeKind::kPlaceholder: {
        auto fresh = refakified.find(old->input_name);
        n->value = !subgraph && fresh != refakified.end() ? fresh->second : old->value;
        n->unbacked_bindings = old->unbacked_bindings;
        n->input_bindings = old->input_bindings;
        continue;
      }
      case NodeKind::kOutput: {
        // A returned literal (`return 0`) or list keeps its value: the binding oracle compares
        // each output's value with the run's.
        std::vector<Value> values;
        for (const NodeArg& a : n->args) values.push_back(output_value(a));
        n->value = Value::tuple(values);
        continue;
      }
      case NodeKind::kCheck:
      case NodeKind::kAssertScalar: {
        n->assert_expr = old->assert_expr;
        if (!n->args.empty() && n->args[0].kind == NodeArg::Kind::kNode &&
            n->args[0].node->value.kind() == Value::Kind::kBool) {
          // Re-running the check on renamed symbols: mostly known already. Where facts learned
          // since the trace make its dividend a symbol (Max(1, u0) once u0 >= 1), it allocates a
          // divisibility factor the trace did not: bound like the tracer binds one.
          env.check(n->args[0].node->value.as_bool(), n->message);
          n->assert_expr = n->args[0].node->value.expr();
          bind_divisibility_factors(g, env, bound_in(g, env), n->line);
        }
        continue;
      }
      case NodeKind::kCond:
      case NodeKind::kWhileLoop:
      case NodeKind::kInvokeSubgraph:
      case NodeKind::kMap:
      case NodeKind::kScan:
      case NodeKind::kAssociativeScan: {
        n->value = repropagate_hop(t, g, *old, *n, opts, regions);
        std::optional<Bindings> fresh = env.compute_unbacked_bindings(n->value);
        if (fresh) n->unbacked_bindings = *fresh;
        env.rebind_unbacked(old->unbacked_bindings, n->value, false);
        continue;
      }
      case NodeKind::kCall:
      case NodeKind::kGetItem:
      case NodeKind::kStorageOffset:
        break;  // re-evaluated below
    }
    if (old->derived_binding) {
      // i1 = i0 // d is computed, not allocated: the old symbol stays its own binding. In a
      // subgraph the check that made it taught i0 == d * i1 only inside the scope that closed
      // since: taught again here, so re-running that check allocates no second factor.
      n->value = old->value;
      n->unbacked_bindings = old->unbacked_bindings;
      // (A dividend known to be a number by now needs nothing: the check decides itself.)
      const NodeArg& i0 = n->args.at(0);
      ExprRef factor = sym::mul(sym::integer(n->args.at(1).i), old->value.expr());
      ExprRef dividend =
          i0.kind == NodeArg::Kind::kNode ? env.replace(i0.node->value.expr()) : ExprRef();
      if (subgraph && dividend && dividend->is(sym::ExprKind::kSymbol) &&
          dividend != env.replace(factor)) {
        env.set_replacement(dividend, factor, "divisibility");
      }
      continue;
    }
    fake::MetaContext ctx{*t.mode, "line " + std::to_string(old->line) + ": " + old->name};
    if (old->kind == NodeKind::kCall &&
        (old->op == program::OpKind::kSlice || old->op == program::OpKind::kNarrow) &&
        !old->unbacked_bindings.empty()) {
      fake::MetaContext::SliceReplay replay;
      for (const auto& [s, path] : old->unbacked_bindings) {
        bool offset = path.size() == 1 && path[0].kind == KeyEntry::Kind::kCallMethod &&
                      path[0].method == TensorMethod::kStorageOffset;
        (offset ? replay.fresh_offset : replay.fresh_size) = true;
      }
      ctx.slice_replay = replay;
    }
    if (!old->view_decisions.empty()) ctx.view_replay = old->view_decisions;
    n->value = eval_node(ctx, *old, value_of);
    std::optional<Bindings> fresh = env.compute_unbacked_bindings(n->value);
    if (fresh) n->unbacked_bindings = *fresh;
    env.rebind_unbacked(old->unbacked_bindings, n->value, false);
  }
  add_late_placeholders();
  if (!env.pending_fresh_unbacked_symbols().empty()) {
    throw EngineBug("pending unbacked symbols left after re-propagation (INV-1)");
  }
  return g;
}

// The backend's side of #113926: its fresh fake mode re-fakifies every input of the graph
// through the input's stateful symbolic context, which must hand back the traced symbols (a new
// unbacked symbol here would be pending with no binding site). Upstream the backend then traces
// the graph in that mode before re-propagating it, which leaves on each input the memos the trace
// left: they are carried over (stamped in the fresh mode's current epoch), so the epoch bump that
// follows is what must keep them from being reused.
std::map<std::string, Value> refakify_inputs(Trace& t, const Graph& g, const fake::FakeMode& traced,
                                             fake::FakeMode& fresh) {
  std::map<std::string, Value> out;
  for (Node* n : g.nodes()) {
    if (n->kind != NodeKind::kPlaceholder || n->input_name.empty()) continue;
    const program::InputDecl* decl = nullptr;
    for (const program::InputDecl& in : t.program->inputs) {
      if (in.name == n->input_name) decl = &in;
    }
    if (!decl) continue;  // a symbol's late placeholder, not an input
    // The fault: the fresh mode fakifies without the inputs' stateful contexts, so each input
    // symbol is created anew (before #113926 piped the contexts through).
    StatefulSymbolicContext* context =
        fault_on(Fault::kFreshModeWithoutSymbolCache) ? nullptr : &t.contexts[decl->name];
    Value v = fresh.fakify_input(*decl, context);
    std::optional<Bindings> b = t.env->compute_unbacked_bindings(v);
    SF_CHECK(!b) << "re-fakifying input " << n->name << " allocated fresh symbols";
    if (v.kind() == Value::Kind::kTensor && n->value.kind() == Value::Kind::kTensor) {
      const fake::FakeTensor& from = fake::fake_of(n->value);
      const fake::FakeTensor& to = fake::fake_of(v);
      for (fake::Memo fake::FakeTensor::*memo :
           {&fake::FakeTensor::nonzero_memo, &fake::FakeTensor::item_memo,
            &fake::FakeTensor::unique_memo, &fake::FakeTensor::unique_consecutive_memo}) {
        if (std::optional<Value> m = traced.memo_get(from, memo)) fresh.memo_set(to, memo, *m);
      }
    }
    t.refakified.push_back(decl->name);
    out.emplace(n->input_name, std::move(v));
  }
  return out;
}

}  // namespace

Graph repropagate(Trace& t, const RepropagateOptions& opts) {
  std::map<std::string, Value> refakified;
  if (opts.fresh_fake_mode) {
    auto mode = std::make_unique<fake::FakeMode>(t.env.get());
    mode->inference_mode = t.mode->inference_mode;
    refakified = refakify_inputs(t, t.graph, *t.mode, *mode);
    t.mode = std::move(mode);
  }
  if (opts.bump_epoch) t.mode->bump_epoch();
  return repropagate_graph(t, t.graph, false, opts, {}, refakified);
}

}  // namespace sf::graph
