// Program-aware shrinking. Each pass lists candidate programs (one small edit each) for the current
// program; the first candidate that parses and stays interesting becomes the current program and
// the pass lists again from the same position. Passes repeat until a whole round keeps nothing.
#include "fuzz/shrink_program.h"

#include <algorithm>
#include <chrono>
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

namespace sf::fuzz {

namespace {

using program::DataSpec;
using program::DimMode;
using program::Expr;
using program::ExprPtr;
using program::InputDecl;
using program::Program;
using program::Stmt;

using Candidates = std::vector<Program>;

// ---- statements --------------------------------------------------------------------------------

// Calls `edit` on every statement list (the body and nested branches) with a copy of the program
// in which that list can be changed: `edit(copy, list_in_copy)`.
void for_each_list(const Program& p,
                   const std::function<void(Program&, std::vector<Stmt>&)>& edit) {
  // Lists are addressed by a path of (statement index, branch) pairs from the body.
  std::function<void(const std::vector<Stmt>&, std::vector<std::pair<size_t, int>>)> walk =
      [&](const std::vector<Stmt>& list, std::vector<std::pair<size_t, int>> path) {
        Program copy = p;
        std::vector<Stmt>* target = &copy.body;
        for (auto [i, branch] : path) {
          target = branch == 0 ? &(*target)[i].then_body : &(*target)[i].else_body;
        }
        edit(copy, *target);
        for (size_t i = 0; i < list.size(); ++i) {
          if (list[i].kind != Stmt::Kind::kIf) continue;
          auto then_path = path, else_path = path;
          then_path.emplace_back(i, 0);
          else_path.emplace_back(i, 1);
          walk(list[i].then_body, then_path);
          walk(list[i].else_body, else_path);
        }
      };
  walk(p.body, {});
}

// Remove one statement; replace an `if` by one of its branches.
Candidates statement_candidates(const Program& p) {
  Candidates out;
  for_each_list(p, [&](Program& copy, std::vector<Stmt>& list) {
    for (size_t i = list.size(); i-- > 0;) {
      Stmt s = list[i];
      if (s.kind == Stmt::Kind::kReturn) continue;
      list.erase(list.begin() + static_cast<long>(i));
      out.push_back(copy);
      if (s.kind == Stmt::Kind::kIf) {
        for (const std::vector<Stmt>* branch : {&s.then_body, &s.else_body}) {
          list.insert(list.begin() + static_cast<long>(i), branch->begin(), branch->end());
          out.push_back(copy);
          list.erase(list.begin() + static_cast<long>(i),
                     list.begin() + static_cast<long>(i + branch->size()));
        }
      }
      list.insert(list.begin() + static_cast<long>(i), s);
    }
  });
  return out;
}

// Drop one returned value (a program returns at least one), or return 0 in its place (so the
// statements that made it may go, also those of an only value).
Candidates return_candidates(const Program& p) {
  Candidates out;
  for_each_list(p, [&](Program& copy, std::vector<Stmt>& list) {
    for (Stmt& s : list) {
      if (s.kind != Stmt::Kind::kReturn) continue;
      const bool program_return = &list == &copy.body;  // a function's must keep its kinds
      std::vector<ExprPtr> all = s.returns;
      for (size_t j = all.size(); j-- > 0;) {
        if (all.size() >= 2) {
          s.returns = all;
          s.returns.erase(s.returns.begin() + static_cast<long>(j));
          out.push_back(copy);
        }
        if (program_return && all[j] && all[j]->kind != Expr::Kind::kInt) {
          s.returns = all;
          s.returns[j] = Expr::integer(0);
          out.push_back(copy);
        }
      }
      s.returns = all;
    }
  });
  return out;
}

// ---- cond / while_loop -------------------------------------------------------------------------

void collect_function_uses(const std::vector<Stmt>& list, std::set<std::string>& out) {
  for (const Stmt& s : list) {
    out.insert(s.functions.begin(), s.functions.end());
    collect_function_uses(s.then_body, out);
    collect_function_uses(s.else_body, out);
  }
}

// `e` with each variable named in `names` replaced (parameters by operands, locals renamed).
ExprPtr substitute(const ExprPtr& e, const std::map<std::string, ExprPtr>& names) {
  if (!e) return e;
  if (e->kind == Expr::Kind::kVar) {
    auto it = names.find(e->name);
    return it == names.end() ? e : it->second;
  }
  if (e->kind != Expr::Kind::kCall && e->kind != Expr::Kind::kList) return e;
  auto out = std::make_shared<Expr>(*e);
  for (ExprPtr& a : out->args) a = substitute(a, names);
  for (ExprPtr& a : out->elems) a = substitute(a, names);
  for (auto& kv : out->kwargs) kv.second = substitute(kv.second, names);
  return out;
}

// The statements of calling `f` on `operands` in place, assigning its results to `targets`;
// nullopt when its body has statements other than assignments, checks and the return.
std::optional<std::vector<Stmt>> inlined(const program::FunctionDef& f,
                                         const std::vector<ExprPtr>& operands,
                                         const std::vector<std::string>& targets,
                                         const std::string& prefix) {
  if (operands.size() != f.params.size()) return std::nullopt;
  std::map<std::string, ExprPtr> names;
  for (size_t i = 0; i < operands.size(); ++i) names[f.params[i]] = operands[i];
  std::vector<Stmt> out;
  for (const Stmt& s : f.body) {
    switch (s.kind) {
      case Stmt::Kind::kAssign:
      case Stmt::Kind::kCheck:
      case Stmt::Kind::kCheckIsSize: {
        Stmt c = s;
        c.value = substitute(s.value, names);
        c.max = substitute(s.max, names);
        for (std::string& t : c.targets) {
          std::string local = prefix + t;
          names[t] = Expr::var(local);
          t = local;
        }
        out.push_back(std::move(c));
        break;
      }
      case Stmt::Kind::kReturn: {
        if (s.returns.size() != targets.size()) return std::nullopt;
        for (size_t i = 0; i < targets.size(); ++i) {
          Stmt a;
          a.kind = Stmt::Kind::kAssign;
          a.targets = {targets[i]};
          a.value = substitute(s.returns[i], names);
          out.push_back(std::move(a));
        }
        break;
      }
      case Stmt::Kind::kIf:
      case Stmt::Kind::kCond:
      case Stmt::Kind::kWhileLoop:
      case Stmt::Kind::kInvokeSubgraph:
      case Stmt::Kind::kMap:
      case Stmt::Kind::kScan:
      case Stmt::Kind::kAssociativeScan:
        return std::nullopt;
    }
  }
  return out;
}

// Drop a function nothing calls; cut a map or scan to one step, or replace a map by its
// operand; cut an associative_scan to two rows (one combine), or replace it by its operands;
// inline an invoke_subgraph call; make a cond call one branch for
// both (its other branch then goes), or inline a branch in place of the cond; make a while_loop
// stop at once (its condition a function returning False), and replace a loop that stops at once by
// its carries (one assignment per target); replace a cond by its predicate (a statement that keeps
// what the predicate computes).
Candidates function_candidates(const Program& p) {
  Candidates out;
  std::set<std::string> used;
  collect_function_uses(p.body, used);
  for (const program::FunctionDef& f : p.functions) collect_function_uses(f.body, used);
  for (size_t i = p.functions.size(); i-- > 0;) {
    if (used.count(p.functions[i].name)) continue;
    Program copy = p;
    copy.functions.erase(copy.functions.begin() + static_cast<long>(i));
    out.push_back(std::move(copy));
  }
  for_each_list(p, [&](Program& copy, std::vector<Stmt>& list) {
    for (Stmt& s : list) {
      if (s.kind == Stmt::Kind::kMap || s.kind == Stmt::Kind::kScan ||
          s.kind == Stmt::Kind::kAssociativeScan) {
        // One step: each operand it goes over cut to its first row (once; a cut one stays); an
        // associative_scan's to two (one row combines nothing).
        std::vector<ExprPtr> all = s.operands;
        bool cut = false;
        bool assoc = s.kind == Stmt::Kind::kAssociativeScan;
        size_t first = s.kind == Stmt::Kind::kScan ? std::min(s.carries, s.operands.size()) : 0;
        for (size_t k = first; k < s.operands.size(); ++k) {
          ExprPtr& o = s.operands[k];
          if (o && o->kind == Expr::Kind::kCall && o->op == program::OpKind::kSlice) continue;
          o = Expr::call(program::OpKind::kSlice, {o, Expr::integer(assoc ? s.dim : 0),
                                                   Expr::integer(0), Expr::integer(assoc ? 2 : 1)});
          cut = true;
        }
        if (cut) out.push_back(copy);
        s.operands = all;
        bool replaceable =
            s.kind == Stmt::Kind::kMap || (assoc && s.operands.size() == s.targets.size());
        if (replaceable && &list == &copy.body && !s.operands.empty()) {
          // Or no map: each target the first operand (the function then goes as unused); no
          // associative_scan: each target its operand.
          size_t at = static_cast<size_t>(&s - list.data());
          Program plain = copy;
          std::vector<Stmt> assigns;
          size_t a_index = 0;
          for (const std::string& t : s.targets) {
            Stmt a;
            a.kind = Stmt::Kind::kAssign;
            a.targets = {t};
            a.value = s.operands[assoc ? a_index++ : 0];
            a.loc = s.loc;
            assigns.push_back(std::move(a));
          }
          plain.body.erase(plain.body.begin() + static_cast<long>(at));
          plain.body.insert(plain.body.begin() + static_cast<long>(at), assigns.begin(),
                            assigns.end());
          out.push_back(std::move(plain));
        }
        continue;
      }
      if (s.kind == Stmt::Kind::kInvokeSubgraph && &list == &copy.body) {
        const program::FunctionDef* f = copy.function(s.functions[0]);
        std::optional<std::vector<Stmt>> body =
            f ? inlined(*f, s.operands, s.targets, s.functions[0] + "_" + s.targets[0] + "_")
              : std::nullopt;
        if (!body) continue;
        size_t at = static_cast<size_t>(&s - list.data());
        Program inl = copy;
        inl.body.erase(inl.body.begin() + static_cast<long>(at));
        inl.body.insert(inl.body.begin() + static_cast<long>(at), body->begin(), body->end());
        out.push_back(std::move(inl));
      } else if (s.kind == Stmt::Kind::kCond) {
        std::vector<std::string> both = s.functions;
        if (both[0] != both[1]) {
          for (const std::string& f : both) {
            s.functions = {f, f};
            out.push_back(copy);
          }
          s.functions = both;
        }
        size_t at = static_cast<size_t>(&s - list.data());
        Stmt original = s;
        for (const std::string& name : both) {
          const program::FunctionDef* f = copy.function(name);
          if (!f) continue;
          std::optional<std::vector<Stmt>> body =
              inlined(*f, original.operands, original.targets, name + "_");
          if (!body) continue;
          Program inl = copy;
          std::vector<Stmt>* l = &inl.body;
          // The same list in the copy: found by position (for_each_list gave `list` of `copy`).
          if (&list != &copy.body) continue;  // nested lists: inline only at the top level
          l->erase(l->begin() + static_cast<long>(at));
          l->insert(l->begin() + static_cast<long>(at), body->begin(), body->end());
          out.push_back(std::move(inl));
        }
        Stmt pred;
        pred.kind = Stmt::Kind::kAssign;
        pred.targets = {original.targets[0]};
        pred.value = original.value;
        pred.loc = original.loc;
        list[at] = pred;
        out.push_back(copy);
        list[at] = original;
      } else if (s.kind == Stmt::Kind::kWhileLoop) {
        const program::FunctionDef* c = copy.function(s.functions[0]);
        if (!c) continue;
        if (c->body.size() == 1 && c->body[0].returns.size() == 1 &&
            c->body[0].returns[0]->kind == Expr::Kind::kBool) {
          // Stops at once already: the loop is its carries.
          if (&list != &copy.body || s.targets.size() != s.operands.size()) continue;
          size_t at = static_cast<size_t>(&s - list.data());
          Stmt loop = s;
          std::vector<Stmt> carries;
          for (size_t k = 0; k < loop.targets.size(); ++k) {
            Stmt a;
            a.kind = Stmt::Kind::kAssign;
            a.targets = {loop.targets[k]};
            a.value = loop.operands[k];
            a.loc = loop.loc;
            carries.push_back(a);
          }
          Program unrolled = copy;
          unrolled.body.erase(unrolled.body.begin() + static_cast<long>(at));
          unrolled.body.insert(unrolled.body.begin() + static_cast<long>(at), carries.begin(),
                               carries.end());
          out.push_back(std::move(unrolled));
          continue;
        }
        program::FunctionDef stop{s.functions[0] + "_stop", c->params, {}, {}};
        Stmt r;
        r.kind = Stmt::Kind::kReturn;
        r.returns = {Expr::boolean(false)};
        stop.body.push_back(r);
        if (copy.function(stop.name)) continue;
        std::string before = s.functions[0];
        s.functions[0] = stop.name;
        copy.functions.insert(copy.functions.begin(), stop);
        out.push_back(copy);
        copy.functions.erase(copy.functions.begin());
        s.functions[0] = before;
      }
    }
  });
  return out;
}

// ---- values ------------------------------------------------------------------------------------

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

// ---- inputs ------------------------------------------------------------------------------------

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

// ---- driver ------------------------------------------------------------------------------------

class Shrinker {
 public:
  Shrinker(const std::function<bool(const std::string&)>& interesting, const ShrinkLimits& limits,
           ShrinkResult* result)
      : interesting_(interesting),
        limits_(limits),
        result_(result),
        deadline_(std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(limits.seconds))) {}

