// libFuzzer target `simplify`: the bytes make symbols with ranges and an integer or boolean
// expression; simplifying it under those ranges must keep its value. Judged twice, independently
// of the simplifier: by the evaluator on sampled in-range values, and by Z3 (no in-range value
// where both are defined and differ; a countermodel is confirmed by the evaluator).
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/base/errors.h"
#include "engine/sym/eval.h"
#include "engine/sym/make.h"
#include "engine/sym/simplify.h"
#include "fuzz/fuzz_source.h"
#include "fuzz/gen/sym_gen.h"
#include "fuzz/targets/finding.h"
#include "oracles/smt/facts.h"
#include "oracles/smt/solver.h"

namespace {

using sf::sym::ExprRef;

std::string show(const sf::sym::Assignment& a) {
  std::string out;
  for (const auto& [s, v] : a) out += s->str() + "=" + v.str() + " ";
  return out;
}

std::string ranges_str(const sf::fuzz::SymPool& pool) {
  std::string out;
  for (const ExprRef& s : pool.symbols)
    out += s->str() + " in " + pool.ranges.symbol_range(s).str() + " ";
  return out;
}

// e and s agree: equal integers, or equivalent booleans.
ExprRef same_value(const ExprRef& e, const ExprRef& s) {
  if (!e->is_bool()) return sf::sym::eq(e, s);
  return sf::sym::or_(sf::sym::and_(e, s), sf::sym::and_(sf::sym::not_(e), sf::sym::not_(s)));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sf::fuzz::enable_faults_or_exit();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sf;
  fuzz::ByteSource src(data, size);
  fuzz::SymPool pool;
  ExprRef e, s;
  try {
    pool = fuzz::gen_symbol_pool(src);
    bool as_bool = src.chance(1, 2);
    e = as_bool ? fuzz::gen_bool_expr(src, pool, 3) : fuzz::gen_int_expr(src, pool, 4);
    s = sym::simplify(e, pool.ranges);
  } catch (const UserError&) {
    return 0;  // a factory refused a node (too complex, overflow): a typed error, not a bug
  }
  if (e == s) return 0;
  std::string context =
      "expr: " + e->str() + "\nsimplified: " + s->str() + "\nranges: " + ranges_str(pool) + "\n";

  // The evaluator: the rest of the bytes (or zeros) pick in-range values.
  for (int k = 0; k < 8; ++k) {
    sym::Assignment a = fuzz::gen_assignment(src, pool);
    sym::EvalResult before = sym::evaluate(e, a);
    if (!before.defined) continue;
    sym::EvalResult after = sym::evaluate(s, a);
    if (!after.defined || !(after.value == before.value)) {
      fuzz::report_finding(
          "simplify",
          "a value changed\n" + context + "at: " + show(a) + "\nbefore: " + before.value.str() +
              "\nafter: " + (after.defined ? after.value.str() : "undefined: " + after.why));
    }
  }

  // Z3: the ranges entail e == s wherever both are defined. Unknown and error are not verdicts.
  ExprRef goal;
  try {
    goal = same_value(e, s);
  } catch (const UserError&) {
    return 0;
  }
  smt::Options opts;
  opts.timeout_ms = 250;
  smt::Session& session = smt::Session::shared(opts);
  smt::Session::Scope scope(session);
  for (const ExprRef& sym : pool.symbols) {
    smt::assume_all(session, smt::range_facts(sym, pool.ranges.symbol_range(sym)));
  }
  smt::Result r = session.entails(goal);
  if (r.status == smt::Status::kSat) {
    fuzz::report_finding("simplify",
                         "Z3 found values where the two differ\n" + context +
                             "countermodel (confirmed by the evaluator): " + r.model_str());
  }
  return 0;
}
