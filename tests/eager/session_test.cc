// eager::Session, the statement-at-a-time interpreter the generator validates candidates with:
// it agrees with run_eager, and a statement that raises leaves nothing behind.
#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

Stmt add_(const std::string& target, ExprPtr self, ExprPtr other) {
  return assign(target, C(OpKind::kAddInplace, {std::move(self), std::move(other)}));
}

TEST(Session, StatementByStatementIsRunEager) {
  Inputs in{{"x", I64({3}, {4, 0, 5})}};
  std::vector<Stmt> body = {assign("y", C(OpKind::kAdd, {V("x"), I(1)})),
                            assign("z", C(OpKind::kNonzero, {V("x")})), add_("w", V("y"), I(2)),
                            ret({V("y"), V("z"), V("w")})};
  Session s(program_of(in, {}), in);
  for (const Stmt& st : body) s.run(st);
  expect_outputs(s.result().outputs, run(in, body));
  // add_ wrote through every alias of y, as in the whole-program run.
  EXPECT_TRUE(same(s.value("y"), I64({3}, {7, 3, 8})));
}

TEST(Session, ARaisingStatementChangesNothing) {
  Inputs in{{"a", I64({2}, {1, 2})}, {"b", I64({3}, {1, 2, 3})}};
  Session s(program_of(in, {}), in);
  s.run(assign("c", C(OpKind::kAdd, {V("a"), I(1)})));
  // A failed assignment leaves the old binding; a failed add_ leaves its target's values.
  EXPECT_THROW(s.run(assign("c", C(OpKind::kAdd, {V("a"), V("b")}))), UserError);
  EXPECT_THROW(s.run(add_("d", V("c"), V("b"))), UserError);
  EXPECT_TRUE(same(s.value("c"), I64({2}, {2, 3})));
  // An if whose second statement raises drops the first one's binding.
  EXPECT_THROW(
      s.run(if_(B(true), {assign("e", I(1)), assign("f", C(OpKind::kAdd, {V("a"), V("b")}))})),
      UserError);
  EXPECT_THROW(s.value("e"), UserError);
  s.run(ret({V("c")}));
  expect_outputs(s.result().outputs, {I64({2}, {2, 3})});
}

TEST(Session, ValuesThatCannotBeReturnedAreUserErrors) {
  Session s(program_of({}, {}), {});
  s.run(assign("t", D(DType::kInt64)));
  EXPECT_THROW(s.value("t"), UserError);
  EXPECT_THROW(s.value("never_bound"), UserError);
}

}  // namespace
}  // namespace sf::eager::testing
