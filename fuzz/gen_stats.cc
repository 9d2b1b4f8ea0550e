// Coverage of the program generator over seeds (see gen_stats.h): read from each program's text
// and from the graph the pipeline traced for it, never from the generator's own bookkeeping.
#include "fuzz/gen_stats.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/schema.h"
#include "engine/sym/walk.h"
#include "fuzz/campaign.h"
#include "fuzz/features.h"
#include "fuzz/gen/shape_env_gen.h"
#include "fuzz/run_generated.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {

namespace {

using program::Expr;
using program::OpKind;
using program::Stmt;

const char* entry_kind(const KeyEntry& e) {
  switch (e.kind) {
    case KeyEntry::Kind::kSequence:
      return "sequence [i]";
    case KeyEntry::Kind::kCallMethod:
      switch (e.method) {
        case TensorMethod::kSize:
          return "size(i)";
        case TensorMethod::kStride:
          return "stride(i)";
        case TensorMethod::kStorageOffset:
          return "storage_offset()";
      }
      return "?";
    case KeyEntry::Kind::kInnerTensor:
      return "inner tensor .attr";
    case KeyEntry::Kind::kDivideBy:
      return "divide by // d";
    case KeyEntry::Kind::kConvertInt:
      return "convert int()";
  }
  return "?";
}

// One count per entry kind the path has (a path with two sequence entries counts once).
void count_entry_kinds(const KeyPath& path, std::map<std::string, int64_t>* counts) {
  std::set<std::string> kinds;
  for (const KeyEntry& e : path) kinds.insert(entry_kind(e));
  if (path.empty()) kinds.insert("empty path ()");
  for (const std::string& k : kinds) ++(*counts)[k];
}

// Per program: what its statements do, in order (for "data-dependent op after an in-place op").
struct ProgramWalk {
  std::set<std::string> ops;
  std::set<std::string> features;
  std::map<std::string, int64_t> calls;
  std::set<std::string> mutated;                 // variables an in-place op has written so far
  std::set<std::string> dd_read;                 // variables a data-dependent op has read so far
  std::map<std::string, std::string> output_of;  // unpacked target -> "unique output [1]"
  int64_t statements = 0;
  const program::Program* program = nullptr;  // for the functions higher-order ops call
  int depth = 0;                              // inside how many of their bodies
  std::map<std::string, int> region_calls;    // invoke_subgraph calls per function
  std::set<std::string> scalars;              // int/float scalar variables (inputs, results)

  // The bodies of the functions a higher-order op calls, walked as nested code.
  void bodies(const Stmt& st) {
    if (depth > 0) features.insert("higher-order op inside a body");
    if (!program) return;
    ++depth;
    for (const std::string& name : st.functions) {
      for (const program::FunctionDef& f : program->functions) {
        if (f.name == name) stmts(f.body);
      }
    }
    --depth;
  }

  // Whether `e` is an int or float scalar variable (an input or a scalar result).
  bool is_scalar_var(const program::ExprPtr& e) const {
    return e && e->kind == Expr::Kind::kVar && scalars.count(e->name);
  }
  // Whether `e` computes a scalar: a scalar op, or arithmetic on a scalar variable.
  bool is_scalar_expr(const program::ExprPtr& e) const {
    if (!e || e->kind != Expr::Kind::kCall) return is_scalar_var(e);
    if (program::schema(e->op).has(program::OpFeature::kScalarOutput)) return true;
    return !e->args.empty() && is_scalar_var(e->args[0]);
  }

  void expr(const program::ExprPtr& e) {
    if (!e) return;
    if (e->kind == Expr::Kind::kCall &&
        (e->op == OpKind::kFloorDiv || e->op == OpKind::kRemainder) && e->args.size() == 2 &&
        is_scalar_var(e->args[0]) && is_scalar_var(e->args[1])) {
      features.insert("scalar // or % by an int variable");
    }
    if (e->kind == Expr::Kind::kVar) {
      auto it = output_of.find(e->name);
      if (it != output_of.end()) features.insert(it->second + " read");
    }
    for (const program::ExprPtr& x : e->elems) expr(x);
    for (const program::ExprPtr& x : e->args) expr(x);
    for (const auto& kw : e->kwargs) expr(kw.second);
    if (e->kind != Expr::Kind::kCall) return;
    const program::OpSchema& s = program::schema(e->op);
    ops.insert(s.name);
    ++calls[s.name];
    if (s.has(program::OpFeature::kMultiOutput)) features.insert("multi-output op");
    if (s.allocates_unbacked) {
      features.insert("data-dependent op");
      if (depth > 0) features.insert("data-dependent op inside a body");
      for (const program::ExprPtr& a : e->args) {
        if (a && a->kind == Expr::Kind::kVar) {
          if (mutated.count(a->name))
            features.insert("data-dependent op after an in-place op on its operand");
          dd_read.insert(a->name);
        }
      }
    }
    if (s.has(program::OpFeature::kMutation)) {
      features.insert("in-place op");
      for (const program::ExprPtr& a : e->args) {
        if (a && a->kind == Expr::Kind::kVar) {
          if (dd_read.count(a->name))
            features.insert("in-place op on a data-dependent op's operand");
          mutated.insert(a->name);
          break;  // the first argument is the one written
        }
      }
    }
  }

