// Mutation is tracked from the graph itself (each mutating node bumps its target storage's
// count), independently of the fake tensors' version counters the engine's memo reads.
#include "oracles/memo_oracle.h"

#include <chrono>
#include <functional>
#include <map>
#include <set>

#include "engine/fake/fake_tensor.h"
#include "engine/program/schema.h"
#include "engine/sym/make.h"
#include "engine/sym/walk.h"
#include "oracles/invariants/graph_invariants.h"
#include "oracles/smt/deadline.h"
#include "oracles/smt/facts.h"

namespace sf::oracles {

using graph::Node;
using graph::NodeKind;
using program::OpKind;
using sym::ExprRef;
using SymSet = std::set<ExprRef, sym::ExprLess>;

namespace {

// The constant arguments after the tensor (unique's flags, item has none).
std::string arg_key(const graph::NodeArg& a) {
  switch (a.kind) {
    case graph::NodeArg::Kind::kInt:
      return std::to_string(a.i);
    case graph::NodeArg::Kind::kBool:
      return a.b ? "True" : "False";
    case graph::NodeArg::Kind::kFloat:
      return std::to_string(a.f);
    case graph::NodeArg::Kind::kNode:
      return "%" + a.node->name;
    case graph::NodeArg::Kind::kNone:
    case graph::NodeArg::Kind::kDType:
    case graph::NodeArg::Kind::kList:
      break;
  }
  return "?";
}

// The ops.def memoized tag: the spec's list of memoized ops (§3.3), not the fake layer's code.
bool memoized(OpKind op) { return program::schema(op).has(program::OpFeature::kMemoized); }

// INV-16 within one traced graph (each subgraph on its own: its tensors are its own). A cond or
// while_loop node bumps the epoch (its subgraphs are traced in fresh epochs), so a call after it
// must miss the memo of a call before it. `memo_symbols` collects what memoized calls allocated.
void check_memo_reuse_in(const MemoInputs& in, const graph::Graph& g, SymSet& memo_symbols,
                         std::map<const graph::Graph*, SymSet>& inside_of, OracleReport& report) {
  struct Seen {
    const Node* node;
    int64_t mutations;
    int64_t epoch;
    SymSet symbols;
  };
  std::map<int64_t, int64_t> mutations;  // storage id -> in-place ops seen so far
  std::map<std::pair<const void*, std::string>, Seen> seen;
  int64_t epoch = 0;
  for (const Node* n : g.nodes()) {
    if (graph::is_higher_order(n->kind)) {
      ++epoch;
      SymSet outputs;
      value_unbacked_symbols(n->value, outputs);
      for (const auto& sub : n->subgraphs) {
        // A region several invoke_subgraph calls share is checked once.
        auto [it, first_call] = inside_of.try_emplace(sub.get());
        SymSet& inside = it->second;
        if (first_call) {
          check_memo_reuse_in(in, *sub, inside, inside_of, report);
          // Freshness across the boundary: nothing a subgraph allocated is an outer memo's.
          for (const ExprRef& s : inside) {
            if (memo_symbols.count(s)) {
              report.violations.push_back({"memo", node_where(n) + ": its subgraph reuses " +
                                                       s->str() + " of a call outside it"});
            }
          }
          memo_symbols.insert(inside.begin(), inside.end());
        }
        // And out of it: each call binds its own symbols for what the subgraph allocated (a
        // cached region handing out its own, PR #149297, gives every call the same).
        for (const ExprRef& s : outputs) {
          if (inside.count(s)) {
            report.violations.push_back(
                {"memo", node_where(n) + ": its output holds " + s->str() +
                             ", which its subgraph allocates (each call must bind a fresh one)"});
          }
        }
      }
      continue;
    }
    if (n->kind != NodeKind::kCall) continue;
    const program::OpSchema& schema = program::schema(n->op);
    auto storage_of = [&](const graph::NodeArg& a) -> const fake::FakeTensor* {
      if (a.kind != graph::NodeArg::Kind::kNode || !fake::is_fake_tensor(a.node->value)) {
        return nullptr;
      }
      return &fake::fake_of(a.node->value);
    };
    if (schema.has(program::OpFeature::kMutation) && !n->args.empty()) {
      if (const fake::FakeTensor* t = storage_of(n->args[0])) ++mutations[t->storage()->id];
      continue;
    }
    if (!memoized(n->op) || n->args.empty()) continue;
    const fake::FakeTensor* t = storage_of(n->args[0]);
    if (!t) continue;
    SymSet symbols;
    value_unbacked_symbols(n->value, symbols);
    if (symbols.empty()) continue;  // a constant result (e.g. an empty input) allocates nothing
    memo_symbols.insert(symbols.begin(), symbols.end());
    std::string op_and_args = schema.name;
    for (size_t i = 1; i < n->args.size(); ++i) op_and_args += " " + arg_key(n->args[i]);
    auto key = std::make_pair(static_cast<const void*>(t), op_and_args);
    int64_t now = mutations[t->storage()->id];
    auto it = seen.find(key);
    if (it == seen.end()) {
      seen.emplace(key, Seen{n, now, epoch, symbols});
      continue;
    }
    const Seen& first = it->second;
    bool shared = first.symbols == symbols;
    std::string pair = node_where(first.node) + " and " + node_where(n) + " (" + schema.name +
                       " of the same tensor)";
    if (first.epoch != epoch) {
      if (shared) {
        report.violations.push_back(
            {"memo", pair + " share a symbol across a cond/while_loop, which bumps the epoch"});
      }
    } else if (in.inference_mode && shared) {
      report.violations.push_back(
          {"memo", pair + " share a symbol under inference mode, where memos are never written"});
    } else if (first.mutations != now && shared) {
      report.violations.push_back(
          {"memo",
           pair + " share a symbol although an in-place op changed the tensor between them"});
    } else if (!in.inference_mode && first.mutations == now && !shared) {
      report.violations.push_back(
          {"memo",
           pair + " allocated different symbols within one epoch and version (memo missed)"});
    }
    it->second = Seen{n, now, epoch, symbols};
  }
}

void check_memo_reuse(const MemoInputs& in, OracleReport& report) {
  SymSet memo_symbols;
  std::map<const graph::Graph*, SymSet> inside_of;
  check_memo_reuse_in(in, *in.traced, memo_symbols, inside_of, report);
}

// INV-17 with Z3: the fresh symbol at each old binding site equals the old one under the facts,
// and under σ when the run bound both.
void check_rebinding(const MemoInputs& in, const smt::Options& opts, OracleReport& report) {
  std::map<std::string, const Node*> by_name;
  for (const Node* n : in.final_graph->nodes()) by_name[n->name] = n;
  smt::Session& session = smt::Session::shared(opts);
  smt::Stats before = session.stats();
  smt::Session::Scope scope(session);
  smt::assume_all(session, smt::env_facts(*in.env));
  for (const Node* old : in.traced->nodes()) {
    if (smt::deadline_passed()) break;  // undecided: the pipeline says so
    if (old->kind == NodeKind::kPlaceholder || old->derived_binding) continue;
    auto it = by_name.find(old->name);
    if (it == by_name.end()) continue;  // removed by DCE
    for (const auto& [s, path] : old->unbacked_bindings) {
      if (!path.empty() && (path.back().kind == KeyEntry::Kind::kDivideBy ||
                            path.back().kind == KeyEntry::Kind::kConvertInt)) {
        continue;  // the raw value there is d*s or Eq(s, 1), judged by INV-17's checker
      }
      Value fresh = key_get(it->second->value, path);
      if (fresh.kind() != Value::Kind::kInt || fresh.expr() == s) continue;
      // A constant: facts after the node (a check that emptied a nonzero's input) let
      // re-propagation compute the value; nothing binds s any more and upstream drops it
      // (rebind_unbacked, spec §2.12), as INV-17 allows. The facts need not equate s with it.
      if (fresh.is_constant_scalar()) continue;
      smt::Result r = session.entails(sym::eq(fresh.expr(), s));
      if (r.status == smt::Status::kSat) {
        report.violations.push_back(
            {"memo", node_where(old) + ": after re-propagation " + keypath_str(path) + " is " +
                         fresh.str() + ", which the facts do not equate with " + s->str() +
                         " (counterexample " + r.model_str() + ")"});
      } else if (r.status != smt::Status::kUnsat) {
        report.undecided(node_where(old) + " rebinding", r);
      }
      if (in.run) {
        auto a = in.run->sigma.find(s);
        sym::EvalResult b = sym::evaluate(fresh.expr(), in.run->sigma);
        if (a != in.run->sigma.end() && b.defined && !(a->second == b.value)) {
          report.violations.push_back({"memo", node_where(old) + ": " + s->str() + " = " +
                                                   a->second.str() + " but its fresh name " +
                                                   fresh.str() + " = " + b.value.str() +
                                                   " in the same run"});
        }
      }
    }
  }
  report.smt.add(session.stats().since(before));
}

// INV-18: the symbols a renaming chain leads to, computed here from the renamings table.
ExprRef follow_renamings(const ShapeEnv& env, ExprRef s) {
  const auto& ren = env.replacement_table().renamings();
  for (int guard = 0; guard < 1000; ++guard) {
    auto it = ren.find(s);
    if (it == ren.end()) return s;
    s = it->second;
  }
  return s;
}

// Each extern's bind steps against the bindings its node recorded. An unrelated symbol at one of
// the node's keypaths, or the node's symbol read from another keypath, is defined once and would
// pass the counts in check_plan_defs. (That every binding of the node is defined somewhere, a memo
// hit's by an earlier extern, is checked there.)
void check_extern_binds(const MemoInputs& in, const lower::Plan& p, OracleReport& report) {
  for (size_t x = 0; x < p.externs.size(); ++x) {
    const graph::Node* n = p.externs[x].node;
    if (!n) continue;
    for (const lower::Step& st : p.steps) {
      if (st.kind != lower::Step::Kind::kBind || st.kernel != static_cast<int>(x) || st.expr ||
          st.rederived) {
        continue;
      }
      // A step at a keypath the node binds must bind that binding's symbol, and a step binding
      // one of the node's symbols must read it where the node does. Other steps are symbols
      // lowering defines beyond the node's (INV-18 allows more: a memo hit's re-run is fresh).
      bool wrong = false;
      for (const auto& [s, path] : n->unbacked_bindings) {
        bool same_path = path == st.path, same_symbol = follow_renamings(*in.env, s) == st.symbol;
        wrong = wrong || same_path != same_symbol;
      }
      if (wrong) {
        report.violations.push_back(
            {"memo", "plan extern " + p.externs[x].name + " binds " + st.symbol->str() + " at " +
                         keypath_str(st.path) + ", but " + node_where(n) + " records " +
                         bindings_str(n->unbacked_bindings) + " (resolved through the renamings)"});
      }
    }
  }
  for (const lower::Plan& sub : p.subplans) check_extern_binds(in, sub, report);
}

void check_plan_defs(const MemoInputs& in, OracleReport& report) {
  std::map<ExprRef, int, sym::ExprLess> defined;
  // The plan and the nested plans of its cond / while_loop steps (each symbol of a subgraph is
  // defined by its own plan; a HOP step defines the symbols of its outputs).
  std::function<void(const lower::Plan&)> collect = [&](const lower::Plan& p) {
    for (const lower::Step& st : p.steps) {
      // (A subplan's re-derivation of its caller's symbol is not a definition of its own.)
      if (st.kind == lower::Step::Kind::kBind && !st.rederived) ++defined[st.symbol];
      for (const auto& [sym_, path] : st.result_binds) ++defined[sym_];
    }
    for (const lower::Plan& sub : p.subplans) collect(sub);
  };
  collect(*in.plan);
  for (const auto& [s, count] : defined) {
    if (count > 1) {
      report.violations.push_back(
          {"memo", "the plan binds " + s->str() + " " + std::to_string(count) + " times"});
    }
  }
  check_extern_binds(in, *in.plan, report);
  in.final_graph->for_each_nested([&](const Node* n) {
    if (n->kind == NodeKind::kPlaceholder) return;
    for (const auto& [s, path] : n->unbacked_bindings) {
      ExprRef resolved = follow_renamings(*in.env, s);
      if (!defined.count(resolved) && !defined.count(s)) {
        report.violations.push_back({"memo", node_where(n) + " binds " + s->str() + " (resolved " +
                                                 resolved->str() +
                                                 ") but no step of the plan defines it"});
      }
    }
  });
}

}  // namespace

OracleReport check_memo(const MemoInputs& in, const smt::Options& opts) {
  auto start = std::chrono::steady_clock::now();
  OracleReport report;
  report.name = "memo";
  report.ran = in.env && in.traced;
  if (!report.ran) return report;
  check_memo_reuse(in, report);
  if (in.final_graph && in.final_graph != in.traced) check_rebinding(in, opts, report);
  if (in.plan && in.final_graph) check_plan_defs(in, report);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace sf::oracles
