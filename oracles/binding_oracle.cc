// σ is taken from the run as it was bound (RunResult::sigma); the facts are read from the env's
// state; predicted shapes are evaluated with engine/sym's evaluator under σ, or proved by Z3 from
// facts ∧ σ when they mention a symbol the run never bound (e.g. a replaced one); a float
// prediction is computed in doubles from the values facts ∧ σ force on such symbols.
#include "oracles/binding_oracle.h"

#include <chrono>
#include <cmath>

#include "engine/fake/fake_tensor.h"
#include "engine/sym/make.h"
#include "engine/sym/walk.h"
#include "oracles/invariants/simplify_at_sigma.h"
#include "oracles/simplify_by_solver.h"
#include "oracles/smt/facts.h"

namespace sf::oracles {

using sym::ExprRef;

namespace {

ExprRef constant_of(const sym::Concrete& c) {
  switch (c.type) {
    case sym::ExprType::kInt:
      return sym::integer(c.i);
    case sym::ExprType::kFloat:
      return sym::real(c.f);
    case sym::ExprType::kBool:
      return sym::boolean(c.b);
  }
  return sym::integer(0);
}

class BindingCheck {
 public:
  BindingCheck(const ShapeEnv& env, const backend::RunResult& run, const smt::Options& opts,
               OracleReport& report)
      : env_(env),
        run_(run),
        session_(smt::Session::shared(opts)),
        before_(session_.stats()),
        scope_(session_),
        report_(report) {}

  // Solver work done by this check (the session is shared across programs).
  smt::Stats stats() const { return session_.stats().since(before_); }

  void run(const graph::Graph& g) {
    smt::assume_all(session_, smt::env_facts(env_));
    // Before σ: a few simplifications proved for every value the facts allow.
    for (Violation& v : check_simplifications_by_solver(env_.simplification_log(), session_,
                                                        kSimplificationsProved)) {
      report_.violations.push_back({"binding", std::move(v.details)});
    }
    for (const auto& [s, v] : run_.sigma) {
      // NaN and infinities are no reals: such a symbol stays free (its facts are not judged).
      if (v.type == sym::ExprType::kFloat && !std::isfinite(v.f)) continue;
      ExprRef value = constant_of(v);
      if (s->is_float() && v.type == sym::ExprType::kInt) value = sym::real(double(v.i));
      session_.assume(sym::eq(s, value), "σ " + s->str() + " = " + v.str());
    }
    smt::Result r = session_.check();
    if (r.status == smt::Status::kUnsat) {
      std::string core;
      for (const std::string& c : r.core) core += "\n    " + c;
      report_.violations.push_back(
          {"binding",
           "the values the run bound (σ) contradict the final ShapeEnv; conflicting "
           "facts:" +
               core});
      return;  // shapes under contradictory facts prove anything
    }
    if (r.status != smt::Status::kSat) {
      report_.undecided("facts ∧ σ", r);
      return;
    }
    // σ satisfies the facts: what the simplifier derived from them must hold at σ too.
    for (Violation& v : check_simplifications_at(env_.simplification_log(), run_.sigma)) {
      report_.violations.push_back({"binding", std::move(v.details)});
    }
    for (const graph::Node* n : g.nodes()) {
      if (n->kind != graph::NodeKind::kOutput) continue;
      const std::vector<Value>& predicted = n->value.elems();
      if (predicted.size() != run_.outputs.size()) {
        report_.violations.push_back(
            {"binding", "the graph returns " + std::to_string(predicted.size()) +
                            " values but the run returned " + std::to_string(run_.outputs.size())});
        return;
      }
      for (size_t i = 0; i < predicted.size(); ++i) {
        compare(predicted[i], run_.outputs[i], "output " + std::to_string(i));
      }
    }
  }