  // The generator names a model family's variables after it (fuzz/gen/gen_families.cc).
  void family(const std::vector<std::string>& targets) {
    static const std::pair<const char*, const char*> kFamilies[] = {
        {"moe_", "model family: mixture-of-experts routing"},
        {"det_", "model family: detection post-processing"},
        {"rag_", "model family: ragged batch"}};
    for (const std::string& t : targets) {
      for (const auto& [prefix, feature] : kFamilies) {
        if (t.rfind(prefix, 0) != 0) continue;
        features.insert(feature);
        if (depth > 0) features.insert("model family inside a body");
      }
    }
  }

  void stmts(const std::vector<Stmt>& body) {
    for (const Stmt& st : body) {
      ++statements;
      switch (st.kind) {
        case Stmt::Kind::kAssign:
          expr(st.value);
          family(st.targets);
          if (st.targets.size() == 1 && is_scalar_expr(st.value)) scalars.insert(st.targets[0]);
          if (st.targets.size() > 1 && st.value && st.value->kind == Expr::Kind::kCall) {
            for (size_t i = 0; i < st.targets.size(); ++i) {
              output_of[st.targets[i]] = program::schema(st.value->op).name + " output [" +
                                         std::to_string(std::min<size_t>(i, 2)) + "]";
            }
          }
          // `t_ = add_(t, 1)`: the result aliases the mutated tensor; a later query on it counts
          // as after the in-place op.
          if (st.value && st.value->kind == Expr::Kind::kCall &&
              program::schema(st.value->op).has(program::OpFeature::kMutation)) {
            for (const std::string& t : st.targets) mutated.insert(t);
          }
          break;
        case Stmt::Kind::kCheck:
          features.insert("check");
          if (depth > 0) features.insert("check inside a body");
          if (st.value && st.value->kind == Expr::Kind::kCall && st.value->op == OpKind::kEq) {
            features.insert("equality check (==)");
          }
          expr(st.value);
          break;
        case Stmt::Kind::kCheckIsSize:
          features.insert("check_is_size");
          if (depth > 0) features.insert("check inside a body");
          expr(st.value);
          expr(st.max);
          break;
        case Stmt::Kind::kIf:
          features.insert("static if");
          expr(st.value);
          stmts(st.then_body);
          stmts(st.else_body);
          break;
        case Stmt::Kind::kReturn:
          for (const program::ExprPtr& r : st.returns) expr(r);
          break;
        case Stmt::Kind::kCond:
          features.insert("cond");
          expr(st.value);
          for (const program::ExprPtr& o : st.operands) expr(o);
          bodies(st);
          break;
        case Stmt::Kind::kWhileLoop:
          features.insert("while_loop");
          for (const program::ExprPtr& o : st.operands) expr(o);
          bodies(st);
          break;
        case Stmt::Kind::kScan:
          features.insert("scan");
          for (const program::ExprPtr& o : st.operands) expr(o);
          bodies(st);
          break;
        case Stmt::Kind::kAssociativeScan:
          features.insert("associative_scan");
          for (const program::ExprPtr& o : st.operands) expr(o);
          bodies(st);
          break;
        case Stmt::Kind::kMap:
          features.insert("map");
          for (const program::ExprPtr& o : st.operands) expr(o);
          bodies(st);
          break;
        case Stmt::Kind::kInvokeSubgraph:
          features.insert("invoke_subgraph");
          if (++region_calls[st.functions.at(0)] == 2)
            features.insert("region called more than once");
          for (const program::ExprPtr& o : st.operands) expr(o);
          bodies(st);
          break;
      }
    }
  }
};

bool mentions_float(const ExprRef& e) {
  if (!e) return false;
  if (sym::contains_kind(e, sym::ExprKind::kToFloat) ||
      sym::contains_kind(e, sym::ExprKind::kFloat))
    return true;
  for (const ExprRef& s : sym::free_symbols(e)) {
    if (s->is_float()) return true;
  }
  return false;
}

std::string percent(int64_t n, int64_t of) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%5.1f%%", of ? 100.0 * static_cast<double>(n) / of : 0.0);
  return buf;
}

}  // namespace

