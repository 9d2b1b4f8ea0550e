// Stateful RapidCheck test: random sequences of create / check / constrain / rename / rebind /
// evaluate commands against a ShapeEnv, checking INV-7, 8, 9, 11, 13, 14, 15 and event-log replay
// after every command.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include "engine/base/errors.h"
#include "engine/shape_env/shape_env.h"
#include "engine/sym/make.h"
#include "fuzz/gen/shape_env_gen.h"
#include "oracles/invariants/shape_env_invariants.h"

namespace sf {
namespace {

using oracles::ShapeEnvSnapshot;

// The model mirrors which slots exist, so preconditions and arguments stay valid.
struct Model {
  std::vector<bool> unbacked;  // per int slot: is it a plain unbacked symbol we created?
  std::vector<bool> renamed;   // per int slot: already renamed away
};

struct Sut {
  ShapeEnv env;
  std::vector<SymInt> ints;
};

void expect_ok(const std::vector<oracles::Violation>& vs) {
  RC_LOG() << oracles::violations_str(vs);
  RC_ASSERT(vs.empty());
}

// What the tracer does after a check: symbols the divisibility rewrite left pending are bound
// at a node computing i0 // d.
void bind_divisibility_factors(Sut& sut) {
  const std::vector<ExprRef>& pending = sut.env.pending_fresh_unbacked_symbols();
  if (pending.empty()) return;
  std::vector<Value> exposed;
  for (const ExprRef& s : pending) {
    RC_ASSERT(sut.env.divisibility_factors().count(s) == 1u);
    exposed.push_back(Value(SymInt(s)));
  }
  sut.env.compute_unbacked_bindings(Value::tuple(exposed));
  RC_ASSERT(sut.env.pending_fresh_unbacked_symbols().empty());
}

// Invariants checked after every command.
void check_all(Sut& sut, const ShapeEnvSnapshot& before) {
  bind_divisibility_factors(sut);
  expect_ok(oracles::check_state(sut.env));
  expect_ok(oracles::check_ranges_monotone(sut.env, before));
  expect_ok(oracles::check_replay(sut.env));
}

using Cmd = rc::state::Command<Model, Sut>;

// A condition over existing slots: slot_a (+ c) op slot_b | constant | (slot_a % m).
struct CondSpec {
  size_t a = 0, b = 0;
  int op = 0, shape = 0;
  int64_t c = 0;
  SymBool build(const Sut& sut) const {
    const SymInt& x = sut.ints[a];
    const SymInt& y = sut.ints[b];
    switch (shape % 4) {
      case 0:
        return fuzz::relation(op, x + SymInt(c), y);
      case 1:
        return fuzz::relation(op, x, SymInt(c));
      case 2:
        return sym_eq(mod(x, SymInt(c == 0 ? 2 : (c < 0 ? -c + 1 : c + 1))), SymInt(0));
      default:
        return fuzz::relation(op, x * SymInt(c == 0 ? 2 : c), y + SymInt(1));
    }
  }
  static CondSpec gen(const Model& m) {
    CondSpec s;
    size_t n = m.unbacked.size();
    s.a = *rc::gen::inRange<size_t>(0, n);
    s.b = *rc::gen::inRange<size_t>(0, n);
    s.op = *rc::gen::inRange(0, static_cast<int>(fuzz::kNumRelations));
    s.shape = *rc::gen::inRange(0, 4);
    s.c = *rc::gen::inRange<int64_t>(-4, 9);
    return s;
  }
  // Shrinking replays commands against other models: indices must be re-validated.
  bool fits(const Model& m) const { return a < m.unbacked.size() && b < m.unbacked.size(); }
  std::string str() const {
    return "slot" + std::to_string(a) + " op" + std::to_string(op) + " slot" + std::to_string(b) +
           " c=" + std::to_string(c) + " shape" + std::to_string(shape);
  }
};

struct CreateUnbacked : Cmd {
  void apply(Model& m) const override {
    m.unbacked.push_back(true);
    m.renamed.push_back(false);
  }
  void run(const Model&, Sut& sut) const override {
    ShapeEnvSnapshot before = ShapeEnvSnapshot::of(sut.env);
    SymInt u = sut.env.create_unbacked_symint();
    // Bind it immediately, as the tracer would at the node that produced it.
    std::optional<Bindings> b = sut.env.compute_unbacked_bindings(Value(u));
    RC_ASSERT(b.has_value());
    RC_ASSERT(b->count(u.expr()) == 1u);
    RC_ASSERT(sut.env.pending_fresh_unbacked_symbols().empty());  // INV-1
    sut.ints.push_back(u);
    check_all(sut, before);
  }
  void show(std::ostream& os) const override { os << "CreateUnbacked"; }
};

struct CreateBool : Cmd {
  void apply(Model& m) const override {
    m.unbacked.push_back(false);
    m.renamed.push_back(false);
  }
  void run(const Model&, Sut& sut) const override {
    ShapeEnvSnapshot before = ShapeEnvSnapshot::of(sut.env);
    SymBool b = sut.env.create_unbacked_symbool();
    std::optional<Bindings> bind = sut.env.compute_unbacked_bindings(Value(b));
    RC_ASSERT(static_cast<bool>(bind.has_value() && bind->size() == 1u));
    const auto& [s, path] = *bind->begin();
    RC_ASSERT(keypath_str(path) == "int()");                                // ConvertIntKey
    RC_ASSERT(sut.env.var_range(s).issubset(sym::ValueRange::ints(0, 1)));  // INV-23
    sut.ints.push_back(sym_bool_to_int(b));
    check_all(sut, before);
  }
  void show(std::ostream& os) const override { os << "CreateBool"; }
};

struct CreateBacked : Cmd {
  int64_t hint = *rc::gen::inRange<int64_t>(0, 12);
  void apply(Model& m) const override {
    m.unbacked.push_back(false);
    m.renamed.push_back(false);
  }
  void run(const Model&, Sut& sut) const override {
    ShapeEnvSnapshot before = ShapeEnvSnapshot::of(sut.env);
    std::string source = "x" + std::to_string(sut.ints.size()) + ".size(0)";
    sut.ints.push_back(sut.env.create_symbol(hint, source, DimDynamic::kDuck));
    check_all(sut, before);
  }
  void show(std::ostream& os) const override { os << "CreateBacked(" << hint << ")"; }
};

struct Check : Cmd {
  CondSpec cond;
  explicit Check(const Model& m) {
    if (!m.unbacked.empty()) cond = CondSpec::gen(m);
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(static_cast<bool>(cond.fits(m)));
  }
  void apply(Model&) const override {}
  void run(const Model&, Sut& sut) const override {
    ShapeEnvSnapshot before = ShapeEnvSnapshot::of(sut.env);
    try {
      sut.env.check(cond.build(sut), "random check");
    } catch (const GuardOnDataDependentSymNode&) {
      expect_ok(oracles::check_unchanged(sut.env, before, "INV-15", "a data-dependent error"));
    } catch (const UserError&) {
      // a statically false check or a contradictory range: legitimate rejections
    }
    check_all(sut, before);
  }
  void show(std::ostream& os) const override { os << "Check(" << cond.str() << ")"; }
};

struct ConstrainForSize : Cmd {
  size_t slot = 0;
  std::optional<int64_t> max;
  explicit ConstrainForSize(const Model& m) {
    if (!m.unbacked.empty()) slot = *rc::gen::inRange<size_t>(0, m.unbacked.size());
    if (*rc::gen::arbitrary<bool>()) max = *rc::gen::inRange<int64_t>(0, 20);
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(static_cast<bool>(slot < m.unbacked.size() && m.unbacked[slot]));
  }
  void apply(Model&) const override {}
  void run(const Model&, Sut& sut) const override {
    ShapeEnvSnapshot before = ShapeEnvSnapshot::of(sut.env);
    try {
      sut.env.constrain_range_for_size(sut.ints[slot].expr(), std::nullopt, max);
    } catch (const UserError&) {
    }
    check_all(sut, before);
  }
  void show(std::ostream& os) const override {
    os << "ConstrainForSize(slot" << slot << ", max=" << (max ? std::to_string(*max) : "-") << ")";
  }
};

// A retrace: the newer symbol is renamed back to an older one (what rebind_unbacked does).
struct Rename : Cmd {
  size_t older = 0, newer = 0;
  explicit Rename(const Model& m) {
    if (m.unbacked.size() >= 2) {
      older = *rc::gen::inRange<size_t>(0, m.unbacked.size() - 1);
      newer = *rc::gen::inRange<size_t>(older + 1, m.unbacked.size());
    }
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(static_cast<bool>(older < newer && newer < m.unbacked.size() && m.unbacked[older] &&
                             m.unbacked[newer] && !m.renamed[newer] && !m.renamed[older]));
  }
  void apply(Model& m) const override { m.renamed[newer] = true; }
  void run(const Model&, Sut& sut) const override {
    ShapeEnvSnapshot before = ShapeEnvSnapshot::of(sut.env);
    const ExprRef& a = sut.ints[newer].expr();
    const ExprRef& b = sut.ints[older].expr();
    try {
      sut.env.rename_unbacked_to(a, b);
      expect_ok(oracles::check_rename(sut.env, a, b, before));
    } catch (const UserError&) {
      // the two symbols' ranges contradict each other: a genuine (user-visible) conflict
    }
    check_all(sut, before);
  }
  void show(std::ostream& os) const override {
    os << "Rename(slot" << newer << " -> slot" << older << ")";
  }
};

// Re-propagation of a node: a fresh symbol at the old binding path is renamed by rebind_unbacked.
struct Rebind : Cmd {
  size_t slot = 0;
  explicit Rebind(const Model& m) {
    if (!m.unbacked.empty()) slot = *rc::gen::inRange<size_t>(0, m.unbacked.size());
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(static_cast<bool>(slot < m.unbacked.size() && m.unbacked[slot] && !m.renamed[slot]));
  }
  void apply(Model& m) const override {
    m.unbacked.push_back(true);
    m.renamed.push_back(true);
  }
  void run(const Model&, Sut& sut) const override {
    ShapeEnvSnapshot before = ShapeEnvSnapshot::of(sut.env);
    const ExprRef& old_sym = sut.ints[slot].expr();
    Bindings node_bindings{{old_sym, KeyPath{}}};
    SymInt fresh = sut.env.create_unbacked_symint();
    sut.env.compute_unbacked_bindings(Value(fresh));
    try {
      sut.env.rebind_unbacked(node_bindings, Value(fresh), false);
      expect_ok(oracles::check_rename(sut.env, fresh.expr(), sut.env.resolve_renaming(old_sym),
                                      ShapeEnvSnapshot::of(sut.env)));
      RC_ASSERT(sut.env.replace(fresh.expr()) == sut.env.replace(old_sym));  // INV-17
    } catch (const UserError&) {
    }
    sut.ints.push_back(fresh);
    check_all(sut, before);
  }
  void show(std::ostream& os) const override { os << "Rebind(slot" << slot << ")"; }
};

// Static queries and fallbacks must not change anything (INV-13, INV-14); guards may.
struct Query : Cmd {
  CondSpec cond;
  int kind = *rc::gen::inRange(0, 5);
  explicit Query(const Model& m) {
    if (!m.unbacked.empty()) cond = CondSpec::gen(m);
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(static_cast<bool>(cond.fits(m)));
  }
  void apply(Model&) const override {}
  void run(const Model&, Sut& sut) const override {
    ShapeEnvSnapshot before = ShapeEnvSnapshot::of(sut.env);
    SymBool b = cond.build(sut);
    StaticOptions unbacked_only;
    unbacked_only.unbacked_only = true;
    std::optional<ExprRef> partial = sut.env.maybe_evaluate_static(b.expr(), unbacked_only);
    bool data_dependent = partial && sym::has_free_unbacked_symbols(*partial);
    switch (kind) {
      case 0:
        sut.env.statically_known_true(b);
        expect_ok(oracles::check_unchanged(sut.env, before, "INV-13", "statically_known_true"));
        break;
      case 1:
        sut.env.maybe_evaluate_static(b.expr());
        sut.env.bound(b.expr());
        expect_ok(oracles::check_unchanged(sut.env, before, "INV-13", "maybe_evaluate_static"));
        break;
      case 2:
      case 3:
        try {
          kind == 2 ? sut.env.guard_or_false(b) : sut.env.guard_or_true(b);
        } catch (const UserError&) {
        }
        if (data_dependent) {
          expect_ok(oracles::check_unchanged(sut.env, before, "INV-14", "guard_or_false/true"));
        }
        break;
      default:
        try {
          sut.env.guard_bool(b);
        } catch (const GuardOnDataDependentSymNode&) {
          expect_ok(oracles::check_unchanged(sut.env, before, "INV-15", "a data-dependent guard"));
        } catch (const UserError&) {
        }
        break;
    }
    check_all(sut, before);
  }
  void show(std::ostream& os) const override {
    os << "Query(kind" << kind << ", " << cond.str() << ")";
  }
};

RC_GTEST_PROP(ShapeEnvState, InvariantsHoldAfterEveryCommand, ()) {
  Model model;
  Sut sut;
  rc::state::check(
      model, sut,
      rc::state::gen::execOneOfWithArgs<CreateUnbacked, CreateBool, CreateBacked, Check,
                                        ConstrainForSize, Rename, Rebind, Query>());
}

}  // namespace
}  // namespace sf
