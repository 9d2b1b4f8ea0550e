// Helpers for program-level graph tests: parse .sfz text, trace it (or run the whole pipeline on
// the CPU backend), and read back node bindings, ranges, deferred-assert buckets and the order of
// nodes in a printed graph.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/graph/graph.h"
#include "engine/graph/tracer.h"
#include "engine/program/parser.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/make.h"
#include "oracles/pipeline.h"

namespace sf::sym {
// Lets GoogleTest print expressions in failure messages instead of raw bytes.
inline void PrintTo(const ExprRef& e, std::ostream* os) { *os << (e ? e->str() : "null"); }
}  // namespace sf::sym

namespace sf::graph::testing {

// A program from its body; "# sfz 1" is prepended (header directives may follow in `text`).
inline program::Program sfz(std::string_view text) {
  return program::parse_program("# sfz 1\n" + std::string(text));
}

// The whole pipeline with the run on the CPU backend (its sigma holds what the plan computed).
inline oracles::PipelineResult run_on_cpu(std::string_view text) {
  static std::unique_ptr<backend::Backend> cpu = backend::make_cpu_backend();
  oracles::PipelineOptions opts;
  opts.backend = cpu.get();
  return oracles::run_pipeline(sfz(text), opts);
}

inline Trace trace(std::string_view text, const TraceOptions& opts = {}) {
  return trace_program(sfz(text), opts);
}

inline ExprRef U(int64_t i) { return sym::symbol(sym::SymKind::kUnbackedInt, i); }
inline ExprRef ZUF(int64_t i) { return sym::symbol(sym::SymKind::kUnbackedFloat, i); }

// The node called `name` (nullptr when absent).
inline Node* find_node(const Graph& g, const std::string& name) {
  for (Node* n : g.nodes()) {
    if (n->name == name) return n;
  }
  return nullptr;
}

// bindings_str of a node's unbacked_bindings ("{}" when it binds nothing, "<missing>" if absent).
inline std::string bindings_of(const Graph& g, const std::string& name) {
  Node* n = find_node(g, name);
  return n ? bindings_str(n->unbacked_bindings) : "<missing>";
}

// Every node that binds something, as "name {bindings}", in graph order (placeholders excluded).
inline std::vector<std::string> binding_sites(const Graph& g) {
  std::vector<std::string> out;
  for (Node* n : g.nodes()) {
    if (n->kind == NodeKind::kPlaceholder || n->unbacked_bindings.empty()) continue;
    out.push_back(n->name + " " + bindings_str(n->unbacked_bindings));
  }
  return out;
}

inline std::string range_of(const ShapeEnv& env, const ExprRef& s) {
  return env.var_range(s).str();
}

// The bucket of deferred asserts under `key` (null = the None bucket), as expression strings.
inline std::vector<std::string> bucket(const ShapeEnv& env, const ExprRef& key) {
  std::vector<std::string> out;
  auto it = env.deferred_runtime_asserts().find(key);
  if (it == env.deferred_runtime_asserts().end()) return out;
  for (const RuntimeAssert& ra : it->second) out.push_back(ra.expr->str());
  return out;
}

// The replacement target of `s` as a string ("" when there is none).
inline std::string replacement_of(const ShapeEnv& env, const ExprRef& s) {
  auto it = env.replacements().find(s);
  return it == env.replacements().end() ? "" : it->second->str();
}

// A compact listing of the non-placeholder nodes: "name" for value nodes, "assert(EXPR)" for
// runtime asserts, "check(EXPR)" for program checks and "output".
inline std::vector<std::string> listing(const Graph& g) {
  std::vector<std::string> out;
  for (Node* n : g.nodes()) {
    switch (n->kind) {
      case NodeKind::kPlaceholder:
        break;
      case NodeKind::kAssertScalar:
        out.push_back("assert(" + n->assert_expr->str() + ")");
        break;
      case NodeKind::kCheck:
        out.push_back("check(" + n->assert_expr->str() + ")");
        break;
      case NodeKind::kOutput:
        out.push_back("output");
        break;
      default:
        out.push_back(n->name);
    }
  }
  return out;
}

// Position of `entry` in `listing(g)`, or -1.
inline int position(const std::vector<std::string>& list, const std::string& entry) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == entry) return static_cast<int>(i);
  }
  return -1;
}

inline int count_kind(const Graph& g, NodeKind k) {
  int c = 0;
  for (Node* n : g.nodes()) c += n->kind == k;
  return c;
}

}  // namespace sf::graph::testing
