// Proof that the oracles bite: each fault switch of the bug zoo makes a small program fail with
// the oracle that should see it (and the same program passes with the fault off), and the
// binding oracle fires on a run whose σ or output sizes were tampered with.
#include <gtest/gtest.h>

#include <optional>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/faults.h"
#include "engine/program/parser.h"
#include "engine/sym/make.h"
#include "oracles/binding_oracle.h"
#include "oracles/invariants/shape_env_invariants.h"
#include "oracles/invariants/simplify_at_sigma.h"
#include "oracles/memo_oracle.h"
#include "oracles/pipeline.h"
#include "oracles/simplify_by_solver.h"
#include "oracles/smt/facts.h"

namespace sf::oracles {
namespace {

PipelineResult judge(const std::string& text, backend::Backend* b) {
  PipelineOptions opts;
  opts.backend = b;
  opts.oracles = OracleSet::all();
  return run_pipeline(program::parse_program(text), opts);
}

struct Case {
  Fault fault;
  const char* program;
  const char* expected_bucket;  // the bucket with the fault on ("fail" prefix at least)
};

class FaultBites : public ::testing::TestWithParam<Case> {};

TEST_P(FaultBites, DetectedWithTheFaultAndPassingWithout) {
  auto cpu = backend::make_cpu_backend();
  const Case& c = GetParam();
  PipelineResult clean = judge(c.program, cpu.get());
  EXPECT_EQ(clean.verdict.kind, Verdict::Kind::kPass) << clean.verdict.str();
  ScopedFault on(c.fault);
  PipelineResult broken = judge(c.program, cpu.get());
  EXPECT_EQ(broken.verdict.kind, Verdict::Kind::kFail) << broken.verdict.str();
  EXPECT_EQ(broken.verdict.bucket().rfind(c.expected_bucket, 0), 0u)
      << broken.verdict.bucket() << "\n"
      << broken.verdict.str();
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, FaultBites,
    ::testing::Values(
        Case{Fault::kDceDropsBindingSite,
             "# sfz 1\ninput x: f32[5] = randn(seed=1)\ninput y: f32[5] = randn(seed=2)\n"
             "input m: bool[5] = [True, False, True, True, False]\n"
             "a = index(x, m)\nb = index(y, m)\nreturn b\n",
             "fail:INV-"},
        Case{Fault::kAssertSelfImpliedDropped,
             "# sfz 1\ninput a: i64[1] = [0]\nv4 = masked_select(a, ne(a, 1))\n"
             "v6 = max(size(v4, 0), 1)\ncheck(v6 <= 1, \"at most one\")\nreturn v6\n",
             "fail:tv"},
        Case{Fault::kRangeAssertsSkipped,
             "# sfz 1\ninput m: bool[5] = [True, False, True, True, False]\n"
             "a = nonzero(m)\nreturn a\n",
             "fail:tv"},
        Case{Fault::kMemoIgnoresEpoch,
             "# sfz 1\ninput m: bool[5] = [True, False, True, True, False]\n"
             "a = nonzero(m)\nreturn a\n",
             "fail"},
        // A dynamic int is its own symbol (no duck sizing): re-fakified without its context in
        // the backend's fresh mode it becomes a new one, which INV-17's input check sees.
        Case{Fault::kFreshModeWithoutSymbolCache,
             "# sfz 1\ninput n: i64 dynamic = 5\ninput x: f32[8] = randn(seed=1)\n"
             "return narrow(x, 0, 1, n)\n",
             "fail:INV-17"},
        Case{Fault::kMemoIgnoresVersion,
             "# sfz 1\ninput x: i64[5] = [1, 0, -1, 0, 2]\nt = x + 0\na = nonzero(t)\n"
             "t2 = add_(t, 1)\nb = nonzero(t)\nreturn a, b\n",
             "fail"},
        Case{Fault::kRefineRangesOffByOne,
             "# sfz 1\ninput t: i64[1] = [2]\nk = item(t)\ncheck(k >= 2, \"ge\")\n"
             "return arange(k)\n",
             "fail"},
        Case{Fault::kNonzeroBoundTooTight,
             "# sfz 1\ninput m: bool[8] dynamic(0) = [True, True, True, False, True, False, "
             "False, True]\na = nonzero(m)\nreturn a\n",
             "fail"},
        Case{Fault::kSimplifyCacheMissesRangeUpdate,
             "# sfz 1\ninput a: f32[1] unbacked(0) = full(1.0)\nv = narrow(a, 0, 0, 1)\n"
             "return 0\n",
             "fail:INV-21"},
        // A guard on what the program checked must be decided by the check (#145681).
        Case{Fault::kGuardIgnoresAxioms,
             "# sfz 1\ninput a: f32[4] = randn(seed=6)\nx = item(sum(a))\n"
             "check(x < 100.0, \"c\")\nif x < 100.0:\n  r = a + 1\nelse:\n  r = a\n"
             "return r\n",
             "fail:wrong-rejection"},
        // -1 // s0 is -1 for every size s0 >= 2, not 0 (#190966).
        Case{Fault::kDivisionIgnoresDividendSign,
             "# sfz 1\ninput b: f32[2] dynamic(0) = full(0.0)\n"
             "v = narrow(b, 0, floordiv(-(1), size(b, 0)), 0)\nreturn 0\n",
             "fail:binding"},
        // A memo hit's extern declares no symbol again (#111823).
        Case{Fault::kExternRedefinesMemoSymbol,
             "# sfz 1\ninput x: i64[4] = [0, 3, 0, 5]\na = nonzero(x)\nb = nonzero(x)\n"
             "return a, b\n",
             "fail:memo"},
        // Only an unbacked symbol is size-like (#108685).
        Case{Fault::kCheckIsSizeMarksBacked,
             "# sfz 1\ninput a: bool[1, 2] dynamic(1) = full(False)\n"
             "check_is_size(size(a, 1), max=8)\nreturn 0\n",
             "fail:INV-9e"}),
    [](const ::testing::TestParamInfo<Case>& info) {
      for (const FaultInfo& f : all_faults()) {
        if (f.fault == info.param.fault) return std::string(f.name);
      }
      return std::string("unknown");
    });

// Every fault also has a reproducer in corpus/zoo (tests/oracles/zoo_corpus_test).
TEST(FaultTable, AtLeastFifteenFaultsEachWithAPullRequest) {
  EXPECT_GE(all_faults().size(), 15u);
  for (const FaultInfo& f : all_faults()) {
    EXPECT_GT(f.pr, 0) << f.name;
    EXPECT_EQ(fault_by_name(f.name), f.fault);
  }
}

const char* kNonzero =
    "# sfz 1\ninput m: bool[5] = [True, False, True, True, False]\na = nonzero(m)\nreturn a\n";

TEST(BindingOracle, FiresOnSigmaOutsideARange) {
  auto cpu = backend::make_cpu_backend();
  PipelineResult r = judge(kNonzero, cpu.get());
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  backend::RunResult run = *r.run;
  ASSERT_FALSE(run.sigma.empty());
  for (auto& [s, v] : run.sigma) {
    if (s->is_unbacked_symbol()) v.i = 99;  // nonzero of 5 elements cannot find 99
  }
  OracleReport rep = check_binding(*r.trace->env, *r.final_graph, run);
  ASSERT_EQ(rep.outcome(), OracleReport::Outcome::kFail) << rep.str();
  EXPECT_NE(rep.violations[0].details.find("range"), std::string::npos) << rep.str();
}

TEST(BindingOracle, FiresOnAWrongOutputSize) {
  auto cpu = backend::make_cpu_backend();
  PipelineResult r = judge(kNonzero, cpu.get());
  ASSERT_TRUE(r.run);
  backend::RunResult run = *r.run;
  run.outputs[0].tensor.sizes[0] += 1;
  OracleReport rep = check_binding(*r.trace->env, *r.final_graph, run);
  ASSERT_EQ(rep.outcome(), OracleReport::Outcome::kFail) << rep.str();
  EXPECT_NE(rep.violations[0].details.find("output 0 size(0)"), std::string::npos) << rep.str();
}

// INV-9e: only unbacked symbols are size-like. constrain_range_for_size is the engine's public
// primitive; check_is_size calls it for unbacked symbols only, and a caller that skipped that
// test (on a backed size of 3) leaves the state this must flag.
TEST(ShapeEnvInvariants, FireOnABackedSymbolMadeSizeLike) {
  ShapeEnv env;
  SymInt s = env.create_symbol(3, "x.size(0)", DimDynamic::kDynamic);
  SymInt u = env.create_unbacked_symint();
  env.constrain_range_for_size(u.expr());
  ASSERT_TRUE(check_state(env).empty()) << violations_str(check_state(env));
  env.constrain_range_for_size(s.expr());
  std::vector<Violation> vs = check_state(env);
  ASSERT_FALSE(vs.empty());
  EXPECT_EQ(vs[0].invariant, "INV-9e") << violations_str(vs);
}

// INV-11 recomputes the bucket from the spec (the newest unbacked symbol), so a store that keyed
// an assert by its oldest one, or keyed an unbacked assert as None, is flagged.
TEST(ShapeEnvInvariants, FireOnAnAssertInTheWrongBucket) {
  ShapeEnv env;
  ExprRef u0 = env.create_unbacked_symint().expr(), u1 = env.create_unbacked_symint().expr();
  ExprRef both = sym::le(sym::add(u0, u1), sym::integer(5));
  std::map<ExprRef, std::vector<RuntimeAssert>, sym::ExprLessNullFirst> deferred;
  deferred[u1].push_back({both, "ok"});
  ASSERT_TRUE(check_assert_buckets(deferred).empty());
  deferred[u0].push_back({both, "keyed by the oldest"});
  deferred[nullptr].push_back({sym::le(u0, sym::integer(3)), "an unbacked assert keyed None"});
  std::vector<Violation> vs = check_assert_buckets(deferred);
  ASSERT_EQ(vs.size(), 2u) << violations_str(vs);
  EXPECT_NE(vs[0].details.find("is in bucket None, expected u0"), std::string::npos)
      << violations_str(vs);
  EXPECT_NE(vs[1].details.find("is in bucket u0, expected u1"), std::string::npos)
      << violations_str(vs);
}

// Simplifier soundness at σ (binding oracle): each cached simplification holds at the run's
// values. Max(1, u0) -> u0 is right under u0 >= 1, and an unsound rewrite shows at a σ the
// facts allow; size-oblivious entries (u0 >= 2 assumed) and undefined sides are not judged.
TEST(SimplifyAtSigma, FiresOnASimplificationFalseAtTheRunsValues) {
  ExprRef u0 = sym::symbol(sym::SymKind::kUnbackedInt, 0);
  ExprRef m = sym::max(std::vector<ExprRef>{sym::integer(1), u0});
  std::vector<ShapeEnv::CachedSimplification> cached = {
      {m, false, u0, 0},
      {sym::eq(u0, sym::integer(1)), true, sym::boolean(false), 0},
      {sym::floordiv(sym::integer(4), u0), false, sym::integer(0), 0},
  };
  sym::Assignment sigma = {{u0, sym::Concrete::of_int(5)}};
  EXPECT_TRUE(check_simplifications_at(cached, sigma).empty());
  sigma[u0] = sym::Concrete::of_int(0);  // Max(1, 0) = 1, not 0; 4 // 0 is undefined
  std::vector<Violation> vs = check_simplifications_at(cached, sigma);
  ASSERT_EQ(vs.size(), 1u) << violations_str(vs);
  EXPECT_NE(vs[0].details.find("Max(1, u0) = 1 and u0 = 0"), std::string::npos)
      << violations_str(vs);
}

// A real program whose ShapeEnv logs simplifications over symbols σ binds (a nonzero count,
// checked and narrowed).
constexpr const char* kNonzeroChecked =
    "# sfz 1\ninput m: bool[6] = [True, False, True, True, False, True]\nk = nonzero(m)\n"
    "check(size(k, 0) >= 2, \"c\")\nreturn narrow(k, 0, 0, 2) + 1\n";

// ... and the binding oracle runs it on the simplifications a real program's ShapeEnv logged,
// some of them over symbols σ binds.
TEST(SimplifyAtSigma, RealRunsLeaveSimplificationsToJudge) {
  auto cpu = backend::make_cpu_backend();
  PipelineResult r = judge(kNonzeroChecked, cpu.get());
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  const std::vector<ShapeEnv::CachedSimplification>& logged = r.trace->env->simplification_log();
  size_t judged = 0;
  for (const auto& c : logged) judged += sym::evaluate(c.expr, r.run->sigma).defined;
  EXPECT_GT(judged, 0u) << logged.size() << " logged";
  EXPECT_TRUE(check_simplifications_at(logged, r.run->sigma).empty());
}

// Beyond σ: Z3 proves sampled logged simplifications from the facts alone, so a rewrite that
// only the run's own values happen to satisfy still fires.
TEST(SimplifyBySolver, FiresOnASimplificationAValueTheFactsAllowContradicts) {
  ExprRef u0 = sym::symbol(sym::SymKind::kUnbackedInt, 0);
  smt::Session session;
  smt::Session::Scope scope(session);
  for (const smt::Fact& f : smt::range_facts(u0, sym::ValueRange::ints(0, 10))) {
    session.assume(f.expr, f.label);
  }
  std::vector<ShapeEnv::CachedSimplification> logged = {
      {sym::le(u0, sym::integer(10)), false, sym::boolean(true), 0},
      {sym::max(std::vector<ExprRef>{sym::integer(0), u0}), false, u0, 0},
  };
  size_t proved = 0;
  std::vector<Violation> vs = check_simplifications_by_solver(logged, session, 2, &proved);
  EXPECT_TRUE(vs.empty()) << violations_str(vs);
  EXPECT_EQ(proved, 2u);
  // True at u0 = 3 (a run's σ could be that), false at 7: the newest is always sampled.
  logged.push_back({sym::le(u0, sym::integer(5)), false, sym::boolean(true), 0});
  vs = check_simplifications_by_solver(logged, session, 1);
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_NE(vs[0].details.find("u0 <= 5 to True"), std::string::npos) << violations_str(vs);
}

// ... and a real program's logged simplifications are proved from its final facts.
TEST(SimplifyBySolver, RealProgramsSimplificationsAreProved) {
  auto cpu = backend::make_cpu_backend();
  PipelineResult r = judge(kNonzeroChecked, cpu.get());
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  smt::Session session;
  smt::Session::Scope scope(session);
  smt::assume_all(session, smt::env_facts(*r.trace->env));
  size_t proved = 0;
  std::vector<Violation> vs =
      check_simplifications_by_solver(r.trace->env->simplification_log(), session, 8, &proved);
  EXPECT_TRUE(vs.empty()) << violations_str(vs);
  EXPECT_GT(proved, 0u) << r.trace->env->simplification_log().size() << " logged";
}

// The plan-level binding check (memo oracle): an extern's bind step must bind what its node's
// symbol at that keypath resolves to. Both corruptions define the symbol once, so the plan's
// definition counts alone pass them.
TEST(MemoOracle, FiresOnAnExternBindingAtTheWrongKeypath) {
  auto cpu = backend::make_cpu_backend();
  PipelineResult r = judge(kNonzero, cpu.get());
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  MemoInputs in{r.trace->env.get(), &r.trace->graph, &*r.final_graph, &*r.plan, &*r.run};
  ASSERT_TRUE(check_memo(in).violations.empty()) << check_memo(in).str();
  lower::Plan broken = *r.plan;
  bool changed = false;
  for (lower::Step& st : broken.steps) {
    if (st.kind != lower::Step::Kind::kBind || st.kernel < 0 || changed) continue;
    // size(1) of nonzero's [count, 1] result: its rank, not its count.
    st.path = {KeyEntry::call_method(TensorMethod::kSize), KeyEntry::sequence(1)};
    changed = true;
  }
  ASSERT_TRUE(changed) << r.plan->print();
  in.plan = &broken;
  OracleReport rep = check_memo(in);
  ASSERT_EQ(rep.outcome(), OracleReport::Outcome::kFail) << rep.str();
  EXPECT_NE(rep.violations[0].details.find("at size(1)"), std::string::npos) << rep.str();
}

TEST(MemoOracle, FiresOnAnExternBindingAnUnrelatedSymbol) {
  auto cpu = backend::make_cpu_backend();
  PipelineResult r = judge(kNonzero, cpu.get());
  ASSERT_TRUE(r.plan && r.final_graph);
  MemoInputs in{r.trace->env.get(), &r.trace->graph, &*r.final_graph, &*r.plan, nullptr};
  lower::Plan broken = *r.plan;
  for (lower::Step& st : broken.steps) {
    if (st.kind == lower::Step::Kind::kBind && st.kernel >= 0) {
      st.symbol = sym::symbol(sym::SymKind::kUnbackedInt, 77);
    }
  }
  in.plan = &broken;
  OracleReport rep = check_memo(in);
  ASSERT_EQ(rep.outcome(), OracleReport::Outcome::kFail) << rep.str();
  EXPECT_NE(rep.str().find("binds u77 at size(0)"), std::string::npos) << rep.str();
}

// A float prediction over a symbol the run never bound (a replaced one) is computed in doubles
// from the value the facts force on that symbol: it passes when right, and a run that produced
// another float fails it (before, Z3's exact reals made every such output unknown:binding).
TEST(BindingOracle, JudgesFloatsOverUnboundSymbolsInDoubles) {
  auto cpu = backend::make_cpu_backend();
  PipelineResult r = judge(
      "# sfz 1\ninput a: f32[] = full(1.0)\nq5 = item(count_nonzero(a))\n"
      "v9 = item(any(a))\nreturn div(q5, 3)\n",
      cpu.get());
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  backend::RunResult run = *r.run;
  ASSERT_EQ(run.outputs[0].kind, program::HostValue::Kind::kFloat);
  run.outputs[0].f = 0.5;
  OracleReport rep = check_binding(*r.trace->env, *r.final_graph, run);
  ASSERT_EQ(rep.outcome(), OracleReport::Outcome::kFail) << rep.str();
  EXPECT_NE(rep.violations[0].details.find("forced values"), std::string::npos) << rep.str();
}

// A campaign finding (seed 3148): with n = 3, Min(n, 4*u0) <= 3 holds whatever u0 is, so the
// engine deferred it as an assert; translation validation must count that as a source (decided
// by Z3 over the unknown u0) rather than call the assert made up.
TEST(TranslationValidation, ConditionsDecidedByTheTraceValuesAreSources) {
  auto cpu = backend::make_cpu_backend();
  PipelineResult r = judge(
      "# sfz 1\ninput b: f32[2, 2, 2] unbacked(0) = randn(seed=1)\ninput n: i64 dynamic = 3\n"
      "v = min(n, numel(b))\ncheck(v <= 3, \"c\")\nreturn v\n",
      cpu.get());
  EXPECT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
}

// A renaming recorded without the replacement that should back it (upstream's declined
// _set_replacement): the rename oracle finds that u1 == u0 no longer follows. The broken engine
// cannot lower the program (INV-19 aborts), so the pipeline stops before lowering.
TEST(RenameOracle, FiresWhenARenamingIsNotBackedByAReplacement) {
  const char* text =
      "# sfz 1\ninput x: f32[6] = arange()\ninput m: bool[6] = [1, 0, 1, 1, 0, 0]\n"
      "a = index(x, m)\ncheck(size(a, 0) <= 5, \"le\")\nreturn a\n";
  PipelineOptions opts;
  std::string error;
  opts.oracles = *OracleSet::parse("rename", &error);
  EXPECT_EQ(run_pipeline(program::parse_program(text), opts).verdict.kind, Verdict::Kind::kPass);
  ScopedFault on(Fault::kRenameReplacementDeclined);
  PipelineResult r = run_pipeline(program::parse_program(text), opts);
  ASSERT_EQ(r.verdict.bucket(), "fail:rename") << r.verdict.str();
  EXPECT_NE(r.verdict.str().find("'renaming u1 -> u0' (as Eq(u0, u1)) is no longer entailed"),
            std::string::npos)
      << r.verdict.str();
}

// Each oracle has a per-program deadline (issue 29): the rename oracle is slow on long chains of
// renamed unbacked sizes; past its deadline it stops and is undecided, never a pass.
TEST(OracleDeadline, AnOraclePastItsDeadlineIsUndecidedNeverAPass) {
  std::string text = "# sfz 1\ninput y: i64[8] = [1, 0, 2, 0, 3, 0, 4, 5]\na0 = y\n";
  for (int i = 1; i <= 60; ++i) {
    text += "a" + std::to_string(i) + " = squeeze(nonzero(a" + std::to_string(i - 1) + "), 1)\n";
  }
  text += "return a60\n";
  PipelineOptions opts;
  std::string error;
  opts.oracles = *OracleSet::parse("rename", &error);
  EXPECT_EQ(run_pipeline(program::parse_program(text), opts).verdict.kind, Verdict::Kind::kPass);
  int64_t all_queries = 0;
  for (const OracleReport& rep : run_pipeline(program::parse_program(text), opts).reports) {
    if (rep.name == "rename") all_queries = rep.smt.queries;
  }
  opts.oracle_deadline_ms = 0;  // past at once: the oracle is fast enough to finish within 1 ms
  PipelineResult r = run_pipeline(program::parse_program(text), opts);
  EXPECT_EQ(r.verdict.bucket(), "unknown:rename") << r.verdict.str();
  EXPECT_NE(r.verdict.str().find("deadline"), std::string::npos) << r.verdict.str();
  // It stopped judging, not just asked every query in vain.
  for (const OracleReport& rep : r.reports) {
    if (rep.name == "rename") {
      EXPECT_LT(rep.smt.queries * 4, all_queries) << rep.str();
    }
  }
}

// INV-21 on a ShapeEnv alone: Max(1, u0) is cached, then u0 >= 3 is learnt. The cache must not
// answer Max(1, u0) any more (simplify gives u0); with the fault the range update leaves the
// entry valid and the checker sees the stale answer.
TEST(SimplifyCacheChecker, FiresOnAnEntryARangeUpdateLeftStale) {
  for (bool broken : {false, true}) {
    std::optional<ScopedFault> on;
    if (broken) on.emplace(Fault::kSimplifyCacheMissesRangeUpdate);
    ShapeEnv env;
    ExprRef u0 = env.create_unbacked_symint().expr();
    env.constrain_range_for_size(u0);
    ExprRef m = sym::max(std::vector<ExprRef>{sym::integer(1), u0});
    EXPECT_EQ(env.simplify(m), m);
    EXPECT_TRUE(check_simplify_cache(env).empty());
    env.constrain_symbol_range(u0, sym::ExtInt(3), sym::ExtInt::pos_inf());
    EXPECT_EQ(env.simplify(m), broken ? m : u0);
    std::vector<Violation> vs = check_simplify_cache(env);
    ASSERT_EQ(vs.size(), broken ? 1u : 0u) << violations_str(vs);
    if (broken) {
      EXPECT_NE(vs[0].details.find("answers Max(1, u0) from its cache"), std::string::npos)
          << vs[0].details;
      EXPECT_NE(vs[0].details.find("gives u0"), std::string::npos) << vs[0].details;
    }
  }
}

// Campaign findings that were oracle false positives, each now a pass:
// - squeeze's guard_or_false(Eq(u0, 1)) decided through the replacement u0 -> s57 from a check
//   and s57's hint is a source (it guards Ne(s57, 1));
// - u2 >= 0 for a DCE'd index's symbol constrains nothing the program computes;
// - Eq(u1, 1) under guard_or_false is not decided by the inequality s57 <= u1 and s57's hint;
// - a NaN bound by item() is no real number for Z3: the symbol stays free.
TEST(OracleRegressions, CampaignFalsePositivesPass) {
  auto cpu = backend::make_cpu_backend();
  for (const char* text : {
           "# sfz 1\ninput a: i64[4] unbacked(0) = randint(-1, 1, seed=580)\n"
           "input n: i64 dynamic = 4\ncheck(n == size(a, 0), \"c\")\nv8 = squeeze(a, 0)\n"
           "return v8\n",
           "# sfz 1\ninput b: i64[4, 7, 6] dynamic(0) unbacked(1) = randint(0, 1, seed=677)\n"
           "v4 = index(b, gt(b, 0))\nv5 = flatten(v4)\nv7 = index(v4, gt(v4, 0))\n"
           "v8 = narrow(b, 0, 0, 0)\ncheck(size(v8, 0) == size(v5, 0), \"c\")\nreturn v8\n",
           "# sfz 1\ninput a: i64[2, 6, 5] = randint(-1, 5, seed=426)\ninput n: i64 dynamic = 5\n"
           "v4 = masked_select(a, ne(a, 1))\nv5 = masked_select(v4, ne(v4, 1))\n"
           "check(n <= size(v5, 0), \"c\")\nv10 = gt(v5, v4)\nreturn v10\n",
           "# sfz 1\ninput b: bool[8] dynamic(0) = randbool(0.6, seed=94)\nv3 = div(b, b)\n"
           "v7 = item(sum(v3))\nreturn v7\n",
       }) {
    PipelineResult r = judge(text, cpu.get());
    EXPECT_EQ(r.verdict.kind, Verdict::Kind::kPass) << text << r.verdict.str();
  }
}

// Asserts over floats are emitted (they were skipped as 'not interpretable'): a float check
// that fails on the inputs makes the compiled program raise, like eager.
TEST(RuntimeAsserts, FloatChecksAreEnforced) {
  auto cpu = backend::make_cpu_backend();
  PipelineResult r = judge(
      "# sfz 1\ninput t: i64[3] = [4, 4, 4]\nk = item(sum(t))\nf = div(k, 3)\n"
      "check(f < 3.5, \"small\")\nreturn f\n",
      cpu.get());
  EXPECT_EQ(r.verdict.bucket(), "rejected:check_failed") << r.verdict.str();  // eager's kind
  ASSERT_TRUE(r.run_error.has_value());
  EXPECT_EQ(r.run_error->kind, UserErrorKind::kRuntimeAssertFailed) << r.run_error->message;
}

TEST(OracleSet, ParsesNamesAndRejectsUnknownOnes) {
  std::string err;
  EXPECT_EQ(OracleSet::parse("binding,tv", &err)->str(), "binding,tv");
  EXPECT_EQ(OracleSet::parse("all", &err)->str(), "structural,differential,binding,rename,memo,tv");
  EXPECT_FALSE(OracleSet::parse("bindings", &err));
  EXPECT_NE(err.find("unknown oracle 'bindings'"), std::string::npos);
  // No oracle would judge nothing and pass everything: refused.
  EXPECT_FALSE(OracleSet::parse("", &err));
  EXPECT_NE(err.find("no oracle named"), std::string::npos) << err;
  EXPECT_FALSE(OracleSet::parse(",", &err));
}

TEST(WrongRejection, AValidByConstructionProgramRejectedAtTraceIsItsOwnBucket) {
  auto cpu = backend::make_cpu_backend();
  // A static if on an unbacked size: a data-dependent guard at trace, while eager runs it.
  std::string body =
      "input m: bool[5] = [True, False, True, True, False]\na = nonzero(m)\n"
      "if size(a, 0) > 2:\n  b = a + 1\nelse:\n  b = a + 2\nreturn b\n";
  PipelineResult plain = judge("# sfz 1\n" + body, cpu.get());
  EXPECT_EQ(plain.verdict.bucket(), "rejected:data_dependent_guard") << plain.verdict.str();
  PipelineResult claimed = judge("# sfz 1\n# valid: by-construction\n" + body, cpu.get());
  EXPECT_EQ(claimed.verdict.bucket(), "wrong-rejection:data_dependent_guard")
      << claimed.verdict.str();
}

// INV-22 on a ShapeEnv alone: a check inside a fact scope. Closed properly, nothing it taught
// survives; with the fault the scope keeps everything, and the checker names the leaked axiom,
// the deferred assert and the narrowed range of the older symbol.
TEST(FactScopeChecker, FiresOnAFactThatOutlivesItsScope) {
  for (bool broken : {false, true}) {
    std::optional<ScopedFault> on;
    if (broken) on.emplace(Fault::kBranchFactsGlobal);
    ShapeEnv env;
    SymInt u0 = env.create_unbacked_symint(), u1 = env.create_unbacked_symint();
    {
      auto scope = env.fact_scope();
      env.check(sym_le(u0, u1), "ordered");
      env.check(sym_ge(u0, 3), "big");
    }
    std::vector<Violation> vs = check_fact_scopes(env);
    if (!broken) {
      EXPECT_TRUE(vs.empty()) << violations_str(vs);
      continue;
    }
    std::string all = violations_str(vs);
    EXPECT_NE(all.find("INV-22"), std::string::npos) << all;
    EXPECT_NE(all.find("axiom u0 <= u1"), std::string::npos) << all;
    EXPECT_NE(all.find("deferred assert u0 <= u1 ('ordered')"), std::string::npos) << all;
    EXPECT_NE(all.find("range [3, int_oo] of u0"), std::string::npos) << all;
  }
}

}  // namespace
}  // namespace sf::oracles
