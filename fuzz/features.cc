// Coverage features of a program's run (see features.h): read from the program text, the final
// graph and the final ShapeEnv.
#include "fuzz/features.h"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>

#include "engine/program/schema.h"
#include "fuzz/fuzz_source.h"

namespace sf::fuzz {

namespace {

// "u" for unbacked ints, "s" backed, "zuf"/"zf" floats...: a symbol's kind by its printed prefix.
std::string kind_of(const ExprRef& e) {
  if (e->is(sym::ExprKind::kInteger)) return "int";
  if (e->is(sym::ExprKind::kSymbol)) return sym::sym_kind_prefix(e->sym_kind());
  return "expr";
}

void collect_ops(const program::ExprPtr& e, std::set<std::string>* out) {
  program::for_each_subexpr(e, [out](const program::Expr& x) {
    if (x.kind == program::Expr::Kind::kCall) out->insert("op:" + program::schema(x.op).name);
  });
}

void collect_statements(const std::vector<program::Stmt>& body, std::string* prev,
                        std::set<std::string>* out) {
  for (const program::Stmt& st : body) {
    collect_ops(st.value, out);
    std::string here = st.kind == program::Stmt::Kind::kCheck         ? "check"
                       : st.kind == program::Stmt::Kind::kCheckIsSize ? "check_is_size"
                       : st.kind == program::Stmt::Kind::kIf          ? "if"
                       : st.kind == program::Stmt::Kind::kReturn      ? "return"
                       : st.value && st.value->kind == program::Expr::Kind::kCall
                           ? program::schema(st.value->op).name
                           : "copy";
    out->insert("pair:" + *prev + ">" + here);
    *prev = here;
    collect_statements(st.then_body, prev, out);
    collect_statements(st.else_body, prev, out);
  }
}

// The ops and checks inside higher-order bodies, by the path of higher-order ops around them
// ("in:cond/while_loop:nonzero"): what a body's scoped facts and memo meet.
void collect_nested(const program::Program& p, const std::vector<program::Stmt>& body,
                    const std::string& path, int depth, std::set<std::string>* out) {
  for (const program::Stmt& st : body) {
    if (!path.empty()) {
      std::set<std::string> ops;
      collect_ops(st.value, &ops);
      for (const program::ExprPtr& r : st.returns) collect_ops(r, &ops);
      for (const std::string& op : ops) out->insert("in:" + path + ":" + op.substr(3));
      if (st.kind == program::Stmt::Kind::kCheck) out->insert("in:" + path + ":check");
    }
    collect_nested(p, st.then_body, path, depth, out);
    collect_nested(p, st.else_body, path, depth, out);
    if (!program::is_higher_order(st.kind) || depth >= 4) continue;  // no cycle loops here
    const char* hop = program::higher_order_name(st.kind);
    std::string inner = path.empty() ? hop : path + "/" + hop;
    for (const std::string& name : st.functions) {
      for (const program::FunctionDef& f : p.functions) {
        if (f.name == name) collect_nested(p, f.body, inner, depth + 1, out);
      }
    }
  }
}

}  // namespace

std::string abstract_numbers(const std::string& text) {
  static const std::regex number("[0-9]+");
  return std::regex_replace(text, number, "N");
}

std::vector<std::string> program_feature_texts(const program::Program& p,
                                               const oracles::PipelineResult& r,
                                               const std::string& bucket) {
  std::set<std::string> out;
  std::string prev = "start";
  collect_statements(p.body, &prev, &out);
  collect_nested(p, p.body, "", 0, &out);
  out.insert("verdict:" + bucket);
  // Finer where the coarse features saturate within a minute: each op, and each binding path,
  // crossed with the verdict it ended in.
  std::vector<std::string> ops;
  for (const std::string& f : out) {
    if (f.rfind("op:", 0) == 0) ops.push_back(f.substr(3));
  }
  for (const std::string& op : ops) out.insert("opv:" + op + ":" + bucket);
  const graph::Graph* g = r.final_graph ? &*r.final_graph : r.trace ? &r.trace->graph : nullptr;
  if (g) {
    g->for_each([&](const graph::Node* n) {
      std::string op = n->kind == graph::NodeKind::kCall ? program::schema(n->op).name
                                                         : graph::node_kind_name(n->kind);
      for (const auto& [symbol, path] : n->unbacked_bindings) {
        std::string bind = op + ":" + abstract_numbers(keypath_str(path));
        out.insert("bind:" + bind);
        out.insert("bindv:" + bind + ":" + bucket);
      }
    });
  }
  if (r.trace && r.trace->env) {
    const ShapeEnv& env = *r.trace->env;
    for (const auto& [from, to] : env.replacement_table().entries()) {
      out.insert("repl:" + kind_of(from) + "->" + kind_of(to));
    }
    for (const auto& [key, asserts] : env.deferred_runtime_asserts()) {
      for (const RuntimeAssert& ra : asserts)
        out.insert("assert:" + abstract_numbers(ra.expr->str()));
    }
    for (const ShapeGuard& guard : env.guards())
      out.insert("guard:" + abstract_numbers(guard.expr->str()));
  }
  return {out.begin(), out.end()};
}

std::vector<uint64_t> program_features(const program::Program& p, const oracles::PipelineResult& r,
                                       const std::string& bucket) {
  std::vector<uint64_t> out;
  for (const std::string& f : program_feature_texts(p, r, bucket)) out.push_back(fnv1a(f));
  return out;
}

std::string hash_list_text(const std::vector<uint64_t>& hashes, char end) {
  std::string out;
  out.reserve(hashes.size() * 17);
  char hex[24];
  for (uint64_t h : hashes) {
    std::snprintf(hex, sizeof hex, "%llx%c", static_cast<unsigned long long>(h), end);
    out += hex;
  }
  return out;
}

std::optional<std::vector<uint64_t>> parse_hash_list(const std::string& text, char end) {
  std::vector<uint64_t> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t stop = text.find(end, at);  // every item ends (a cut one is not taken)
    if (stop == std::string::npos || stop == at || stop - at > 16) return std::nullopt;
    std::string item = text.substr(at, stop - at);
    if (item.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
    out.push_back(std::stoull(item, nullptr, 16));
    at = stop + 1;
  }
  return out;
}

}  // namespace sf::fuzz
