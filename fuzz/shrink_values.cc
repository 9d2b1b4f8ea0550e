// The shrinker's value-level edits: expressions replaced by simpler ones, single-use variables
// inlined, and inputs made fewer, smaller and plainer.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "engine/program/schema.h"
#include "fuzz/shrink_candidates.h"

namespace sf::fuzz::shrink {

using program::DataSpec;
using program::DimMode;
using program::Expr;
using program::ExprPtr;
using program::InputDecl;
using program::Program;
using program::Stmt;

namespace {

// Simpler forms of one expression: its operands, constants, smaller integers.
std::vector<ExprPtr> simpler(const ExprPtr& e) {
  std::vector<ExprPtr> out;
  switch (e->kind) {
    case Expr::Kind::kCall:
      for (const ExprPtr& a : e->args) {
        if (a->kind == Expr::Kind::kVar || a->kind == Expr::Kind::kCall) out.push_back(a);
      }
      out.push_back(Expr::integer(1));
      out.push_back(Expr::integer(0));
      break;
    case Expr::Kind::kVar:
      out.push_back(Expr::integer(1));
      break;
    case Expr::Kind::kInt:
      if (e->int_value != 0) out.push_back(Expr::integer(0));
      if (e->int_value != 1 && e->int_value != 0) out.push_back(Expr::integer(1));
      if (e->int_value > 2 || e->int_value < -2) out.push_back(Expr::integer(e->int_value / 2));
      break;
    case Expr::Kind::kFloat:
      if (e->float_value != 0 && e->float_value != 1) out.push_back(Expr::floating(1.0));
      break;
    case Expr::Kind::kList:
      if (e->elems.size() > 1) {
        for (size_t i = e->elems.size(); i-- > 0;) {
          std::vector<ExprPtr> fewer = e->elems;
          fewer.erase(fewer.begin() + static_cast<long>(i));
          out.push_back(Expr::list(fewer));
        }
      }
      break;
    default:
      break;
  }
  return out;
}

// `e` with its `index`-th subexpression (preorder, counting down) replaced by `repl`.
// A copy of `e` with `f` applied to each child in preorder's order (call arguments, keyword
// values, list elements); `e` itself when it has no children.
ExprPtr map_children(const ExprPtr& e, const std::function<ExprPtr(const ExprPtr&)>& f) {
  if (e->kind != Expr::Kind::kCall && e->kind != Expr::Kind::kList) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& a : copy->args) a = f(a);
  for (auto& [k, v] : copy->kwargs) v = f(v);
  for (ExprPtr& x : copy->elems) x = f(x);
  return copy;
}

ExprPtr replace_at(const ExprPtr& e, int& index, const ExprPtr& repl) {
  if (index-- == 0) return repl;
  return map_children(e, [&](const ExprPtr& c) { return replace_at(c, index, repl); });
}

void preorder(const ExprPtr& e, std::vector<ExprPtr>* out) {
  out->push_back(e);
  for (const ExprPtr& a : e->args) preorder(a, out);
  for (const auto& [k, v] : e->kwargs) preorder(v, out);
  for (const ExprPtr& x : e->elems) preorder(x, out);
}

// The value assigned to each single-target variable at the top level (the last assignment wins).
std::map<std::string, ExprPtr> top_level_definitions(const Program& p) {
  std::map<std::string, ExprPtr> defs;
  for (const Stmt& s : p.body) {
    if (s.kind == Stmt::Kind::kAssign && s.targets.size() == 1 && s.value)
      defs[s.targets[0]] = s.value;
  }
  return defs;
}

// `e` with every reference to variable `name` replaced by `repl`.
ExprPtr substitute(const ExprPtr& e, const std::string& name, const ExprPtr& repl) {
  if (e->kind == Expr::Kind::kVar) return e->name == name ? repl : e;
  return map_children(e, [&](const ExprPtr& c) { return substitute(c, name, repl); });
}

void substitute_in(std::vector<Stmt>& list, const std::string& name, const ExprPtr& repl) {
  for (Stmt& s : list) {
    if (s.value) s.value = substitute(s.value, name, repl);
    if (s.max) s.max = substitute(s.max, name, repl);
    for (ExprPtr& r : s.returns) r = substitute(r, name, repl);
    for (ExprPtr& o : s.operands) o = substitute(o, name, repl);
    substitute_in(s.then_body, name, repl);
    substitute_in(s.else_body, name, repl);
  }
}

// How many times `list` reads variable `name`.
int uses_in(const std::vector<Stmt>& list, const std::string& name) {
  int n = 0;
  auto count = [&](const ExprPtr& e) {
    if (!e) return;
    program::for_each_subexpr(
        e, [&](const Expr& x) { n += x.kind == Expr::Kind::kVar && x.name == name; });
  };
  for (const Stmt& s : list) {
    count(s.value);
    count(s.max);
    for (const ExprPtr& r : s.returns) count(r);
    for (const ExprPtr& o : s.operands) count(o);
    n += uses_in(s.then_body, name) + uses_in(s.else_body, name);
  }
  return n;
}

int64_t numel(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Literal data of a tensor whose dim `d` shrinks to `keep` (the leading elements along it).
std::vector<double> slice_literal(const std::vector<double>& data,
                                  const std::vector<int64_t>& sizes, size_t d, int64_t keep) {
  int64_t inner = 1;
  for (size_t i = d + 1; i < sizes.size(); ++i) inner *= sizes[i];
  int64_t outer = numel(sizes) / std::max<int64_t>(1, sizes[d] * inner);
  std::vector<double> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < keep * inner; ++j) {
      out.push_back(data[static_cast<size_t>(o * sizes[d] * inner + j)]);
    }
  }
  return out;
}

