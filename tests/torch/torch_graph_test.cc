// Our invariants judged on PyTorch's own graph: a capture recorded from torch 2.15
// (captures/nonzero_item.json: nonzero, item, a check, an add) passes, and each invariant fires
// on a deliberately corrupted copy of it; PyTorch's expression trees read into ours function by
// function. No PyTorch needed.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/base/errors.h"
#include "engine/sym/eval.h"
#include "engine/sym/make.h"
#include "fuzz/torch/capture_json.h"
#include "oracles/torch_graph/invariants.h"

namespace sf::torch_ref {
namespace {

using json = nlohmann::json;

json recorded() {
  std::ifstream in("tests/torch/captures/nonzero_item.json");
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

torch_graph::InvariantReport check(const json& capture) {
  return torch_graph::check_capture(capture_of_json(capture));
}

json& node(json& capture, const std::string& name) {
  for (json& n : capture["graphs"][0]["nodes"]) {
    if (n["name"] == name) return n;
  }
  throw std::runtime_error("no node " + name);
}

// The invariants of the violations, in order.
std::string fired(const torch_graph::InvariantReport& r) {
  std::string out;
  for (const torch_graph::Violation& v : r.violations) {
    out += (out.empty() ? "" : ",") + v.invariant;
  }
  return out;
}

TEST(TorchGraphInvariants, TheRecordedCaptureHolds) {
  torch_graph::InvariantReport r = check(recorded());
  EXPECT_EQ(fired(r), "") << r.violations.front().detail;
  EXPECT_GE(r.checked, 15);  // ranges, replacements, renamings, uses, the assert, sizes
  EXPECT_EQ(r.unknown, 0);
  EXPECT_TRUE(r.unreadable.empty());
}

TEST(TorchGraphInvariants, ADroppedBindingLeavesItsSymbolUnbound) {
  json c = recorded();
  node(c, "nonzero").erase("bindings");
  torch_graph::InvariantReport r = check(c);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations[0].invariant, "binding");
  EXPECT_NE(r.violations[0].detail.find("u0 is used by nonzero but no node binds it"),
            std::string::npos)
      << r.violations[0].detail;
}

TEST(TorchGraphInvariants, AWrongKeypathGivesAValueTheRealRunContradicts) {
  json c = recorded();
  node(c, "nonzero")["bindings"]["u4"] = json::parse(R"([["size"], ["index", 1]])");
  torch_graph::InvariantReport r = check(c);
  // σ(u0) = 1 (the column count), so the nonzero's own size disagrees with the real run.
  EXPECT_NE(fired(r).find("sizes"), std::string::npos) << fired(r);
  node(c, "nonzero")["bindings"]["u4"] = json::parse(R"([["size"], ["index", 5]])");
  r = check(c);
  EXPECT_NE(fired(r).find("keypath"), std::string::npos) << fired(r);
}

TEST(TorchGraphInvariants, AReplacementThatDoesNotHoldOnTheRealRun) {
  json c = recorded();
  c["graphs"][0]["shape_env"]["replacements"]["u5"] = json::parse(R"(["Add", "u0", 1])");
  torch_graph::InvariantReport r = check(c);
  EXPECT_EQ(fired(r), "replacement");
  EXPECT_NE(r.violations[0].detail.find("u5 = u0 + 1 does not hold"), std::string::npos)
      << r.violations[0].detail;
}

TEST(TorchGraphInvariants, AnAssertFalseOnACompletedRun) {
  json c = recorded();
  c["graphs"][0]["shape_env"]["asserts"].push_back(json::parse(R"(["StrictLessThan", "u1", 5])"));
  torch_graph::InvariantReport r = check(c);
  EXPECT_EQ(fired(r), "assert");
  EXPECT_NE(r.violations[0].detail.find("u1 = 6"), std::string::npos) << r.violations[0].detail;
}

TEST(TorchGraphInvariants, ARangeThatExcludesTheRealValue) {
  json c = recorded();
  c["graphs"][0]["shape_env"]["ranges"]["u1"] = json::parse(R"(["-inf", 5])");
  EXPECT_EQ(fired(check(c)), "range");
  c = recorded();
  c["graphs"][0]["shape_env"]["ranges"]["u1"] = json::parse(R"([3, 2])");
  EXPECT_EQ(fired(check(c)), "range");  // a range no value is in
}

TEST(TorchGraphInvariants, ARenamingBetweenDifferentValues) {
  json c = recorded();
  c["graphs"][0]["shape_env"]["renamings"]["u5"] = "u0";
  c["graphs"][0]["shape_env"]["replacements"].erase("u5");
  EXPECT_NE(fired(check(c)).find("renaming"), std::string::npos) << fired(check(c));
}

TEST(TorchGraphInvariants, ASymbolUsedBeforeItsBindingNode) {
  json c = recorded();
  json& nodes = c["graphs"][0]["nodes"];
  // Move the add (which uses u0) before the nonzero that binds it.
  json add = node(c, "add");
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i]["name"] == "add") {
      nodes.erase(i);
      break;
    }
  }
  nodes.insert(nodes.begin() + 2, add);
  torch_graph::InvariantReport r = check(c);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_NE(r.violations[0].detail.find("before nonzero binds it"), std::string::npos)
      << r.violations[0].detail;
}

