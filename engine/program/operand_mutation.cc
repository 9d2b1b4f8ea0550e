// May-alias analysis of a def block's names back to its tensor parameters, in statement order.
#include "engine/program/operand_mutation.h"

#include <map>
#include <set>

#include "engine/base/errors.h"
#include "engine/program/schema.h"

namespace sf::program {

namespace {

// The tensor a view or add_ works on: its first parameter, given by position or by keyword
// (null when absent or when the call does not bind; eager and the tracer report that).
ExprPtr first_argument(const Expr& call) {
  try {
    std::vector<ExprPtr> bound = bind_call(call);
    return bound.empty() ? nullptr : bound[0];
  } catch (const UserError&) {
    return nullptr;
  }
}

class MutationFinder {
 public:
  MutationFinder(std::map<std::string, std::string> aliases, bool mutation_allowed)
      : aliases_(std::move(aliases)), mutation_allowed_(mutation_allowed) {}

  // Walks a block; the names that may alias a parameter afterwards are in aliases_ (name ->
  // the parameter).
  void block(const std::vector<Stmt>& body) {
    for (const Stmt& s : body) {
      if (found_) return;
      stmt(s);
    }
  }

  std::optional<OperandMutation> found() const { return found_; }
  const std::set<std::string>& mutated() const { return mutated_; }

 private:
  void stmt(const Stmt& s) {
    for (const ExprPtr& e : {s.value, s.max}) scan(e);
    for (const ExprPtr& e : s.operands) scan(e);
    for (const ExprPtr& e : s.returns) scan(e);
    switch (s.kind) {
      case Stmt::Kind::kAssign: {
        std::optional<std::string> root = alias_root(s.value);
        for (const std::string& t : s.targets) {
          if (root) {
            aliases_[t] = *root;
          } else {
            aliases_.erase(t);  // a new value under an old name
          }
        }
        break;
      }
      case Stmt::Kind::kCond:
      case Stmt::Kind::kWhileLoop:
      case Stmt::Kind::kInvokeSubgraph:
      case Stmt::Kind::kMap:
      case Stmt::Kind::kScan:
      case Stmt::Kind::kAssociativeScan:
        for (const std::string& t : s.targets) aliases_.erase(t);  // new tensors
        break;
      case Stmt::Kind::kIf: {
        MutationFinder then_part(aliases_, mutation_allowed_),
            else_part(aliases_, mutation_allowed_);
        then_part.block(s.then_body);
        else_part.block(s.else_body);
        found_ = then_part.found_ ? then_part.found_ : else_part.found_;
        for (const MutationFinder* part : {&then_part, &else_part})
          mutated_.insert(part->mutated_.begin(), part->mutated_.end());
        aliases_ = then_part.aliases_;
        aliases_.insert(else_part.aliases_.begin(), else_part.aliases_.end());
        break;
      }
      case Stmt::Kind::kReturn:
        // A returned parameter, or a view of one, would alias the caller's tensor.
        for (const ExprPtr& e : s.returns) {
          std::optional<std::string> root = alias_root(e);
          if (root && !found_) found_ = OperandMutation{*root, e ? e->loc : s.loc, true};
        }
        break;
      case Stmt::Kind::kCheck:
      case Stmt::Kind::kCheckIsSize:
        break;
    }
  }

  // The parameter e may alias: through a name that may alias one, or a view or add_ of such.
  std::optional<std::string> alias_root(const ExprPtr& e) const {
    if (!e) return std::nullopt;
    if (e->kind == Expr::Kind::kVar) {
      auto it = aliases_.find(e->name);
      if (it != aliases_.end()) return it->second;
      return std::nullopt;
    }
    if (e->kind != Expr::Kind::kCall) return std::nullopt;
    OpFamily family = schema(e->op).family;
    if (family != OpFamily::kView && family != OpFamily::kMutation) return std::nullopt;
    return alias_root(first_argument(*e));
  }