GenStats collect_gen_stats(uint64_t first_seed, uint64_t count) {
  GenStats st;
  auto cpu = backend::make_cpu_backend();
  for (uint64_t k = 0; k < count; ++k) {  // seeds count modulo 2^64, as gen's
    uint64_t seed = first_seed + k;
    GeneratedProgram g = generated_for_seed(seed);
    ++st.programs;
    ProgramWalk w;
    std::set<std::string> unbacked_inputs;  // with an unbacked dim, or an unbacked int
    for (const program::InputDecl& in : g.program.inputs) {
      for (program::DimMode m : in.dims) {
        if (m == program::DimMode::kDynamic) w.features.insert("dynamic input dim");
        if (m == program::DimMode::kUnbacked) {
          w.features.insert("unbacked input dim");
          unbacked_inputs.insert(in.name);
        }
      }
      if (!in.is_tensor) w.scalars.insert(in.name);
      if (!in.is_tensor && in.scalar_mode == program::DimMode::kDynamic) {
        w.features.insert("dynamic scalar input");
      }
      if (!in.is_tensor && in.scalar_mode == program::DimMode::kUnbacked) {
        w.features.insert("unbacked scalar input");
        unbacked_inputs.insert(in.name);
      }
    }
    if (g.program.header.inference_mode) w.features.insert("inference mode");
    w.program = &g.program;
    w.stmts(g.program.body);
    st.statements += w.statements;

    oracles::PipelineOptions opts;
    opts.backend = cpu.get();
    oracles::PipelineResult r = run_generated(g, opts);
    ++st.verdicts[r.verdict.bucket()];
    if (r.run || r.run_error) ++st.reached_execution;
    // Counted from what re-propagation did: an input with an unbacked dim (or an unbacked int)
    // that it re-fakified in its fresh fake mode, which must give it back the traced symbols
    // (the source -> symbol cache; INV-17 checks the placeholders).
    if (r.trace) {
      for (const std::string& name : r.trace->refakified) {
        if (unbacked_inputs.count(name)) {
          w.features.insert("unbacked input re-fakified in a fresh fake mode");
        }
      }
    }
    const graph::Graph* graph = r.final_graph ? &*r.final_graph
                                : r.trace     ? &r.trace->graph
                                              : nullptr;
    if (graph) {
      graph->for_each([&](const graph::Node* n) {
        for (const auto& [symbol, path] : n->unbacked_bindings) {
          count_entry_kinds(path, &st.keypath_kinds);
          ++st.keypath_shapes[abstract_numbers(keypath_str(path))];
          // A divisibility factor is bound by a floordiv node (i0 // d), or by a DivideBy path.
          for (const KeyEntry& e : path) {
            if (e.kind == KeyEntry::Kind::kDivideBy)
              w.features.insert("divisibility binding (// d)");
          }
          if (n->derived_binding) w.features.insert("divisibility binding (// d)");
        }
        if (n->kind == graph::NodeKind::kCall && n->op == OpKind::kItem && !n->args.empty() &&
            n->args[0].node &&
            graph::value_type_str(n->args[0].node->value).rfind("bool", 0) == 0) {
          w.features.insert("item on a bool tensor");
        }
        // A program check is a kCheck node when traced and a runtime assert once re-propagated.
        if ((n->kind == graph::NodeKind::kCheck || n->kind == graph::NodeKind::kAssertScalar) &&
            mentions_float(n->assert_expr)) {
          w.features.insert("check on a float value");
        }
      });
    }
    if (w.features.count("data-dependent op")) ++st.data_dependent;
    SeedSource driver_src(seed);
    ShapeEnv env;
    for (const auto& [value, bindings] : drive_shape_env(driver_src, env, 60).exposed) {
      for (const auto& [symbol, path] : bindings) count_entry_kinds(path, &st.driver_keypath_kinds);
    }
    for (const std::string& op : w.ops) ++st.op_programs[op];
    for (const auto& [op, n] : w.calls) st.op_calls[op] += n;
    for (const std::string& f : w.features) ++st.features[f];
  }
  return st;
}

