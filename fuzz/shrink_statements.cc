// The shrinker's statement-level edits: statements removed, ifs replaced by a branch, returns
// simplified, functions and the cond / while_loop calls of them simplified.
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

void collect_function_uses(const std::vector<Stmt>& list, std::set<std::string>& out) {
  for (const Stmt& s : list) {
    out.insert(s.functions.begin(), s.functions.end());
    collect_function_uses(s.then_body, out);
    collect_function_uses(s.else_body, out);
  }
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

}  // namespace

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

}  // namespace sf::fuzz::shrink
