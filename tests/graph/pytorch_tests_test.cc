// PyTorch's own unbacked-symbol tests (spec §10) that our op set can express, as programs run
// through the tracer and the pipeline: bindings, deferred asserts, final-graph asserts, rejections,
// and agreement of the symbolic sizes with the eager reference.
#include <gtest/gtest.h>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/sym/eval.h"
#include "oracles/pipeline.h"
#include "tests/graph/test_util.h"

namespace sf::graph {
namespace {

using namespace sf::graph::testing;
using oracles::Verdict;

oracles::PipelineResult run(std::string_view text) { return oracles::run_pipeline(sfz(text)); }

std::string fmt(const std::string& tmpl, const std::string& a, const std::string& b = "") {
  std::string out = tmpl;
  size_t p = out.find("$1");
  if (p != std::string::npos) out.replace(p, 2, a);
  p = out.find("$2");
  if (p != std::string::npos) out.replace(p, 2, b);
  return out;
}

// The size of dim `d` of node `name`'s fake value under concrete symbol values.
int64_t eval_size(const Graph& g, const std::string& name, int d, const sym::Assignment& values) {
  const Node* n = find_node(g, name);
  EXPECT_NE(n, nullptr) << name;
  sym::EvalResult r = sym::evaluate(n->value.tensor()->sizes().at(d).expr(), values);
  EXPECT_TRUE(r.defined) << r.why;
  return r.value.i;
}

// T22: the equality of two mark_unbacked sizes is a deferred assert over the input symbols.
TEST(PyTorchTests, T22_DeferredAssertOnUnbackedInputs) {
  const std::string prog =
      "input a: f32[1, 1] unbacked(0) = [1.0]\n"
      "input b: f32[$1, 1] unbacked(0) = $2\n"
      "check(size(a, 0) == size(b, 0), \"same rows\")\n"
      "return a * 10\n";
  Trace t = trace(fmt(prog, "1", "[2.0]"));
  EXPECT_EQ(bindings_of(t.graph, "a"), "{u0: size(0)}");
  EXPECT_EQ(bindings_of(t.graph, "b"), "{u1: size(0)}");
  EXPECT_EQ(t.env->unbacked_inputs().size(), 2u);
  EXPECT_EQ(bucket(*t.env, U(1)), std::vector<std::string>{"Eq(u0, u1)"});
  EXPECT_EQ(replacement_of(*t.env, U(0)), "u1") << "input symbols may replace each other";
  EXPECT_TRUE(t.env->guards().empty());
  // A mismatched pair traces identically; eager raises the check.
  Trace t2 = trace(fmt(prog, "2", "[2.0, 3.0]"));
  EXPECT_EQ(bucket(*t2.env, U(1)), std::vector<std::string>{"Eq(u0, u1)"});
  auto r = run(fmt(prog, "2", "[2.0, 3.0]"));
  ASSERT_TRUE(r.eager_error);
  EXPECT_EQ(r.eager_error->kind, UserErrorKind::kCheckFailed);
  EXPECT_NE(r.eager_error->message.find("same rows"), std::string::npos);
}

// T23 (tensor sizes): after check(x == y) on two unbacked input sizes both branches are decided.
TEST(PyTorchTests, T23_DivisionOfEqualUnbackedInputSizesTraces) {
  Trace t = trace(
      "input a: f32[4] unbacked(0) = arange()\ninput b: f32[4] unbacked(0) = arange()\n"
      "x = size(a, 0)\ny = size(b, 0)\ncheck(x == y, \"eq\")\n"
      "if x // y == 1:\n  r = x * 2\nelse:\n  r = x\n"
      "if 2 * x // y == 2:\n  q = y\nelse:\n  q = x\n"
      "return r, q\n");
  EXPECT_EQ(replacement_of(*t.env, U(0)), "u1");
  EXPECT_TRUE(t.env->guards().empty());
  // x // y needs y != 0: deferred, since u1 is only known to be >= 0.
  EXPECT_EQ(bucket(*t.env, U(1)), (std::vector<std::string>{"Eq(u0, u1)", "Ne(u1, 0)"}));
  EXPECT_EQ(value_type_str(t.graph.output()->value), "(Sym(2*u0), Sym(u1))");
}

TEST(PyTorchTests, T24_ViewAndReshapeWithItemSizes) {
  for (const char* n : {"16", "49"}) {
    SCOPED_TRACE(n);
    std::string side = std::string(n) == "16" ? "4" : "7";
    auto r =
        run(fmt("input x: i64[$1] dynamic(0) = arange()\ninput y: i64[1] = [$2]\n"
                "f = item(y)\nv = view(x, [f, f])\nw = reshape(x, [f, f])\nreturn v, w\n",
                n, side));
    ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
    const ShapeEnv& env = *r.trace->env;
    EXPECT_TRUE(env.guards().empty()) << "no specialization on the input size";
    EXPECT_EQ(bucket(env, U(0)), (std::vector<std::string>{"u0 >= 0", "Eq(s68, u0**2)"}));
    EXPECT_EQ(value_type_str(find_node(r.trace->graph, "view")->value), "i64[u0, u0]");
    EXPECT_EQ(listing(*r.final_graph),
              (std::vector<std::string>{"item", "assert(u0 >= 0)", "assert(Eq(s68, u0**2))", "view",
                                        "reshape", "output"}));
    EXPECT_EQ(r.eager->outputs[0].tensor.sizes,
              (std::vector<int64_t>{std::stoll(side), std::stoll(side)}));
  }
}

TEST(PyTorchTests, T25_ReshapeTransposedUnbackedInputWithTolistSizes) {
  auto r =
      run("input x: i64[3, 2] unbacked(0) unbacked(1) = arange()\ninput y: i64[2] = [2, 3]\n"
          "xt = transpose(x, 0, 1)\na, b = tolist(y)\nr = reshape(xt, [a, b])\nreturn r\n");
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  const ShapeEnv& env = *r.trace->env;
  EXPECT_EQ(bucket(env, U(2)), std::vector<std::string>{"u2 >= 0"});
  EXPECT_EQ(bucket(env, U(3)), (std::vector<std::string>{"u3 >= 0", "Eq(u0*u1, u2*u3)"}));
  // Non-contiguous input: reshape copies into a fresh contiguous tensor.
  EXPECT_EQ(find_node(r.trace->graph, "reshape")->value.tensor()->describe(),
            "i64[u2, u3] stride=[Max(1, u3), 1]");
  std::vector<std::string> l = listing(*r.final_graph);
  EXPECT_EQ(position(l, "assert(Eq(u0*u1, u2*u3))"), position(l, "item_1") + 2);
  EXPECT_EQ(r.eager->outputs[0].tensor.ints, (std::vector<int64_t>{0, 2, 4, 1, 3, 5}));
}

// T27: slicing with unbacked start/stop (negative too) and steps: the clamp is undecided, so
// each slice binds a fresh size (and, from an unbacked start, a fresh storage offset) with range
// asserts; the sizes the run computed for them agree with eager for every pair.
TEST(PyTorchTests, T27_SliceWithUnbackedBounds) {
  const int64_t pairs[][2] = {{2, -3}, {-4, 9}, {0, 10}, {7, 3}, {-20, 20}, {5, -1}};
  for (const auto& [s, e] : pairs) {
    SCOPED_TRACE(std::to_string(s) + ":" + std::to_string(e));
    auto r = run_on_cpu(
        fmt("input x: f32[10] = arange()\ninput se: i64[2] = [$1]\ns, e = tolist(se)\n"
            "a = slice(x, 0, s, e)\nb = slice(x, 0, s, None, 2)\nc = slice(x, 0, None, e, 3)\n"
            "return a, b, c\n",
            std::to_string(s) + ", " + std::to_string(e)));
    ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
    EXPECT_EQ(bindings_of(r.trace->graph, "slice"), "{u2: size(0), u3: storage_offset()}");
    EXPECT_EQ(bindings_of(r.trace->graph, "slice_1"), "{u4: size(0), u5: storage_offset()}");
    EXPECT_EQ(bindings_of(r.trace->graph, "slice_2"), "{u6: size(0)}") << "start None is 0";
    EXPECT_EQ(range_of(*r.trace->env, U(2)), "[0, 10]");
    ASSERT_TRUE(r.run.has_value());
    const char* names[] = {"slice", "slice_1", "slice_2"};
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(eval_size(r.trace->graph, names[i], 0, r.run->sigma),
                r.eager->outputs[i].tensor.sizes[0])
          << names[i];
    }
  }
}

TEST(PyTorchTests, T28_NonzeroSliceAndSelect) {
  const std::string prog =
      "input x: i64[5] = $1\nnz = nonzero(x)\n"
      "a = slice(nz, 0, None, -1)\nb = select(nz, 0, -1) + select(nz, 0, 0)\nreturn a, b\n";
  auto r = run(fmt(prog, "[1, 0, 3, 2, 0]"));
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  EXPECT_EQ(bucket(*r.trace->env, U(0)), std::vector<std::string>{"(u0 >= 0) & (u0 >= 1)"});
  EXPECT_EQ(range_of(*r.trace->env, U(0)), "[1, 5]") << "select(-1) needs a row";
  EXPECT_EQ(r.eager->outputs[0].tensor.ints, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(r.eager->outputs[1].tensor.ints, (std::vector<int64_t>{3}));
  // All zeros: the trace is the same, eager raises on select(-1) of an empty result.
  auto z = run(fmt(prog, "[0, 0, 0, 0, 0]"));
  EXPECT_EQ(z.verdict.kind, Verdict::Kind::kRejected);
  EXPECT_EQ(z.verdict.error_kind, UserErrorKind::kIndex);
  EXPECT_EQ(z.verdict.stage, "eager");
  // [:-1] alone is fine on an empty nonzero.
  auto s = run("input x: i64[4] = full(0)\nnz = nonzero(x)\nreturn slice(nz, 0, None, -1)\n");
  ASSERT_EQ(s.verdict.kind, Verdict::Kind::kPass) << s.verdict.str();
  // -1 against a size that may be 0 is undecided: a fresh size bound at the slice (today's
  // upstream would give Max(u0 - 1, 0); see docs/decisions.md).
  EXPECT_EQ(value_type_str(find_node(s.trace->graph, "slice")->value), "i64[u1, 1]");
  EXPECT_EQ(bindings_of(s.trace->graph, "slice"), "{u1: size(0)}");
  EXPECT_EQ(range_of(*s.trace->env, U(1)), "[0, 4]");
}

TEST(PyTorchTests, T30_ViewOfNonContiguousTensorIsRejected) {
  auto r =
      run("input x: i64[3, 2] unbacked(0) unbacked(1) = arange()\nxt = transpose(x, 0, 1)\n"
          "return view(xt, [size(x, 0), size(x, 1)])\n");
  EXPECT_EQ(r.verdict.kind, Verdict::Kind::kRejected);
  EXPECT_EQ(r.verdict.error_kind, UserErrorKind::kDataDependentGuard);
  EXPECT_NE(r.verdict.message.find("not (provably) contiguous"), std::string::npos);
  // Eager views through the base's strides too (ATen's computeStride): a transposed [2, 3] is
  // not viewable as [3, 2], so eager raises the shape error PyTorch's eager raises.
  ASSERT_TRUE(r.eager_error.has_value());
  EXPECT_EQ(r.eager_error->kind, UserErrorKind::kShape);
  EXPECT_NE(r.eager_error->message.find("is not compatible with input tensor's size"),
            std::string::npos)
      << r.eager_error->message;
  auto s = run("input x: i64[3, 2] = arange()\nreturn view(transpose(x, 0, 1), [3, 2])\n");
  EXPECT_EQ(s.verdict.error_kind, UserErrorKind::kShape) << s.verdict.str();
  EXPECT_NE(s.verdict.message.find("use reshape instead"), std::string::npos);
  auto ok =
      run("input x: i64[3, 2] unbacked(0) unbacked(1) = arange()\n"
          "return reshape(transpose(x, 0, 1), [size(x, 0), size(x, 1)])\n");
  EXPECT_EQ(ok.verdict.kind, Verdict::Kind::kPass) << ok.verdict.str();
}

TEST(PyTorchTests, T32_SelectWithUnbackedIndex) {
  for (const char* idx : {"0", "1", "-1"}) {
    SCOPED_TRACE(idx);
    auto r =
        run(fmt("input x: f32[3, 4, 5] = arange()\ninput y: i64[1] = [$1]\nu = item(y)\n"
                "return select(x, 0, u), select(x, 1, u), select(x, 2, u)\n",
                idx));
    ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
    EXPECT_EQ(binding_sites(r.trace->graph), std::vector<std::string>{"item {u0: ()}"});
    EXPECT_EQ(range_of(*r.trace->env, U(0)), "[-3, 2]") << "only dim 0 (size 3) constrains u0";
    EXPECT_EQ(bucket(*r.trace->env, U(0)), std::vector<std::string>{"(u0 >= -3) & (u0 <= 2)"});
    EXPECT_EQ(r.eager->outputs[2].tensor.sizes, (std::vector<int64_t>{3, 4}));
  }
  auto bad =
      run("input x: f32[3, 4] = arange()\ninput y: i64[1] = [3]\nu = item(y)\n"
          "return select(x, 0, u)\n");
  EXPECT_EQ(bad.verdict.error_kind, UserErrorKind::kIndex) << bad.verdict.str();
  EXPECT_EQ(bad.verdict.stage, "eager");
}

TEST(PyTorchTests, T33_T46_TolistSplitWithNarrow) {
  auto r =
      run("input x: f32[32] = arange()\ninput y: i64[3] = [7, 16, 9]\n"
          "l0, l1, l2 = tolist(y)\ncheck_is_size(l0)\ncheck_is_size(l1)\ncheck_is_size(l2)\n"
          "check(l0 + l1 + l2 == 32, \"sizes sum\")\n"
          "s0 = narrow(x, 0, 0, l0)\ns1 = narrow(x, 0, l0, l1)\ns2 = narrow(x, 0, l0 + l1, l2)\n"
          "return sum(s0), l0 + l1 + l2\n");
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  const ShapeEnv& env = *r.trace->env;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(range_of(env, U(i)), "[0, 32]");
  EXPECT_EQ(bucket(env, U(2)), (std::vector<std::string>{"u2 >= 0", "Eq(u0 + u1 + u2, 32)"}));
  std::vector<std::string> l = listing(*r.final_graph);
  EXPECT_EQ(position(l, "assert(u0 + u1 <= 32)"), position(l, "item_1") + 3);
  EXPECT_EQ(position(l, "assert(Eq(u0 + u1 + u2, 32))"), position(l, "item_2") + 3);
  EXPECT_EQ(find_node(*r.final_graph, "narrow_1"), nullptr) << "unused narrows are DCE'd";
  EXPECT_EQ(r.eager->outputs[0].tensor.floats, std::vector<float>{21.0f});
  EXPECT_EQ(r.eager->outputs[1].i, 32);
  auto bad =
      run("input x: f32[9] = arange()\ninput y: i64[3] = [2, 3, 5]\na, b, c = tolist(y)\n"
          "check(a + b + c == size(x, 0), \"sizes sum\")\nreturn narrow(x, 0, a + b, c)\n");
  EXPECT_EQ(bad.verdict.error_kind, UserErrorKind::kCheckFailed) << bad.verdict.str();
}

TEST(PyTorchTests, T36_NonzeroRepropagatesAndRebinds) {
  auto r = run("input x: i64[5] = [1, 0, 3, 2, 0]\nreturn nonzero(x)\n");
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  EXPECT_EQ(bindings_of(*r.final_graph, "nonzero"), "{u1: size(0)}");
  EXPECT_EQ(r.trace->env->unbacked_renamings().at(U(1)), U(0));
  // Re-propagated in a fresh fake mode, its input re-fakified through its symbolic context.
  EXPECT_EQ(r.trace->refakified, std::vector<std::string>{"x"});
  EXPECT_EQ(r.eager->outputs[0].tensor.sizes, (std::vector<int64_t>{3, 1}));
}

TEST(PyTorchTests, T48_ViewOfSliceOfNonzeroProduct) {
  auto r =
      run("input x: i64[1, 1, 1, 1] = [1]\nnz = nonzero(x)\nsq = nz * nz\n"
          "s = slice(sq, 1, -2)\nreturn squeeze(unsqueeze(s, 0), 0)\n");
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  EXPECT_EQ(value_type_str(find_node(r.trace->graph, "slice")->value), "i64[u0, 2]");
  EXPECT_EQ(value_type_str(find_node(r.trace->graph, "squeeze")->value), "i64[u0, 2]");
  EXPECT_EQ(range_of(*r.trace->env, U(0)), "[0, 1]");
  EXPECT_FALSE(r.trace->env->is_size_like(U(0))) << "a [0, 1] range is never size-like (INV-9b)";
  EXPECT_EQ(r.eager->outputs[0].tensor.sizes, (std::vector<int64_t>{1, 2}));
}

TEST(PyTorchTests, T50_NonzeroInInferenceMode) {
  auto r = run(
      "# mode: inference\ninput x: f32[128] = arange()\ninput m: i64[128] = randint(0, 2, seed=5)\n"
      "a = index(x, m > 0)\nb = nonzero(m)\nc = nonzero(m)\nreturn a, b, c\n");
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  EXPECT_EQ(binding_sites(r.trace->graph),
            (std::vector<std::string>{"index {u0: size(0)}", "nonzero {u1: size(0)}",
                                      "nonzero_1 {u2: size(0)}"}));
  EXPECT_EQ(r.eager->outputs[1].tensor.sizes, r.eager->outputs[2].tensor.sizes);
  EXPECT_EQ(r.eager->outputs[0].tensor.sizes[0], r.eager->outputs[1].tensor.sizes[0]);
}

TEST(PyTorchTests, T60_TolistOfThreeInts) {
  auto r = run("input x: i64[3] = [1, 2, 3]\nreturn tolist(x)\n");
  ASSERT_EQ(r.verdict.kind, Verdict::Kind::kPass) << r.verdict.str();
  EXPECT_EQ(value_type_str(r.trace->graph.output()->value), "((Sym(u0), Sym(u1), Sym(u2)))");
  ASSERT_EQ(r.eager->outputs.size(), 1u);
  EXPECT_EQ(r.eager->outputs[0].str(), "(1, 2, 3)");
  EXPECT_EQ(count_kind(*r.final_graph, NodeKind::kAssertScalar), 0);
}

// ShapeEnvSettings the fake mode reads (torch._dynamo.config.capture_scalar_outputs and
// capture_dynamic_output_shape_ops): off, item and nonzero are unsupported rather than traced.
TEST(PyTorchTests, ScalarAndDynamicOutputSettings) {
  TraceOptions no_scalars;
  no_scalars.settings.allow_scalar_outputs = false;
  try {
    trace("input t: i64[1] = [3]\nreturn item(t)\n", no_scalars);
    ADD_FAILURE() << "item traced with allow_scalar_outputs = false";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("DataDependentOutputException"), std::string::npos);
  }
  TraceOptions no_dynamic;
  no_dynamic.settings.allow_dynamic_output_shape_ops = false;
  try {
    trace("input m: bool[3] = [True, False, True]\nreturn nonzero(m)\n", no_dynamic);
    ADD_FAILURE() << "nonzero traced with allow_dynamic_output_shape_ops = false";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("DynamicOutputShapeException"), std::string::npos);
  }
  EXPECT_NO_THROW(trace("input t: i64[1] = [3]\nreturn item(t)\n"));
}

}  // namespace
}  // namespace sf::graph