// Every tensor input dim of size `from` shrunk to `to` at once (sizes that must agree, such as a
// mask's and its tensor's, only shrink together).
Program with_dims_shrunk(const Program& p, int64_t from, int64_t to) {
  Program copy = p;
  for (InputDecl& x : copy.inputs) {
    for (size_t d = 0; d < x.sizes.size(); ++d) {
      if (x.sizes[d] != from) continue;
      if (x.data.kind == DataSpec::Kind::kLiteral) {
        x.data.literal = slice_literal(x.data.literal, x.sizes, d, to);
      }
      x.sizes[d] = to;
    }
  }
  return copy;
}

}  // namespace

// Replace a subexpression of an assigned value or a condition by a simpler form or an input, or
// a variable by its definition's operands (skipping a statement in a chain: `sum(b)` for
// `sum(a)` where `a = f(b)`, which dropping statements alone cannot reach while `a` is used).
Candidates value_candidates(const Program& p) {
  Candidates out;
  const std::map<std::string, ExprPtr> defs = top_level_definitions(p);
  for_each_list(p, [&](Program& copy, std::vector<Stmt>& list) {
    for (Stmt& s : list) {
      if (!s.value) continue;
      ExprPtr original = s.value;
      std::vector<ExprPtr> subs;
      preorder(original, &subs);
      for (size_t k = 0; k < subs.size(); ++k) {
        std::vector<ExprPtr> repls = simpler(subs[k]);
        if (subs[k]->kind == Expr::Kind::kVar) {
          if (auto d = defs.find(subs[k]->name);
              d != defs.end() && d->second->kind == Expr::Kind::kCall) {
            for (const ExprPtr& a : d->second->args) {
              if (a->kind == Expr::Kind::kVar && a->name != subs[k]->name) repls.push_back(a);
            }
          }
        }
        if (subs[k]->kind == Expr::Kind::kVar || subs[k]->kind == Expr::Kind::kCall) {
          for (const InputDecl& in : p.inputs) {  // a value computed from inputs -> an input
            if (subs[k]->kind != Expr::Kind::kVar || subs[k]->name != in.name) {
              repls.push_back(Expr::var(in.name));
            }
          }
        }
        for (const ExprPtr& repl : repls) {
          int index = static_cast<int>(k);
          s.value = replace_at(original, index, repl);
          out.push_back(copy);
        }
      }
      s.value = original;
    }
  });
  return out;
}

