// σ first (placeholders' real sizes, each binding's keypath walked on its node's real value,
// renamings as equalities), then every fact judged under it. The keypath walk is ours, on the
// recorded real values: PyTorch's own evaluation of its keypaths is what is being checked.
#include "oracles/torch_graph/invariants.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "engine/sym/eval.h"
#include "engine/sym/make.h"
#include "engine/sym/walk.h"
#include "oracles/smt/solver.h"
#include "oracles/torch_graph/memo_invariant.h"

namespace sf::torch_graph {

namespace {

using sym::Concrete;

std::optional<Concrete> constant(const ExprRef& e) {
  if (!e) return std::nullopt;
  if (e->is(sym::ExprKind::kInteger)) return Concrete::of_int(e->int_value());
  if (e->is(sym::ExprKind::kBoolConst)) return Concrete::of_bool(e->bool_value());
  if (e->is(sym::ExprKind::kFloat)) return Concrete::of_float(e->float_value());
  return std::nullopt;
}

// Walks `path` from a node's real value, as pytree.key_get would. Empty with *why on failure.
std::optional<Concrete> resolve(const CapturedValue& v, const std::vector<KeyStep>& path,
                                std::string* why) {
  const CapturedValue* value = &v;
  const std::vector<ExprRef>* list = nullptr;
  std::optional<Concrete> number;
  for (const KeyStep& s : path) {
    switch (s.kind) {
      case KeyStep::Kind::kSize:
      case KeyStep::Kind::kStride:
        if (!value || value->kind != CapturedValue::Kind::kTensor) {
          *why = s.text + " of a value that is not a tensor";
          return std::nullopt;
        }
        list = s.kind == KeyStep::Kind::kSize ? &value->sizes : &value->strides;
        value = nullptr;
        break;
      case KeyStep::Kind::kStorageOffset:
        if (!value || value->kind != CapturedValue::Kind::kTensor) {
          *why = s.text + " of a value that is not a tensor";
          return std::nullopt;
        }
        number = constant(value->offset);
        value = nullptr;
        break;
      case KeyStep::Kind::kIndex:
        if (list) {
          if (s.n < 0 || s.n >= static_cast<int64_t>(list->size())) {
            *why = s.text + " past " + std::to_string(list->size()) + " dims";
            return std::nullopt;
          }
          number = constant((*list)[s.n]);
          list = nullptr;
        } else if (value && value->kind == CapturedValue::Kind::kTuple && s.n >= 0 &&
                   s.n < static_cast<int64_t>(value->items.size())) {
          value = &value->items[s.n];
        } else {
          *why = s.text + " of a value without that element";
          return std::nullopt;
        }
        break;
      case KeyStep::Kind::kConvertInt:
        if (value && value->kind == CapturedValue::Kind::kScalar) number = constant(value->scalar);
        value = nullptr;
        if (!number || number->type == sym::ExprType::kFloat) {
          *why = "int() of a value that is not an int or bool";
          return std::nullopt;
        }
        if (number->type == sym::ExprType::kBool) number = Concrete::of_int(number->b ? 1 : 0);
        break;
      case KeyStep::Kind::kDivideBy:
        if (!number || number->type != sym::ExprType::kInt || s.n == 0 || number->i % s.n != 0) {
          *why = s.text + " of a value it does not divide";
          return std::nullopt;
        }
        number = Concrete::of_int(number->i / s.n);
        break;
      case KeyStep::Kind::kInner:
        *why = "inner tensors are not captured";
        return std::nullopt;
    }
  }
  if (value && value->kind == CapturedValue::Kind::kScalar) number = constant(value->scalar);
  if (!number || list) *why = "the path ends on a value that is not a number";
  return list ? std::nullopt : number;
}

class GraphChecker {
 public:
  GraphChecker(const CapturedGraph& g, InvariantReport& r) : g_(g), r_(r) {}