  std::string budget_reason() const {
    return result_->attempts >= limits_.max_attempts ? "attempts" : "time";
  }

  bool out_of_budget() const {
    return result_->attempts >= limits_.max_attempts ||
           std::chrono::steady_clock::now() > deadline_;
  }

  // The predicate, counted and bounded.
  bool call(const std::string& text) {
    if (out_of_budget()) return false;
    ++result_->attempts;
    return interesting_(text);
  }

  // Tries a candidate program: it must print to a text not tried before that parses back.
  bool try_program(const Program& candidate) {
    std::string text = program::print_program(candidate);
    if (!tried_.insert(text).second) return false;
    try {
      program::parse_program(text);
    } catch (const UserError&) {
      return false;
    }
    if (!call(text)) return false;
    ++result_->accepted;
    current_ = candidate;
    text_ = text;
    return true;
  }

  // One pass: walk its candidates; after each kept one, list again and go on from the same
  // position (the next edit of the same kind). True when something was kept.
  bool run_pass(Candidates (*list)(const Program&)) {
    bool progress = false;
    size_t i = 0;
    while (!out_of_budget()) {
      Candidates cs = list(current_);
      bool kept = false;
      for (; i < cs.size() && !out_of_budget(); ++i) {
        if (try_program(cs[i])) {
          kept = true;
          break;
        }
      }
      if (!kept) break;
      progress = true;
    }
    return progress;
  }