// Inline a copy or a constant (`x = y`, `x = 3`) into the statements after it, dropping it; or a
// value read once (`k = gt(a, 0)` then `index(a, k)`: `index(a, gt(a, 0))`), but never an
// in-place op (its statement is the mutation).
Candidates inline_candidates(const Program& p) {
  Candidates out;
  for (size_t i = 0; i < p.body.size(); ++i) {
    const Stmt& s = p.body[i];
    if (s.kind != Stmt::Kind::kAssign || s.targets.size() != 1) continue;
    Expr::Kind k = s.value->kind;
    std::vector<Stmt> rest(p.body.begin() + static_cast<long>(i) + 1, p.body.end());
    bool copy_or_constant = k == Expr::Kind::kVar || k == Expr::Kind::kInt ||
                            k == Expr::Kind::kFloat || k == Expr::Kind::kBool;
    bool read_once = k == Expr::Kind::kCall &&
                     !program::schema(s.value->op).has(program::OpFeature::kMutation) &&
                     uses_in(rest, s.targets[0]) == 1;
    if (!copy_or_constant && !read_once) continue;
    Program copy = p;
    substitute_in(rest, s.targets[0], s.value);
    copy.body.resize(i);
    copy.body.insert(copy.body.end(), rest.begin(), rest.end());
    out.push_back(copy);
  }
  return out;
}

Candidates input_candidates(const Program& p) {
  Candidates out;
  std::set<int64_t> sizes;
  for (const InputDecl& in : p.inputs) sizes.insert(in.sizes.begin(), in.sizes.end());
  for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
    if (*it > 1) out.push_back(with_dims_shrunk(p, *it, 1));
    if (*it > 3) out.push_back(with_dims_shrunk(p, *it, *it / 2));
  }
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const InputDecl& in = p.inputs[i];
    auto with = [&](const std::function<void(InputDecl&)>& edit) {
      Program copy = p;
      edit(copy.inputs[i]);
      out.push_back(copy);
    };
    // Remove the input (only parses when nothing uses it).
    {
      Program copy = p;
      copy.inputs.erase(copy.inputs.begin() + static_cast<long>(i));
      out.push_back(copy);
    }
    if (!in.is_tensor) {
      if (in.scalar_mode != DimMode::kStatic)
        with([](InputDecl& d) { d.scalar_mode = DimMode::kStatic; });
      double v = in.data.literal.empty() ? 0 : in.data.literal[0];
      double half = std::isfinite(v) ? std::trunc(v / 2) : 0.0;
      for (double smaller : {0.0, 1.0, half}) {
        if (smaller != v && std::abs(smaller) < std::abs(v)) {
          with([&](InputDecl& d) { d.data.literal = {smaller}; });
        }
      }
      continue;
    }
    for (size_t d = 0; d < in.sizes.size(); ++d) {
      if (in.dims[d] != DimMode::kStatic) {
        with([&](InputDecl& x) {
          x.dims[d] = in.dims[d] == DimMode::kUnbacked ? DimMode::kDynamic : DimMode::kStatic;
        });
        if (in.dims[d] == DimMode::kUnbacked)
          with([&](InputDecl& x) { x.dims[d] = DimMode::kStatic; });
      }
      for (int64_t keep : {int64_t{1}, in.sizes[d] / 2, in.sizes[d] - 1}) {
        if (keep < 1 || keep >= in.sizes[d]) continue;
        with([&](InputDecl& x) {
          if (x.data.kind == DataSpec::Kind::kLiteral) {
            x.data.literal = slice_literal(x.data.literal, x.sizes, d, keep);
          }
          x.sizes[d] = keep;
        });
      }
      if (in.sizes[d] == 1) {  // a smaller rank
        with([&](InputDecl& x) {
          x.sizes.erase(x.sizes.begin() + static_cast<long>(d));
          x.dims.erase(x.dims.begin() + static_cast<long>(d));
        });
      }
    }
    // Plainer data: all zeros, all ones.
    for (double v : {0.0, 1.0}) {
      if (in.data.kind == DataSpec::Kind::kFull && in.data.value == v) continue;
      with([&](InputDecl& x) {
        x.data = DataSpec();
        x.data.kind = DataSpec::Kind::kFull;
        x.data.value = v;
      });
    }
  }
  return out;
}

}  // namespace sf::fuzz::shrink
