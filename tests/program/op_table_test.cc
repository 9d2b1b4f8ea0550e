// Walks the whole op table (ops.def): every op gets a program from the generator (focused on that
// op) that runs through trace, eager, lowering and the CPU backend with a passing verdict, and its
// Unbacked column agrees with what the tracer binds for its nodes.
#include <gtest/gtest.h>

#include <functional>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/program/printer.h"
#include "engine/program/schema.h"
#include "fuzz/gen/program_gen.h"
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
std::optional<oracles::PipelineResult> passing_program(OpKind op, backend::Backend& cpu) {
  fuzz::ProgramPolicy policy;
  policy.focus = op;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    fuzz::SeedSource src(seed);
    Program p = fuzz::generate_program(src, policy);
    if (!mentions(p.body, op)) continue;
    oracles::PipelineOptions opts;
    opts.backend = &cpu;
    oracles::PipelineResult r = oracles::run_pipeline(p, opts);
    EXPECT_NE(r.verdict.kind, oracles::Verdict::Kind::kFail)
        << op_name(op) << " seed " << seed << ": " << r.verdict.str() << "\n"
        << print_program(p);
    if (r.verdict.kind == oracles::Verdict::Kind::kPass && r.plan && r.run) return r;
  }
  return std::nullopt;
}

TEST(OpTableTest, EveryOpRunsThroughEveryLayerOnAGeneratedProgram) {
  auto cpu = backend::make_cpu_backend();
  for (OpKind op : all_ops()) {
    SCOPED_TRACE(op_name(op));
    std::optional<oracles::PipelineResult> r = passing_program(op, *cpu);
    ASSERT_TRUE(r) << "no generated program using " << op_name(op) << " passes on the CPU";
    // tolist is expanded into select + item by the tracer: it has no node of its own.
    if (op == OpKind::kTolist) continue;
    // A memo hit (nonzero of the same tensor twice) binds nothing, so the column says whether
    // some node of the op binds a fresh symbol.
    int nodes = 0;
    bool binds = false;
    for (const graph::Node* n : r->trace->graph.nodes()) {
      if (n->kind != graph::NodeKind::kCall || n->op != op || n->derived_binding) continue;
      ++nodes;
      binds = binds || !n->unbacked_bindings.empty();
    }
    EXPECT_EQ(binds, schema(op).allocates_unbacked) << "ops.def Unbacked column";
    // Ops on literals fold to constants; otherwise the traced graph has the op's node.
    EXPECT_GE(nodes, 1) << op_name(op) << " left no node in the traced graph";
  }
}

// The element column: pointwise ops that compute elementwise carry their element op; others don't.
TEST(OpTableTest, ElementColumnMatchesTheFamily) {
  for (OpKind op : all_ops()) {
    const OpSchema& s = schema(op);
    bool has_element = s.element.kind != ElementOp::Kind::kNone;
    bool elementwise = s.family == OpFamily::kPointwise && op != OpKind::kTo &&
                       op != OpKind::kWhere && op != OpKind::kRelu;
    bool scalar_minmax = op == OpKind::kMin || op == OpKind::kMax;
    EXPECT_EQ(has_element, elementwise || scalar_minmax || op == OpKind::kAddInplace)
        << op_name(op);
  }
}

}  // namespace
}  // namespace sf::program