  void run() {
    sigma_from_placeholders();
    sigma_from_bindings();
    sigma_from_renamings();
    find_orphans();
    check_uses_are_bound();
    check_memo();
    // PyTorch's facts (ranges, replacements, asserts, and the metadata derived from them) hold
    // on runs that pass its runtime asserts: on a run that raised (a program with an error) the
    // real values may break them, as they should.
    if (ran_to_the_end()) {
      check_replacements();
      check_ranges();
      check_divisible_and_size_like();
      check_facts_hold();
      check_sizes();
      check_with_solver();
    }
  }

 private:
  void violation(const std::string& invariant, const std::string& op, const std::string& detail) {
    r_.violations.push_back({invariant, op, detail});
  }

  void assign(const ExprRef& s, const Concrete& v, const std::string& from) {
    auto it = sigma_.find(s);
    if (it == sigma_.end()) {
      sigma_[s] = v;
      from_[s] = from;
    } else if (!(it->second == v)) {
      violation("binding", from,
                s->str() + " is " + v.str() + " by " + from + " but " + it->second.str() + " by " +
                    from_[s]);
    }
  }

  // An input's symbols are bound by the input itself (a size or an int argument).
  void sigma_from_placeholders() {
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const CapturedNode& n = g_.nodes[i];
      if (n.op != "placeholder" || !n.val) continue;
      each_expr(*n.val, [&](const ExprRef& e) {
        if (e && e->is(sym::ExprKind::kSymbol)) binder_index_.emplace(e, i);
      });
      auto real = g_.real.find(n.name);
      if (real == g_.real.end()) continue;
      const CapturedValue& meta = *n.val;
      const CapturedValue& actual = real->second;
      if (meta.kind == CapturedValue::Kind::kTensor && actual.kind == meta.kind &&
          actual.sizes.size() == meta.sizes.size()) {
        for (size_t d = 0; d < meta.sizes.size(); ++d) {
          std::optional<Concrete> v = constant(actual.sizes[d]);
          if (meta.sizes[d] && meta.sizes[d]->is(sym::ExprKind::kSymbol) && v) {
            assign(meta.sizes[d], *v, "input " + n.name + " dim " + std::to_string(d));
          }
        }
      } else if (meta.kind == CapturedValue::Kind::kScalar && meta.scalar &&
                 meta.scalar->is(sym::ExprKind::kSymbol)) {
        if (std::optional<Concrete> v = constant(actual.scalar)) assign(meta.scalar, *v, n.name);
      }
    }
  }

  void sigma_from_bindings() {
    std::unordered_map<ExprRef, std::string, sym::ExprHash> bound_by;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const CapturedNode& n = g_.nodes[i];
      for (const Binding& b : n.bindings) {
        auto [it, fresh] = bound_by.emplace(b.symbol, n.name);
        if (!fresh) {
          violation("binding", n.target,
                    b.symbol->str() + " is bound twice, by " + it->second + " and " + n.name);
        }
        binder_index_[b.symbol] = i;
        auto real = g_.real.find(n.name);
        if (real == g_.real.end()) continue;  // the run did not reach it
        if (real->second.non_finite) {
          ++r_.unknown;  // a NaN or infinite float: σ has no value for it
          continue;
        }
        std::string why;
        std::optional<Concrete> v = resolve(real->second, b.path, &why);
        if (!v) {
          violation(
              "keypath", n.target,
              "the keypath of " + b.symbol->str() + " on " + n.name + "'s real value: " + why);
          continue;
        }
        assign(b.symbol, *v, "the binding of " + n.name);
      }
    }
  }

  // A renaming says two symbols are one value: σ of one is σ of the other.
  void sigma_from_renamings() {
    for (int round = 0; round < 2; ++round) {
      for (const auto& [from, to] : g_.renamings) {
        auto a = sigma_.find(from), b = sigma_.find(to);
        if (a != sigma_.end() && b != sigma_.end()) {
          if (round == 0) {
            ++r_.checked;
            if (!(a->second == b->second)) {
              violation("renaming", "rename",
                        from->str() + " renamed to " + to->str() + " but " + from->str() + " = " +
                            a->second.str() + " and " + to->str() + " = " + b->second.str());
            }
          }
        } else if (a != sigma_.end()) {
          assign(to, a->second, "the renaming of " + from->str());
        } else if (b != sigma_.end()) {
          assign(from, b->second, "the renaming to " + to->str());
        }
      }
    }
  }

