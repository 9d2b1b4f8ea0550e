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
  out.insert("verdict:" + bucket);
  const graph::Graph* g = r.final_graph ? &*r.final_graph : r.trace ? &r.trace->graph : nullptr;
  if (g) {
    g->for_each([&](const graph::Node* n) {
      std::string op = n->kind == graph::NodeKind::kCall ? program::schema(n->op).name
                                                         : graph::node_kind_name(n->kind);
      for (const auto& [symbol, path] : n->unbacked_bindings) {
        out.insert("bind:" + op + ":" + abstract_numbers(keypath_str(path)));
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