std::string GenStats::report() const {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  line("programs: " + std::to_string(programs) + ", statements: " + std::to_string(statements) +
       " (" + std::to_string(programs ? statements / programs : 0) + " per program)");
  line("reached execution: " + percent(reached_execution, programs) + "  (target >= 90%)");
  line("with a data-dependent op: " + percent(data_dependent, programs) + "  (target >= 50%)");
  line("\nverdicts:");
  for (const auto& [v, n] : verdicts) line("  " + percent(n, programs) + "  " + v);
  line("\nfeatures (programs with at least one):");
  // Every feature the report knows, so one never reached shows as 0 rather than missing.
  for (const char* f : {"dynamic input dim",
                        "unbacked input dim",
                        "dynamic scalar input",
                        "unbacked scalar input",
                        "unbacked input re-fakified in a fresh fake mode",
                        "inference mode",
                        "data-dependent op",
                        "multi-output op",
                        "unique output [0] read",
                        "unique output [1] read",
                        "tolist output [0] read",
                        "tolist output [1] read",
                        "in-place op",
                        "data-dependent op after an in-place op on its operand",
                        "in-place op on a data-dependent op's operand",
                        "check",
                        "equality check (==)",
                        "check on a float value",
                        "check_is_size",
                        "scalar // or % by an int variable",
                        "static if",
                        "cond",
                        "while_loop",
                        "invoke_subgraph",
                        "region called more than once",
                        "map",
                        "scan",
                        "associative_scan",
                        "check inside a body",
                        "data-dependent op inside a body",
                        "higher-order op inside a body",
                        "item on a bool tensor",
                        "divisibility binding (// d)",
                        "model family: mixture-of-experts routing",
                        "model family: detection post-processing",
                        "model family: ragged batch",
                        "model family inside a body"}) {
    auto it = features.find(f);
    line("  " + percent(it == features.end() ? 0 : it->second, programs) + "  " + f);
  }
  line("\nbinding-path entry kinds (bindings with one): programs | ShapeEnv driver");
  // Why the language's ops cannot produce a kind, where that is so.
  const std::map<std::string, std::string> why_not = {
      {"stride(i)", "no op makes a fresh symbol that only a stride holds"},
      {"storage_offset()", "only a slice with an undecided start does"},
      {"inner tensor .attr", "the language has no tensor subclasses"},
      {"divide by // d",
       "no op returns c*u for a fresh u; divisibility factors bind by floordiv (decisions.md)"}};
  for (const char* k : {"sequence [i]", "size(i)", "stride(i)", "storage_offset()",
                        "inner tensor .attr", "divide by // d", "convert int()", "empty path ()"}) {
    auto count = [&](const std::map<std::string, int64_t>& m) {
      auto it = m.find(k);
      return it == m.end() ? std::string("NOT REACHED") : std::to_string(it->second);
    };
    auto why = why_not.find(k);
    line("  " + count(keypath_kinds) + " | " + count(driver_keypath_kinds) + "  " + k +
         (why != why_not.end() && !keypath_kinds.count(k) ? "  (" + why->second + ")" : ""));
  }
  line("\nbinding paths:");
  for (const auto& [p, n] : keypath_shapes)
    line("  " + std::to_string(n) + "  " + (p.empty() ? "()" : p));
  line("\nops (programs with the op / calls):");
  std::string never;
  for (OpKind op : program::all_ops()) {
    const program::OpSchema& s = program::schema(op);
    auto it = op_programs.find(s.name);
    if (it == op_programs.end()) {
      never += " " + s.name + (s.gen_weight <= 0 ? "(weight 0)" : "");
      continue;
    }
    line("  " + percent(it->second, programs) + "  " + std::to_string(op_calls.at(s.name)) + "  " +
         s.name);
  }
  line("never drawn:" + (never.empty() ? std::string(" none") : never));
  return out;
}

std::string GenStats::to_json() const {
  nlohmann::ordered_json j = {{"programs", programs},
                              {"statements", statements},
                              {"reached_execution", reached_execution},
                              {"data_dependent", data_dependent},
                              {"op_calls", op_calls},
                              {"op_programs", op_programs},
                              {"features", features},
                              {"keypath_kinds", keypath_kinds},
                              {"keypath_shapes", keypath_shapes},
                              {"driver_keypath_kinds", driver_keypath_kinds},
                              {"verdicts", verdicts}};
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::optional<GenStats> GenStats::from_json(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  try {
    GenStats s;
    s.programs = j.at("programs").get<int64_t>();
    s.statements = j.at("statements").get<int64_t>();
    s.reached_execution = j.at("reached_execution").get<int64_t>();
    s.data_dependent = j.at("data_dependent").get<int64_t>();
    s.op_calls = j.at("op_calls").get<std::map<std::string, int64_t>>();
    s.op_programs = j.at("op_programs").get<std::map<std::string, int64_t>>();
    s.features = j.at("features").get<std::map<std::string, int64_t>>();
    s.keypath_kinds = j.at("keypath_kinds").get<std::map<std::string, int64_t>>();
    s.keypath_shapes = j.at("keypath_shapes").get<std::map<std::string, int64_t>>();
    s.driver_keypath_kinds = j.at("driver_keypath_kinds").get<std::map<std::string, int64_t>>();
    s.verdicts = j.at("verdicts").get<std::map<std::string, int64_t>>();
    return s;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace sf::fuzz