TEST(TorchGraphInvariants, AFactTheRunDoesNotDecideIsUnknownNotAPass) {
  json c = recorded();
  // s21 is the input's size (σ knows it); zf3 is a float symbol nothing binds.
  c["graphs"][0]["shape_env"]["guards"].push_back(
      json::parse(R"(["StrictLessThan", ["Mul", "s21", "zf3"], 5])"));
  torch_graph::InvariantReport r = check(c);
  EXPECT_EQ(r.unknown, 1);
  EXPECT_EQ(fired(r), "");
}

// A fact over a symbol no graph binds or uses is left by a trace PyTorch discarded (Dynamo's
// speculation of a body): counted apart, not judged. A node of the graph using an unbound
// symbol is still a violation (ADroppedBindingLeavesItsSymbolUnbound).
TEST(TorchGraphInvariants, FactsOfDiscardedTracesAreCountedNotJudged) {
  json c = recorded();
  c["graphs"][0]["shape_env"]["asserts"].push_back(
      json::parse(R"(["LessThan", ["Min", "u0", "u77"], 0])"));
  torch_graph::InvariantReport r = check(c);
  EXPECT_EQ(r.orphan_facts, 1);
  EXPECT_EQ(fired(r), "");
  // A symbol bound only inside a body is an orphan for an assert but a violation for a use.
  c = recorded();
  c["graphs"][0]["subgraphs"]["body_graph_0"] =
      json::parse(R"([{"name": "nonzero", "op": "call_function", "target": "aten.nonzero.default",
                       "bindings": {"u9": [["size"], ["index", 0]]}}])");
  node(c, "add")["val"]["sizes"][1] = "u9";
  r = check(c);
  ASSERT_EQ(fired(r), "binding");
  EXPECT_NE(r.violations[0].detail.find("only a node inside body_graph_0 binds it"),
            std::string::npos)
      << r.violations[0].detail;
}

// A second nonzero of the same input with a fresh symbol and no fact relating it to the first.
TEST(TorchGraphInvariants, ASecondCallOnTheSameValuesWithAStrangerSymbol) {
  json c = recorded();
  json second = node(c, "nonzero");
  second["name"] = "nonzero_1";
  second["val"]["sizes"][0] = "u9";
  second["bindings"] = json::parse(R"({"u9": [["size"], ["index", 0]]})");
  json& nodes = c["graphs"][0]["nodes"];
  nodes.insert(nodes.begin() + 3, second);
  c["graphs"][0]["real"]["nonzero_1"] = c["graphs"][0]["real"]["nonzero"];
  torch_graph::InvariantReport r = check(c);
  ASSERT_EQ(fired(r), "memo");
  EXPECT_NE(r.violations[0].detail.find("give u0 and u9"), std::string::npos)
      << r.violations[0].detail;
  // The memo's own answer (the same symbol, no new binding) holds; so does an equality assert.
  c["graphs"][0]["shape_env"]["asserts"].push_back(json::parse(R"(["Equality", "u9", "u0"])"));
  EXPECT_EQ(fired(check(c)), "");
}