 private:
  // `e` (predicted) must equal `real` under σ.
  void expect_equal(const ExprRef& e, const sym::Concrete& real, const std::string& where) {
    sym::EvalResult ev = sym::evaluate(e, run_.sigma);
    if (ev.defined) {
      judge_value(e, ev.value, real, where, sigma_of(e));
      return;
    }
    // A symbol the run did not bind (e.g. a replaced one). Z3's reals are exact, so a float
    // prediction cannot be judged there (2/3 is not the double 0.666…): the facts and σ must
    // force a value on each such symbol, and the evaluator computes the prediction from them.
    if (sym::involves_floats(e)) {
      sym::Assignment forced = run_.sigma;
      bool all_forced = true;
      smt::Result model = session_.check();  // the facts ∧ σ query of run(): cached
      for (const ExprRef& s : sym::free_symbols(e)) {
        if (forced.count(s)) continue;
        if (model.status != smt::Status::kSat || !model.model.count(s)) {
          all_forced = false;
          break;
        }
        // (A float symbol is forced too when the facts pin it to the model's value, e.g. it is
        // renamed to a symbol σ binds: the value is then exact, a double, as the run's.)
        const sym::Concrete& v = model.model.at(s);
        if (session_.entails(sym::eq(s, constant_of(v))).status != smt::Status::kUnsat) {
          all_forced = false;
          break;
        }
        forced.emplace(s, v);
      }
      // Otherwise Z3 judges it below, over reals: it may still prove the value (or find no
      // model the evaluator confirms, which is inconclusive, never a pass).
      if (all_forced) {
        sym::EvalResult fev = sym::evaluate(e, forced);
        if (!fev.defined) {
          report_.inconclusive.push_back(where + ": " + e->str() +
                                         " is undefined under σ and the forced values (" + fev.why +
                                         ")");
          return;
        }
        judge_value(e, fev.value, real, where, sigma_of(e) + " with forced values");
        return;
      }
    }
    ExprRef value = constant_of(real);
    smt::Result r = session_.entails(sym::eq(e, value));
    if (r.status == smt::Status::kSat) {
      report_.violations.push_back(
          {"binding", where + ": predicted " + e->str() + " is not forced to the real " +
                          real.str() + " by the facts and σ (possible: " + r.model_str() + ")"});
    } else if (r.status != smt::Status::kUnsat) {
      report_.undecided(where, r);
    }
  }

  void judge_value(const ExprRef& e, const sym::Concrete& predicted, const sym::Concrete& real,
                   const std::string& where, const std::string& values) {
    bool same =
        predicted.type == real.type ? predicted == real : predicted.as_double() == real.as_double();
    if (!same) {
      report_.violations.push_back(
          {"binding", where + ": predicted " + e->str() + " = " + predicted.str() +
                          " under σ, but the run produced " + real.str() + " (" + values + ")"});
    }
  }

  std::string sigma_of(const ExprRef& e) const {
    std::string out;
    for (const ExprRef& s : sym::free_symbols(e)) {
      auto it = run_.sigma.find(s);
      out += (out.empty() ? "" : ", ") + s->str() + "=" +
             (it == run_.sigma.end() ? std::string("unbound") : it->second.str());
    }
    return out.empty() ? "no symbols" : out;
  }

  void compare(const Value& predicted, const program::HostValue& real, const std::string& where) {
    using K = program::HostValue::Kind;
    switch (predicted.kind()) {
      case Value::Kind::kTensor: {
        if (real.kind != K::kTensor) break;
        const TensorLike& t = *predicted.tensor();
        if (t.sizes().size() != real.tensor.sizes.size()) {
          report_.violations.push_back({"binding", where + ": predicted rank " +
                                                       std::to_string(t.sizes().size()) +
                                                       " but the run produced rank " +
                                                       std::to_string(real.tensor.sizes.size())});
          return;
        }
        for (size_t d = 0; d < t.sizes().size(); ++d) {
          expect_equal(t.sizes()[d].expr(), sym::Concrete::of_int(real.tensor.sizes[d]),
                       where + " size(" + std::to_string(d) + ")");
        }
        return;
      }
      case Value::Kind::kInt:
        if (real.kind == K::kInt)
          expect_equal(predicted.expr(), sym::Concrete::of_int(real.i), where);
        return;
      case Value::Kind::kFloat:
        if (real.kind == K::kFloat) {
          expect_equal(predicted.expr(), sym::Concrete::of_float(real.f), where);
        }
        return;
      case Value::Kind::kBool:
        if (real.kind == K::kBool)
          expect_equal(predicted.expr(), sym::Concrete::of_bool(real.b), where);
        return;
      case Value::Kind::kTuple:
        if (real.kind != K::kTuple || real.elems.size() != predicted.elems().size()) break;
        for (size_t i = 0; i < real.elems.size(); ++i) {
          compare(predicted.elems()[i], real.elems[i], where + "[" + std::to_string(i) + "]");
        }
        return;
      case Value::Kind::kNone:
        if (real.kind == K::kNone) return;
        break;
    }
    report_.violations.push_back({"binding", where + ": predicted " + predicted.str() +
                                                 " but the run produced " + real.str()});
  }

  const ShapeEnv& env_;
  const backend::RunResult& run_;
  smt::Session& session_;
  smt::Stats before_;
  smt::Session::Scope scope_;
  OracleReport& report_;
};

}  // namespace

OracleReport check_binding(const ShapeEnv& env, const graph::Graph& final_graph,
                           const backend::RunResult& run, const smt::Options& opts) {
  auto start = std::chrono::steady_clock::now();
  OracleReport report;
  report.name = "binding";
  report.ran = true;
  BindingCheck check(env, run, opts, report);
  check.run(final_graph);
  report.smt = check.stats();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace sf::oracles