  void check_replacements() {
    std::unordered_set<ExprRef, sym::ExprHash> judged;
    for (int round = 0; round < 3; ++round) {
      for (const auto& [s, e] : g_.replacements) {
        if (judged.count(s)) continue;
        sym::EvalResult v = sym::evaluate(e, sigma_);
        if (!v.defined) continue;
        auto known = sigma_.find(s);
        if (known == sigma_.end()) {
          assign(s, v.value, "the replacement " + s->str() + " = " + e->str());
          judged.insert(s);
          continue;
        }
        judged.insert(s);
        ++r_.checked;
        if (!(known->second == v.value)) {
          violation("replacement", "replacement",
                    s->str() + " = " + e->str() + " does not hold: " + s->str() + " is " +
                        known->second.str() + " (" + from_[s] + "), the expression " +
                        v.value.str());
        }
      }
    }
    r_.unknown += static_cast<int>(g_.replacements.size() - judged.size());
  }

  void check_ranges() {
    for (const std::string& r : g_.empty_ranges) {
      ++r_.checked;
      violation("range", "range", "the range of " + r + " is empty");
    }
    for (const auto& [s, range] : g_.ranges) {
      auto v = sigma_.find(s);
      if (v == sigma_.end() || v->second.type != sym::ExprType::kInt) continue;
      ++r_.checked;
      if (!range.contains(v->second.i)) {
        violation("range", "range",
                  s->str() + " = " + v->second.str() + " (" + from_[s] + ") outside its range " +
                      range.str());
      }
    }
  }

  // ShapeEnv.divisible holds Mod(a, b) expressions it knows to be 0; size_like symbols are known
  // to be sizes (>= 0).
  void check_divisible_and_size_like() {
    for (const ExprRef& m : g_.divisible) {
      sym::EvalResult v = sym::evaluate(m, sigma_);
      if (!v.defined) {
        ++r_.unknown;
        continue;
      }
      ++r_.checked;
      if (!(v.value == Concrete::of_int(0))) {
        violation("divisible", "divisible",
                  m->str() + " is recorded as 0 (divisible) but is " + v.value.str() + " (" +
                      sigma_text(m) + ")");
      }
    }
    for (const ExprRef& s : g_.size_like) {
      auto v = sigma_.find(s);
      if (v == sigma_.end() || v->second.type != sym::ExprType::kInt) continue;
      ++r_.checked;
      if (v->second.i < 0) {
        violation("size_like", "size_like",
                  s->str() + " is marked size-like (>= 0) but is " + v->second.str() + " (" +
                      from_[s] + ")");
      }
    }
  }