// unique_consecutive keeps a memo only without a dim (torch 2.15's fake kernel), and a call with
// other literal arguments is not the same call.
TEST(TorchGraphInvariants, UniqueConsecutiveIsMemoizedOnlyWithoutADim) {
  json c = recorded();
  json& nodes = c["graphs"][0]["nodes"];
  for (int i = 0; i < 2; ++i) {
    json call = node(c, "nonzero");
    call["name"] = "unique_consecutive_" + std::to_string(i);
    call["target"] = "aten.unique_consecutive.default";
    call["call"] = json::array({"%arg1_1", "False", "True"});
    call["val"]["sizes"][0] = i ? "u9" : "u8";
    call["bindings"] =
        json::object({{i ? "u9" : "u8", json::parse(R"([["size"], ["index", 0]])")}});
    c["graphs"][0]["real"][call["name"].get<std::string>()] = c["graphs"][0]["real"]["nonzero"];
    nodes.insert(nodes.end() - 1, call);
  }
  EXPECT_EQ(fired(check(c)), "memo");
  for (int i = 0; i < 2; ++i) nodes[nodes.size() - 3 + i]["call"].push_back("dim=0");
  EXPECT_EQ(fired(check(c)), "");
  nodes[nodes.size() - 3]["call"] = json::array({"%arg1_1", "False", "False"});
  nodes[nodes.size() - 2]["call"] = json::array({"%arg1_1", "False", "True"});
  EXPECT_EQ(fired(check(c)), "");  // other arguments: not the same call
}

// Strides and the storage offset are compared where they mean something: a stride of a dim with
// one element (nonzero's dim 1 here) may be anything, one of a dim with more may not.
TEST(TorchGraphInvariants, AStrideOrOffsetTheRealRunContradicts) {
  json c = recorded();
  node(c, "nonzero")["val"]["strides"][1] = 7;  // dim 1 has one element: any stride
  EXPECT_EQ(fired(check(c)), "");
  node(c, "nonzero")["val"]["strides"][0] = 2;  // dim 0 has three
  torch_graph::InvariantReport r = check(c);
  ASSERT_EQ(fired(r), "strides");
  EXPECT_NE(r.violations[0].detail.find("nonzero stride 0"), std::string::npos)
      << r.violations[0].detail;
  c = recorded();
  node(c, "add")["val"]["offset"] = "u0";
  EXPECT_EQ(fired(check(c)), "strides");
}

// After a mutation the values are another node of the functionalized graph: a nonzero of them
// that binds nothing and reuses the first call's symbol kept the memo across the mutation, even
// where the real counts happen to agree.
TEST(TorchGraphInvariants, ACallOnOtherValuesReusingAMemoizedSymbol) {
  json c = recorded();
  json stale = node(c, "nonzero");
  stale["name"] = "nonzero_1";
  stale["args"] = json::array({"add"});
  stale.erase("bindings");
  json& nodes = c["graphs"][0]["nodes"];
  nodes.insert(nodes.end() - 1, stale);  // after add, before the output
  c["graphs"][0]["real"]["nonzero_1"] = c["graphs"][0]["real"]["nonzero"];
  torch_graph::InvariantReport r = check(c);
  ASSERT_EQ(fired(r), "memo");
  EXPECT_NE(r.violations[0].detail.find("across a mutation"), std::string::npos)
      << r.violations[0].detail;
  // The memo's own answer: the same op of the same values reusing the symbol holds, whatever
  // the call's other arguments (torch keeps one memo per input).
  nodes[nodes.size() - 2]["args"] = json::array({"arg1_1"});
  nodes[nodes.size() - 2]["call"] = json::array({"%arg1_1", "True"});
  EXPECT_EQ(fired(check(c)), "");
  // So does a call on an op that may hand back its input (flatten of a 1-D tensor); an in-place
  // op of the same shape, or its functionalized out-of-place form, is other values.
  json flat = node(c, "arg1_1");
  flat["name"] = "flat";
  flat["op"] = "call_function";
  flat["target"] = "aten.flatten.using_ints";
  flat["args"] = json::array({"arg1_1"});
  nodes.insert(nodes.begin() + 2, flat);
  c["graphs"][0]["real"]["flat"] = c["graphs"][0]["real"]["arg1_1"];
  nodes[nodes.size() - 2]["args"] = json::array({"flat"});
  EXPECT_EQ(fired(check(c)), "");
  nodes[2]["target"] = "aten.add_.Tensor";
  EXPECT_EQ(fired(check(c)), "memo");
  nodes[2]["target"] = "aten.add.Tensor";  // x.add_(1) in a functionalized graph
  EXPECT_EQ(fired(check(c)), "memo");
}

