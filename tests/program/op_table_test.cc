// Walks the whole op table (ops.def): every op gets a program from the generator (focused on that
// op) that runs through trace, eager, lowering and the CPU backend with a passing verdict, and its
// Unbacked column agrees with what the tracer binds for its nodes.
#include <gtest/gtest.h>

#include <functional>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/fake/fake_tensor.h"
#include "engine/program/printer.h"
#include "engine/program/schema.h"
#include "fuzz/gen/program_gen.h"
#include "fuzz/run_generated.h"
#include "fuzz/torch/export_torch.h"
#include "oracles/pipeline.h"

namespace sf::program {
namespace {

bool mentions(const Expr& e, OpKind op) {
  if (e.kind == Expr::Kind::kCall && e.op == op) return true;
  for (const ExprPtr& a : e.args)
    if (mentions(*a, op)) return true;
  for (const auto& [k, a] : e.kwargs)
    if (mentions(*a, op)) return true;
  for (const ExprPtr& a : e.elems)
    if (mentions(*a, op)) return true;
  return false;
}

bool mentions(const std::vector<Stmt>& body, OpKind op) {
  for (const Stmt& s : body) {
    if (s.value && mentions(*s.value, op)) return true;
    for (const ExprPtr& r : s.returns)
      if (mentions(*r, op)) return true;
    if (mentions(s.then_body, op) || mentions(s.else_body, op)) return true;
  }
  return false;
}

// The first program of seeds 1..200 (focused on `op`) that uses op and passes on the CPU backend.
// No seed may FAIL on the way.
struct Passing {
  Program program;
  oracles::PipelineResult result;
};

std::optional<Passing> passing_program(OpKind op, backend::Backend& cpu) {
  fuzz::ProgramPolicy policy;
  policy.focus = op;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    fuzz::SeedSource src(seed);
    fuzz::GeneratedProgram g = fuzz::generate_program_with_result(src, policy);
    const Program& p = g.program;
    if (!mentions(p.body, op)) continue;
    oracles::PipelineOptions opts;
    opts.backend = &cpu;
    oracles::PipelineResult r = fuzz::run_generated(g, opts);
    EXPECT_NE(r.verdict.kind, oracles::Verdict::Kind::kFail)
        << op_name(op) << " seed " << seed << ": " << r.verdict.str() << "\n"
        << print_program(p);
    if (r.verdict.kind == oracles::Verdict::Kind::kPass && r.plan && r.run) {
      return Passing{p, std::move(r)};
    }
  }
  return std::nullopt;
}

TEST(OpTableTest, EveryOpRunsThroughEveryLayerOnAGeneratedProgram) {
  auto cpu = backend::make_cpu_backend();
  for (OpKind op : all_ops()) {
    SCOPED_TRACE(op_name(op));
    std::optional<Passing> passing = passing_program(op, *cpu);
    ASSERT_TRUE(passing) << "no generated program using " << op_name(op) << " passes on the CPU";
    const oracles::PipelineResult* r = &passing->result;
    // tolist is expanded into select + item by the tracer, tensor_split into slices: neither has
    // a node of its own.
    if (op == OpKind::kTolist) continue;
    bool expanded = op == OpKind::kTensorSplit;
    // A memo hit (nonzero of the same tensor twice) binds nothing, so the column says whether
    // some node of the op binds a fresh symbol.
    int nodes = 0;
    bool binds = false;
    for (const graph::Node* n : r->trace->graph.nodes()) {
      OpKind recorded = expanded ? OpKind::kSlice : op;
      if (n->kind != graph::NodeKind::kCall || n->op != recorded || n->derived_binding) continue;
      ++nodes;
      binds = binds || !n->unbacked_bindings.empty();
    }
    if (!expanded) {
      EXPECT_EQ(binds, schema(op).allocates_unbacked) << "ops.def Unbacked column";
    }
    // Ops on literals fold to constants; otherwise the traced graph has the op's node.
    EXPECT_GE(nodes, 1) << op_name(op) << " left no node in the traced graph";
    // export-torch writes the op as its Torch column says (a torch_custom row, its own case).
    const TorchSpelling& t = schema(op).torch;
    std::string py = torch_ref::export_torch(passing->program, "op_table");
    std::string spelled = t.kind == TorchSpelling::Kind::kFunction ? std::string(t.name) + "("
                          : t.kind == TorchSpelling::Kind::kMethod ? "." + std::string(t.name) + "("
                          : t.kind == TorchSpelling::Kind::kOperator
                              ? std::string(" ") + schema(op).syntax.text
                              : std::string();
    EXPECT_NE(py.find(spelled), std::string::npos) << op_name(op) << ": no '" << spelled << "'";
  }
}

// The Features column against what tracing does: a node whose value shares storage with one of
// its tensor arguments belongs to an alias op; scalar and tuple values come from ops tagged so.
TEST(OpTableTest, FeaturesAgreeWithTracedValues) {
  auto cpu = backend::make_cpu_backend();
  int checked = 0;
  for (OpKind op : all_ops()) {
    std::optional<Passing> passing = passing_program(op, *cpu);
    ASSERT_TRUE(passing) << op_name(op);
    const oracles::PipelineResult* r = &passing->result;
    for (const graph::Node* n : r->trace->graph.nodes()) {
      if (n->kind != graph::NodeKind::kCall || n->derived_binding) continue;
      const OpSchema& s = schema(n->op);
      ++checked;
      if (n->value.kind() == Value::Kind::kTensor) {
        for (const graph::NodeArg& a : n->args) {
          if (a.kind != graph::NodeArg::Kind::kNode) continue;
          const Value& in = a.node->value;
          if (in.kind() != Value::Kind::kTensor) continue;
          if (fake::fake_of(in).storage() == fake::fake_of(n->value).storage()) {
            EXPECT_TRUE(s.has(OpFeature::kAlias)) << n->name << " aliases " << a.node->name;
          }
        }
      }
      bool scalar = n->value.kind() == Value::Kind::kInt ||
                    n->value.kind() == Value::Kind::kFloat || n->value.kind() == Value::Kind::kBool;
      bool pointwise_on_scalars = s.element.kind != ElementOp::Kind::kNone;  // SymInt arithmetic
      if (scalar && !pointwise_on_scalars) {
        EXPECT_TRUE(s.has(OpFeature::kScalarOutput)) << n->name << " is a scalar";
      }
      if (n->value.kind() == Value::Kind::kTuple) {
        EXPECT_TRUE(s.has(OpFeature::kMultiOutput)) << n->name << " is a tuple";
      }
    }
  }
  EXPECT_GT(checked, 100);
  for (OpFeature f : all_op_features()) EXPECT_EQ(op_feature_by_name(op_feature_name(f)), f);
}

// Swarm testing: with a feature disabled, no statement is an op carrying it.
TEST(OpTableTest, DisabledFeaturesAreNeverDrawn) {
  for (OpFeature f : all_op_features()) {
    SCOPED_TRACE(op_feature_name(f));
    fuzz::ProgramPolicy policy;
    policy.disabled_features = {f};
    int statements = 0;
    for (uint64_t seed = 1; seed <= 60; ++seed) {
      fuzz::SeedSource src(seed);
      Program p = fuzz::generate_program(src, policy);
      for (const Stmt& st : p.body) {
        if (st.kind != Stmt::Kind::kAssign || st.value->kind != Expr::Kind::kCall) continue;
        ++statements;
        EXPECT_FALSE(schema(st.value->op).has(f)) << op_name(st.value->op) << " seed " << seed;
      }
    }
    EXPECT_GT(statements, 100);
  }
}

// Squeezes of a dim that is 1 while generating: when that size is unbacked the trace keeps the dim
// (size-oblivious, as upstream) and a later rank-dependent op is rightly rejected, so such a
// program is not claimed valid by construction (the campaign filed these as wrong rejections).
TEST(OpTableTest, SqueezedProgramsAreNeverWrongRejections) {
  auto cpu = backend::make_cpu_backend();
  fuzz::ProgramPolicy policy;
  policy.focus = OpKind::kSqueeze;
  int claimed = 0;
  for (uint64_t seed = 1; seed <= 4000; ++seed) {
    fuzz::SeedSource src(seed);
    oracles::PipelineOptions opts;
    opts.backend = cpu.get();
    fuzz::GeneratedRun run = fuzz::generate_and_run(src, opts, policy);
    const Program& p = run.generated.program;
    const oracles::PipelineResult& r = run.result;
    claimed += p.header.valid_by_construction;
    EXPECT_NE(r.verdict.kind, oracles::Verdict::Kind::kWrongRejection)
        << "seed " << seed << ": " << r.verdict.str() << "\n"
        << print_program(p);
  }
  EXPECT_GT(claimed, 50);  // the claim is still made where it holds
}

// The element column: pointwise ops that compute elementwise carry their element op; others don't.
TEST(OpTableTest, ElementColumnMatchesTheFamily) {
  for (OpKind op : all_ops()) {
    const OpSchema& s = schema(op);
    bool has_element = s.element.kind != ElementOp::Kind::kNone;
    bool elementwise = s.family == OpFamily::kPointwise && op != OpKind::kTo &&
                       op != OpKind::kWhere && op != OpKind::kRelu && op != OpKind::kMaskedFill;
    bool scalar_minmax = op == OpKind::kMin || op == OpKind::kMax;
    EXPECT_EQ(has_element, elementwise || scalar_minmax || op == OpKind::kAddInplace)
        << op_name(op);
  }
}

}  // namespace
}  // namespace sf::program