  // Line-level ddmin over the current text (bulk removal), bounded by the remaining budget.
  bool run_ddmin() {
    int left = limits_.max_attempts - result_->attempts;
    if (left <= 0) return false;
    ShrinkResult r = shrink_program_text(
        text_, [&](const std::string& t) { return tried_.insert(t).second && call(t); }, left);
    result_->accepted += r.accepted;
    if (r.accepted == 0) return false;
    try {
      current_ = program::parse_program(r.text);
    } catch (const UserError&) {
      return false;  // cannot happen: an interesting text parses
    }
    text_ = r.text;  // the text the predicate accepted (body lines of a canonical text)
    return true;
  }

  Program current_;
  std::string text_;

 private:
  const std::function<bool(const std::string&)>& interesting_;
  ShrinkLimits limits_;
  ShrinkResult* result_;
  std::chrono::steady_clock::time_point deadline_;
  std::unordered_set<std::string> tried_;
};

}  // namespace

ShrinkResult shrink_program(const std::string& text,
                            const std::function<bool(const std::string&)>& interesting,
                            const ShrinkLimits& limits) {
  ShrinkResult result;
  Shrinker s(interesting, limits, &result);
  // Line-level ddmin on the text as given, within the same budget (a text that does not parse,
  // or whose comments matter).
  auto lines_only = [&]() {
    ShrinkResult r = shrink_program_text(
        text, [&](const std::string& t) { return s.call(t); }, limits.max_attempts);
    r.attempts = result.attempts;
    r.stopped_by = s.out_of_budget() ? s.budget_reason() : "fixpoint";
    return r;
  };
  try {
    s.current_ = program::parse_program(text);
  } catch (const UserError&) {
    if (!s.call(text)) {
      result.text = text;
      result.reproduced = false;
      result.stopped_by = "fixpoint";
      return result;
    }
    return lines_only();
  }
  // Work on the canonical print; it drops comments, so fall back to lines if that mattered.
  s.text_ = program::print_program(s.current_);
  if (!s.call(s.text_)) {
    if (s.text_ == text || !s.call(text)) {
      result.text = text;
      result.reproduced = false;
      result.stopped_by = "fixpoint";
      return result;
    }
    return lines_only();
  }
  bool progress = true;
  while (progress && !s.out_of_budget()) {
    progress = s.run_ddmin();
    progress = s.run_pass(statement_candidates) || progress;
    progress = s.run_pass(return_candidates) || progress;
    progress = s.run_pass(function_candidates) || progress;
    progress = s.run_pass(value_candidates) || progress;
    progress = s.run_pass(inline_candidates) || progress;
    progress = s.run_pass(input_candidates) || progress;
  }
  result.text = s.text_;
  result.stopped_by = s.out_of_budget() ? s.budget_reason() : "fixpoint";
  return result;
}

}  // namespace sf::fuzz