  // Symbols equal under the renamings (both directions), for "is this use bound".
  std::unordered_set<ExprRef, sym::ExprHash> renamed_class(const ExprRef& s) const {
    std::unordered_set<ExprRef, sym::ExprHash> out = {s};
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto& [a, b] : g_.renamings) {
        if (out.count(a) && out.insert(b).second) grew = true;
        if (out.count(b) && out.insert(a).second) grew = true;
      }
    }
    return out;
  }

  // The earliest node that binds `s` (or a renaming of it, or every symbol of its replacement).
  std::optional<size_t> bound_at(const ExprRef& s, int depth = 0) const {
    std::optional<size_t> best;
    for (const ExprRef& x : renamed_class(s)) {
      auto it = binder_index_.find(x);
      if (it != binder_index_.end() && (!best || it->second < *best)) best = it->second;
    }
    if (best || depth > 3) return best;
    for (const auto& [r, e] : g_.replacements) {
      if (r != s) continue;
      std::optional<size_t> latest = 0;
      for (const ExprRef& u : sym::free_unbacked_symbols(e)) {
        std::optional<size_t> at = bound_at(u, depth + 1);
        if (!at) return std::nullopt;
        latest = std::max(*latest, *at);
      }
      return latest;
    }
    return std::nullopt;
  }

  // The body that binds `s` (or a renaming of it), if any.
  std::optional<std::string> bound_in_subgraph(const ExprRef& s) const {
    std::unordered_set<ExprRef, sym::ExprHash> names = renamed_class(s);
    for (const auto& [name, nodes] : g_.subgraphs) {
      for (const CapturedNode& n : nodes) {
        for (const Binding& b : n.bindings) {
          if (names.count(b.symbol)) return name;
        }
        // A body's inputs (a loop's carries, a map's rows) bind their symbols within it.
        bool in_input = false;
        if (n.op == "placeholder" && n.val) {
          each_expr(*n.val, [&](const ExprRef& e) {
            in_input |= e && e->is(sym::ExprKind::kSymbol) && names.count(e) > 0;
          });
        }
        if (in_input) return name;
      }
    }
    return std::nullopt;
  }

  // A use in the graph needs a binding in the graph before it; an assert's symbols may be bound
  // inside a body (an assert over a body's own symbols is checked there, not here).
  void check_uses_are_bound() {
    std::unordered_set<ExprRef, sym::ExprHash> reported;
    auto use = [&](const ExprRef& s, size_t at, const std::string& user, const std::string& op) {
      if (reported.count(s)) return;
      ++r_.checked;
      std::optional<size_t> bound = bound_at(s);
      std::optional<std::string> body = bound ? std::nullopt : bound_in_subgraph(s);
      if (!bound && body && op == "assert") return;
      if (!bound) {
        reported.insert(s);
        violation("binding", op,
                  s->str() + " is used by " + user +
                      (body ? " but only a node inside " + *body + " binds it"
                            : " but no node binds it"));
      } else if (*bound > at) {
        reported.insert(s);
        violation(
            "binding", op,
            s->str() + " is used by " + user + " before " + g_.nodes[*bound].name + " binds it");
      }
    };
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const CapturedNode& n = g_.nodes[i];
      if (!n.val || n.op == "placeholder") continue;
      each_expr(*n.val, [&](const ExprRef& e) {
        if (!e) return;
        for (const ExprRef& s : sym::free_unbacked_symbols(e)) use(s, i, n.name, n.target);
      });
    }
    for (const std::vector<ExprRef>* facts : {&g_.asserts, &g_.guards}) {
      for (const ExprRef& e : *facts) {
        if (orphan(e)) continue;
        for (const ExprRef& s : sym::free_unbacked_symbols(e)) {
          use(s, g_.nodes.size(), "the assert " + e->str(), "assert");
        }
      }
    }
  }

  // A fact over a symbol no graph binds or uses (nor a renaming of it): the symbol belongs to a
  // trace PyTorch discarded, so the fact can never be checked (PyTorch's assert insertion skips
  // it too). Mixed facts count: a body's carry symbol is shared by every trace of the body.
  // Decided once (it depends on the graphs, not on σ) and counted here for every run.
  void find_orphans() {
    for (const std::vector<ExprRef>* facts : {&g_.asserts, &g_.guards}) {
      for (const ExprRef& fact : *facts) {
        for (const ExprRef& s : sym::free_unbacked_symbols(fact)) {
          if (!bound_at(s) && !bound_in_subgraph(s) && !used_in_graph(s)) {
            orphans_.insert(fact);
            break;
          }
        }
        r_.orphan_facts += orphans_.count(fact) > 0 ? 1 : 0;
      }
    }
  }

  bool orphan(const ExprRef& fact) const { return orphans_.count(fact) > 0; }

  bool used_in_graph(const ExprRef& s) const {
    std::unordered_set<ExprRef, sym::ExprHash> names = renamed_class(s);
    bool used = false;
    for (const CapturedNode& n : g_.nodes) {
      if (!n.val || used) continue;
      each_expr(*n.val, [&](const ExprRef& e) {
        if (!e || used) return;
        for (const ExprRef& x : sym::free_unbacked_symbols(e)) used |= names.count(x) > 0;
      });
    }
    return used;
  }

  bool ran_to_the_end() const {
    for (const CapturedNode& n : g_.nodes) {
      if (n.op == "output") return g_.real.count(n.name) > 0;
    }
    return false;
  }

  void check_facts_hold() {
    for (const auto& [what, facts] : {std::pair{"assert", &g_.asserts}, {"guard", &g_.guards}}) {
      for (const ExprRef& e : *facts) {
        if (orphan(e)) continue;
        sym::EvalResult v = sym::evaluate(e, sigma_);
        if (!v.defined) {
          ++r_.unknown;
          continue;
        }
        ++r_.checked;
        if (v.value.type == sym::ExprType::kBool && !v.value.b) {
          violation(what, what,
                    std::string("the ") + what + " " + e->str() +
                        " is false on a run that completed (" + sigma_text(e) + ")");
        }
      }
    }
  }

  void check_sizes() {
    for (const CapturedNode& n : g_.nodes) {
      if (!n.val || n.op == "placeholder") continue;
      auto real = g_.real.find(n.name);
      if (real == g_.real.end()) continue;
      compare_sizes(*n.val, real->second, n);
    }
  }

  void compare_sizes(const CapturedValue& meta, const CapturedValue& actual,
                     const CapturedNode& n) {
    if (meta.kind == CapturedValue::Kind::kTuple && actual.kind == meta.kind) {
      for (size_t i = 0; i < std::min(meta.items.size(), actual.items.size()); ++i) {
        compare_sizes(meta.items[i], actual.items[i], n);
      }
      return;
    }
    if (meta.kind == CapturedValue::Kind::kScalar && actual.kind == meta.kind) {
      compare_one("values", n.name, meta.scalar, actual.scalar, n);
      return;
    }
    if (meta.kind != CapturedValue::Kind::kTensor || actual.kind != meta.kind) return;
    if (meta.sizes.size() != actual.sizes.size()) {
      violation("sizes", n.target,
                n.name + " has " + std::to_string(meta.sizes.size()) + " dims in its metadata, " +
                    std::to_string(actual.sizes.size()) + " when run");
      return;
    }
    bool empty = false;
    for (size_t d = 0; d < meta.sizes.size(); ++d) {
      compare_one("sizes", n.name + " dim " + std::to_string(d), meta.sizes[d], actual.sizes[d], n);
      std::optional<Concrete> size = constant(actual.sizes[d]);
      empty |= size && size->type == sym::ExprType::kInt && size->i == 0;
    }
    // The layout, where it means something: no element has an address in an empty tensor, and
    // a dim of one element takes any stride (PyTorch's fake and real kernels may differ there).
    if (empty || meta.strides.size() != actual.strides.size() ||
        actual.strides.size() != actual.sizes.size()) {
      return;
    }
    for (size_t d = 0; d < meta.strides.size(); ++d) {
      std::optional<Concrete> size = constant(actual.sizes[d]);
      if (!size || size->type != sym::ExprType::kInt || size->i == 1) continue;
      compare_one("strides", n.name + " stride " + std::to_string(d), meta.strides[d],
                  actual.strides[d], n);
    }
    compare_one("strides", n.name + " storage offset", meta.offset, actual.offset, n);
  }

  // A symbolic size or int value against the real one (floats are not compared: rounding).
  void compare_one(const char* invariant, const std::string& what, const ExprRef& meta,
                   const ExprRef& actual, const CapturedNode& n) {
    std::optional<Concrete> real = constant(actual);
    if (!meta || !real || real->type == sym::ExprType::kFloat || meta->is_float()) return;
    sym::EvalResult v = sym::evaluate(meta, sigma_);
    if (!v.defined) {
      ++r_.unknown;
      return;
    }
    ++r_.checked;
    Concrete expected = v.value;
    if (expected.type == sym::ExprType::kBool && real->type == sym::ExprType::kInt) {
      expected = Concrete::of_int(expected.b ? 1 : 0);
    }
    if (!(expected == *real)) {
      violation(invariant, n.target,
                what + " is " + meta->str() + " = " + v.value.str() + " under σ (" +
                    sigma_text(meta) + ") but its real value is " + real->str());
    }
  }

  // Z3 on the captured facts: the ranges, replacements, renamings, asserts and guards must be
  // satisfiable together (a contradiction lets PyTorch prove anything); and each assert or guard
  // σ left undecided on a completed run is decided with them: false under every completion of σ
  // is a violation, true under every one is checked, anything else stays unknown.
  void check_with_solver() {
    smt::Options opts;
    opts.timeout_ms = 1000;
    smt::Session& z3 = smt::Session::shared(opts);
    smt::Session::Scope scope(z3);
    for (const auto& [s, range] : g_.ranges) {
      if (range.lo().is_finite()) z3.assume(sym::le(sym::integer(range.lo().value()), s), "range");
      if (range.hi().is_finite()) z3.assume(sym::le(s, sym::integer(range.hi().value())), "range");
    }
    for (const auto& [s, e] : g_.replacements) {
      if (s->is_int() && e->is_int()) z3.assume(sym::eq(s, e), "replacement " + s->str());
    }
    for (const auto& [a, b] : g_.renamings) z3.assume(sym::eq(a, b), "renaming " + a->str());
    for (const ExprRef& m : g_.divisible) {
      if (m->is_int()) z3.assume(sym::eq(m, sym::integer(0)), "divisible " + m->str());
    }
    for (const ExprRef& s : g_.size_like) {
      if (s->is_int()) z3.assume(sym::le(sym::integer(0), s), "size-like " + s->str());
    }
    std::vector<ExprRef> facts;
    for (const std::vector<ExprRef>* list : {&g_.asserts, &g_.guards}) {
      for (const ExprRef& e : *list) {
        if (e->type() == sym::ExprType::kBool) facts.push_back(e);
      }
    }
    smt::Result all = z3.check(facts);
    if (all.status == smt::Status::kUnsat) {
      ++r_.checked;
      std::string core;
      for (const std::string& c : all.core) core += (core.empty() ? "" : "; ") + c;
      violation("consistency", "shape_env",
                "the ShapeEnv's ranges, replacements, renamings and asserts contradict each "
                "other (a conflicting subset: " +
                    (core.empty() ? std::string("not named") : core) + ")");
      return;
    }
    if (all.status != smt::Status::kSat) {
      ++r_.unknown;
      return;
    }
    ++r_.checked;
    // With σ: the facts must still be satisfiable (σ fixes the known symbols; the unknown ones
    // may take any value), and each fact σ left open is decided where it can be.
    smt::Session::Scope with_sigma(z3);
    for (const auto& [s, v] : sigma_) {
      if (v.type == sym::ExprType::kInt) z3.assume(sym::eq(s, sym::integer(v.i)), "σ " + s->str());
    }
    std::vector<ExprRef> open;
    for (const ExprRef& f : facts) {
      if (!orphan(f) && !sym::evaluate(f, sigma_).defined) open.push_back(f);
    }
    if (open.empty()) return;
    smt::Result with_open = z3.check(open);
    if (with_open.status == smt::Status::kUnsat) {
      ++r_.checked;
      std::string list;
      for (const ExprRef& f : open) list += (list.empty() ? "" : "; ") + f->str();
      violation("assert", "assert",
                "the asserts " + list +
                    " cannot all hold for any value of their unknown symbols, given the real "
                    "values known and the other facts, on a run that completed");
      return;
    }
    for (const ExprRef& f : open) {
      if (z3.entails(f).status == smt::Status::kUnsat) {
        ++r_.checked;  // true under every completion of σ
        --r_.unknown;  // check_facts_hold counted it unknown
      }
    }
  }

  // The expression with every replacement and renaming applied (to a fixpoint, bounded).
  ExprRef canonical(ExprRef e) const {
    for (int round = 0; round < 8; ++round) {
      ExprRef next = sym::substitute_symbols(e, [&](const ExprRef& s) -> ExprRef {
        for (const auto& [from, to] : g_.replacements) {
          if (from == s) return to;
        }
        for (const auto& [from, to] : g_.renamings) {
          if (from == s) return to;
        }
        return nullptr;
      });
      if (next == e) break;
      e = next;
    }
    return e;
  }

  bool asserted_equal(const ExprRef& a, const ExprRef& b) const {
    for (const std::vector<ExprRef>* facts : {&g_.asserts, &g_.guards}) {
      for (const ExprRef& f : *facts) {
        if (!f->is(sym::ExprKind::kEq)) continue;
        ExprRef l = canonical(f->arg(0)), r = canonical(f->arg(1));
        if ((l == a && r == b) || (l == b && r == a)) return true;
      }
    }
    return false;
  }

  void check_memo() {
    MemoFacts facts;
    facts.bound_at = [this](const ExprRef& x) { return bound_at(x); };
    facts.canonical = [this](const ExprRef& x) { return canonical(x); };
    facts.asserted_equal = [this](const ExprRef& x, const ExprRef& y) {
      return asserted_equal(x, y);
    };
    torch_graph::check_memo(g_, facts, r_);
  }

  std::string sigma_text(const ExprRef& e) const {
    std::string out;
    for (const ExprRef& s : sym::free_symbols(e)) {
      auto v = sigma_.find(s);
      if (!out.empty()) out += ", ";
      out += s->str() + " = " + (v == sigma_.end() ? "?" : v->second.str());
    }
    return out;
  }

  const CapturedGraph& g_;
  InvariantReport& r_;
  sym::Assignment sigma_;
  std::unordered_map<ExprRef, std::string, sym::ExprHash> from_;
  std::unordered_map<ExprRef, size_t, sym::ExprHash> binder_index_;
  std::unordered_set<ExprRef, sym::ExprHash> orphans_;
};

}  // namespace