// Z3 on the captured facts: a ShapeEnv that contradicts itself, and an assert σ leaves open that
// no value of its unknown symbol can make true.
TEST(TorchGraphInvariants, ContradictoryFactsAreAConsistencyViolation) {
  json c = recorded();
  c["graphs"][0]["shape_env"]["asserts"].push_back(
      json::parse(R"(["StrictGreaterThan", "u1", 200])"));
  EXPECT_NE(fired(check(c)).find("consistency"), std::string::npos) << fired(check(c));
}

TEST(TorchGraphInvariants, AnAssertFalseForEveryCompletionOfSigma) {
  json c = recorded();
  c["graphs"][0]["real"].erase("_local_scalar_dense");  // σ(u1) unknown, σ(u0) = 3
  json& asserts = c["graphs"][0]["shape_env"]["asserts"];
  asserts.push_back(json::parse(R"(["GreaterThan", "u1", 5])"));
  torch_graph::InvariantReport open = check(c);
  EXPECT_EQ(fired(open), "");  // u1 >= 5 and u1 < 100: both possible
  asserts.push_back(json::parse(R"(["StrictLessThan", "u1", "u0"])"));
  torch_graph::InvariantReport r = check(c);
  ASSERT_EQ(fired(r), "assert");
  EXPECT_NE(r.violations[0].detail.find("cannot all hold for any value of their unknown symbols"),
            std::string::npos)
      << r.violations[0].detail;
}

// A NaN item() has no value for σ: its binding is undecided, not a keypath that fails (found
// on corpus/regressions/binding_nan_item_stays_free.sfz).
TEST(TorchGraphInvariants, ANonFiniteRealValueIsUnknownNotAViolation) {
  json c = recorded();
  c["graphs"][0]["real"]["_local_scalar_dense"]["value"] = "nan";
  torch_graph::InvariantReport r = check(c);
  EXPECT_EQ(fired(r), "");
  EXPECT_GE(r.unknown, 1);
}

// PyTorch's facts hold on runs that pass its asserts: a run that raised (the output node has no
// real value) is judged for bindings only.
TEST(TorchGraphInvariants, ARunThatRaisedIsJudgedForBindingsOnly) {
  json c = recorded();
  c["graphs"][0]["shape_env"]["replacements"]["u5"] = json::parse(R"(["Add", "u0", 1])");
  c["graphs"][0]["real"].erase("output");
  EXPECT_EQ(fired(check(c)), "");
  node(c, "nonzero").erase("bindings");
  EXPECT_EQ(fired(check(c)), "binding");
}

TEST(TorchGraphInvariants, DivisibilityAndSizeLikeMarksHoldOnTheRealRun) {
  json c = recorded();
  json& env = c["graphs"][0]["shape_env"];
  env["divisible"].push_back(json::parse(R"(["PythonMod", "u1", 3])"));  // 6 % 3 == 0
  env["size_like"].push_back("u1");
  EXPECT_EQ(fired(check(c)), "");
  env["divisible"].push_back(json::parse(R"(["PythonMod", "u1", 4])"));  // 6 % 4 == 2
  EXPECT_NE(fired(check(c)).find("divisible"), std::string::npos) << fired(check(c));
  c = recorded();
  c["graphs"][0]["real"]["_local_scalar_dense"]["value"] = -6;
  c["graphs"][0]["shape_env"]["ranges"]["u1"] = json::parse(R"(["-inf", 99])");
  c["graphs"][0]["shape_env"]["size_like"].push_back("u1");
  torch_graph::InvariantReport r = check(c);
  EXPECT_NE(fired(r).find("size_like"), std::string::npos) << fired(r);
}

TEST(TorchGraphInvariants, EveryInvariantHasItsOwnDescription) {
  const std::string generic = torch_graph::describe_invariant("no such invariant");
  for (const char* name :
       {"binding", "keypath", "range", "replacement", "renaming", "divisible", "size_like",
        "consistency", "assert", "guard", "sizes", "values", "strides", "memo", "eager-raised"}) {
    EXPECT_NE(torch_graph::describe_invariant(name), generic) << name;
  }
}

TEST(TorchGraphInvariants, AMalformedCaptureIsAUserError) {
  EXPECT_THROW(capture_of_json(json::parse("{}")), UserError);
  json c = recorded();
  c["graphs"][0]["nodes"][2]["bindings"]["u4"] = json::parse(R"([["frobnicate"]])");
  EXPECT_THROW(capture_of_json(c), UserError);
  c = recorded();
  c["graphs"][0]["shape_env"]["ranges"]["u1"] = "wide";
  EXPECT_THROW(capture_of_json(c), UserError);
}

