// Statements and values: assignment, tuple unpacking, if (names persist after a branch), return
// (tuple outputs kept whole, early return), check and check_is_size that pass.
#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

TEST(Interpreter, AssignAndReturnSeveral) {
  Inputs in{{"x", I64({2}, {4, 5})}};
  expect_outputs(run(in, {assign("y", C(OpKind::kAdd, {V("x"), I(1)})),
                          assign("k", C(OpKind::kItem, {C(OpKind::kSelect, {V("y"), I(0), I(1)})})),
                          ret({V("y"), V("k"), C(OpKind::kMul, {V("k"), I(2)})})}),
                 {I64({2}, {5, 6}), Int(6), Int(12)});
}

TEST(Interpreter, ReturnedTupleStaysOneOutput) {
  Inputs in{{"u", I64({3}, {2, 1, 2})}};
  expect_outputs(run(in, {ret({C(OpKind::kUnique, {V("u"), B(true)})})}),
                 {Tup({I64({2}, {1, 2}), I64({2}, {1, 2})})});
}

TEST(Interpreter, TupleUnpacking) {
  Inputs in{{"u", I64({3}, {2, 1, 2})}};
  expect_outputs(run(in, {unpack({"v", "c"}, C(OpKind::kUnique, {V("u"), B(true)})),
                          unpack({"a", "b", "d"}, C(OpKind::kTolist, {V("u")})),
                          ret({V("c"), V("d"), C(OpKind::kAdd, {V("a"), V("b")})})}),
                 {I64({2}, {1, 2}), Int(2), Int(3)});
}

TEST(Interpreter, IfElse) {
  auto body = [] {
    return std::vector<Stmt>{
        if_(C(OpKind::kGt, {V("n"), I(2)}), {assign("r", I(1))},
            {if_(C(OpKind::kEq, {V("n"), I(0)}), {assign("r", I(0))}, {assign("r", I(2))})}),
        ret({V("r")})};
  };
  expect_outputs(run({{"n", Int(5)}}, body()), {Int(1)});
  expect_outputs(run({{"n", Int(0)}}, body()), {Int(0)});
  expect_outputs(run({{"n", Int(1)}}, body()), {Int(2)});
}

TEST(Interpreter, IfOnItemOfBoolTensor) {
  Inputs in{{"t", Bool({1}, {0})}};
  expect_outputs(run(in, {if_(C(OpKind::kItem, {V("t")}), {ret({I(1)})}), ret({I(2)})}), {Int(2)});
}

TEST(Interpreter, EarlyReturnStopsExecution) {
  expect_outputs(run({}, {if_(B(true), {ret({I(1)})}), check(B(false), "never reached")}),
                 {Int(1)});
}

TEST(Interpreter, NoReturnNoOutputs) { expect_outputs(run({}, {assign("a", I(1))}), {}); }

TEST(Interpreter, ReturnNone) { expect_outputs(run({}, {ret({None()})}), {HostValue{}}); }

TEST(Interpreter, ChecksThatPass) {
  Inputs in{{"n", Int(3)}};
  expect_outputs(run(in, {check(C(OpKind::kLe, {V("n"), I(3)}), "n fits"), check_is_size(V("n")),
                          check_is_size(V("n"), I(3)), check_is_size(I(0), I(0)), ret({V("n")})}),
                 {Int(3)});
}

TEST(Interpreter, ScalarInputsOfEachKind) {
  Inputs in{{"i", Int(2)}, {"f", Flt(0.5)}, {"b", Bl(true)}};
  expect_outputs(
      run(in, {ret({C(OpKind::kAdd, {V("i"), V("f")}), C(OpKind::kLogicalNot, {V("b")})})}),
      {Flt(2.5), Bl(false)});
}

TEST(Interpreter, DesignExample) {
  // The example of DESIGN §3.4: boolean index, item, check, slice, sum.
  Inputs in{{"x", F32({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
            {"m", Bool({4}, {1, 0, 1, 1})},
            {"t", I64({1}, {2})}};
  expect_outputs(
      run(in, {assign("a", C(OpKind::kIndex, {V("x"), V("m")})),
               assign("k", C(OpKind::kItem, {V("t")})),
               check(C(OpKind::kLe, {V("k"), C(OpKind::kSize, {V("a"), I(0)})}), "k fits"),
               assign("s", C(OpKind::kSlice, {V("a"), I(0), I(0), V("k")})),
               ret({C(OpKind::kSum, {V("s"), I(1)})})}),
      {F32({2}, {3, 11})});
}

}  // namespace
}  // namespace sf::eager::testing