const char* describe_invariant(const std::string& invariant) {
  static const std::pair<const char*, const char*> kWords[] = {
      {"binding", "every unbacked symbol a node or an assert uses is bound by one node before it"},
      {"keypath", "each unbacked binding's keypath resolves on its node's real output"},
      {"range", "each symbol's real value lies in its recorded value range"},
      {"replacement", "each replacement holds on the real run"},
      {"renaming", "a renamed unbacked symbol equals its new name on the real run"},
      {"divisible", "each expression the ShapeEnv records as divisible is on the real run"},
      {"size_like", "each symbol marked size-like is non-negative on the real run"},
      {"consistency", "the ShapeEnv's ranges, replacements and asserts can hold together"},
      {"assert", "every deferred runtime assert is true on a run that completed"},
      {"guard", "every guard is true on a run that completed"},
      {"sizes", "each node's symbolic sizes equal its real sizes"},
      {"values", "each node's symbolic int value equals its real value"},
      {"strides", "each node's symbolic strides and storage offset equal the real ones"},
      {"memo", "two data-dependent calls on the same values share a symbol or are asserted equal"},
      {"eager-raised", "where eager's checks fail on the inputs, the compiled program raises too"},
  };
  for (const auto& [name, words] : kWords) {
    if (invariant == name) return words;
  }
  return "an invariant of PyTorch's unbacked-symbol machinery";
}

InvariantReport check_capture(const Capture& capture) {
  InvariantReport r;
  for (const CapturedGraph& g : capture.graphs) {
    GraphChecker(g, r).run();
    r.unreadable.insert(r.unreadable.end(), g.unreadable.begin(), g.unreadable.end());
  }
  return r;
}

}  // namespace sf::torch_graph