// Each function PyTorch prints, read into ours and evaluated at u0 = 7, u1 = -2, s0 = 3.
TEST(TorchGraphExpressions, EveryFunctionReadsAsItsMeaning) {
  sym::Assignment at = {{sym::symbol(sym::SymKind::kUnbackedInt, 0), sym::Concrete::of_int(7)},
                        {sym::symbol(sym::SymKind::kUnbackedInt, 1), sym::Concrete::of_int(-2)},
                        {sym::symbol(sym::SymKind::kSize, 0), sym::Concrete::of_int(3)}};
  const std::pair<const char*, const char*> cases[] = {
      {R"(["Add", "u0", "u1", 4])", "9"},
      {R"(["Mul", 2, "u0", "s0"])", "42"},
      {R"(["Pow", "u1", 3])", "-8"},
      {R"(["PowByNatural", "s0", 2])", "9"},
      {R"(["FloorDiv", "u1", "s0"])", "-1"},
      {R"(["PythonMod", "u1", "s0"])", "1"},
      {R"(["Mod", "u0", "s0"])", "1"},
      {R"(["CleanDiv", ["Mul", 2, "s0"], 2])", "3"},
      {R"(["Max", "u0", "u1", "s0"])", "7"},
      {R"(["Min", "u0", "u1", "s0"])", "-2"},
      {R"(["Abs", "u1"])", "2"},
      {R"(["CeilToInt", ["IntTrueDiv", "u0", "s0"]])", "3"},
      {R"(["FloorToInt", ["IntTrueDiv", "u1", "s0"]])", "-1"},
      {R"(["Identity", "u0"])", "7"},
      {R"(["Piecewise", ["ExprCondPair", 1, ["Equality", "u0", 7]], ["ExprCondPair", 0, ["Bool", true]]])",
       "1"},
      {R"(["Equality", "u0", 7])", "True"},
      {R"(["Unequality", "u0", 7])", "False"},
      {R"(["StrictLessThan", "u1", "s0"])", "True"},
      {R"(["LessThan", "u0", 6])", "False"},
      {R"(["StrictGreaterThan", "u0", "s0"])", "True"},
      {R"(["GreaterThan", "u1", -2])", "True"},
      {R"(["And", ["Bool", true], ["StrictLessThan", "u1", 0]])", "True"},
      {R"(["Or", ["Bool", false], ["StrictLessThan", "u0", 0]])", "False"},
      {R"(["Not", ["Equality", "u0", 7]])", "False"},
      {R"(["TruncToInt", ["ToFloat", "u1"]])", "-2"},
  };
  for (const auto& [tree, value] : cases) {
    SCOPED_TRACE(tree);
    ExprRef e = expr_of_tree(json::parse(tree));
    sym::EvalResult r = sym::evaluate(e, at);
    ASSERT_TRUE(r.defined) << r.why;
    EXPECT_EQ(r.value.str(), value) << e->str();
  }
}

TEST(TorchGraphExpressions, WhatWeCannotReadIsUnsupportedNotAGuess) {
  for (const char* tree :
       {R"(["OpaqueUnaryFn_sqrt", "u0"])", R"("x7")", R"(["Rational", 1, 2])",
        R"(["CeilToInt", ["ToFloat", "u0"]])", R"(["Pow", "u0", "u1"])", "18446744073709551615"}) {
    SCOPED_TRACE(tree);
    try {
      expr_of_tree(json::parse(tree));
      ADD_FAILURE() << "read";
    } catch (const UserError& e) {
      EXPECT_EQ(e.kind(), UserErrorKind::kUnsupported) << e.what();
    }
  }
}

// An expression past our limits (x^128 where the limit is 64) is counted unreadable in a capture,
// not a capture that does not parse.
TEST(TorchGraphExpressions, AnExpressionPastOurLimitsIsUnreadableNotACrash) {
  json c = recorded();
  c["graphs"][0]["shape_env"]["asserts"].push_back(
      json::parse(R"(["GreaterThan", ["Pow", "u0", 128], 0])"));
  torch_graph::Capture capture = capture_of_json(c);
  ASSERT_EQ(capture.graphs[0].unreadable.size(), 1u);
  EXPECT_NE(capture.graphs[0].unreadable[0].find("past our limits (Pow"), std::string::npos)
      << capture.graphs[0].unreadable[0];
}

}  // namespace
}  // namespace sf::torch_ref