  // Every add_ inside e, depth first: one whose target may alias a parameter is the finding.
  void scan(const ExprPtr& e) {
    if (!e || found_) return;
    for_each_subexpr(e, [&](const Expr& x) {
      if (found_ || x.kind != Expr::Kind::kCall || schema(x.op).family != OpFamily::kMutation) {
        return;
      }
      if (std::optional<std::string> root = alias_root(first_argument(x))) {
        mutated_.insert(*root);
        if (!mutation_allowed_) found_ = OperandMutation{*root, x.loc};
      }
    });
  }

  std::map<std::string, std::string> aliases_;
  bool mutation_allowed_;
  std::optional<OperandMutation> found_;
  std::set<std::string> mutated_;  // every parameter some add_ may mutate
};

MutationFinder run_finder(const FunctionDef& f, const std::vector<bool>& tensor_params,
                          bool mutation_allowed) {
  std::map<std::string, std::string> params;
  for (size_t i = 0; i < f.params.size() && i < tensor_params.size(); ++i) {
    if (tensor_params[i]) params.emplace(f.params[i], f.params[i]);
  }
  MutationFinder finder(std::move(params), mutation_allowed);
  finder.block(f.body);
  return finder;
}

}  // namespace

std::optional<OperandMutation> find_operand_mutation(const FunctionDef& f,
                                                     const std::vector<bool>& tensor_params,
                                                     bool mutation_allowed) {
  return run_finder(f, tensor_params, mutation_allowed).found();
}

std::vector<size_t> mutated_operands(const FunctionDef& f, const std::vector<bool>& tensor_params) {
  // Allowed, so the walk goes on past the first mutation and collects them all.
  MutationFinder finder = run_finder(f, tensor_params, true);
  std::vector<size_t> out;
  for (size_t i = 0; i < f.params.size() && i < tensor_params.size(); ++i) {
    if (tensor_params[i] && finder.mutated().count(f.params[i])) out.push_back(i);
  }
  return out;
}

void check_no_operand_mutation(const FunctionDef& f, const std::vector<bool>& tensor_params,
                               const Stmt& call) {
  std::optional<OperandMutation> m =
      find_operand_mutation(f, tensor_params, call.kind == Stmt::Kind::kInvokeSubgraph);
  if (!m) return;
  const std::string where = "line " + std::to_string(m->loc.line) + ": " +
                            higher_order_name(call.kind) + ": function '" + f.name + "' ";
  if (m->aliased) {
    throw_user_error(UserErrorKind::kInvalidProgram,
                     where + "returns its operand '" + m->operand +
                         "' or a view of it: higher-order ops do not support aliasing (torch.cond "
                         "and torch.while_loop refuse it); return a copy instead (" +
                         m->operand + " + 0)");
  }
  throw_user_error(UserErrorKind::kInvalidProgram,
                   where + "mutates its operand '" + m->operand +
                       "' (add_): higher-order ops refuse input mutation (torch.cond and "
                       "torch.while_loop do); mutate a copy instead (c = " +
                       m->operand + " + 0, then add_(c, ...))");
}

std::vector<size_t> region_mutated_operands(const FunctionDef& f,
                                            const std::vector<const void*>& tensors,
                                            const Stmt& call) {
  std::vector<bool> is_tensor;
  for (const void* t : tensors) is_tensor.push_back(t != nullptr);
  std::vector<size_t> mutated = mutated_operands(f, is_tensor);
  for (size_t i : mutated) {
    for (size_t j = 0; j < tensors.size(); ++j) {
      if (j == i || tensors[j] != tensors[i]) continue;
      throw_user_error(UserErrorKind::kInvalidProgram,
                       "line " + std::to_string(call.loc.line) + ": " +
                           higher_order_name(call.kind) + ": function '" + f.name +
                           "' mutates its operand " + std::to_string(i) + " ('" + f.params.at(i) +
                           "'), which is passed again as operand " + std::to_string(j) +
                           ": a mutated operand must not alias another (pass a copy, x + 0, for "
                           "one of them)");
    }
  }
  return mutated;
}

}  // namespace sf::program
