// One test per user error of statements, values and inputs: failed checks with their message,
// type errors (invalid_program), unpacking, and inputs that do not match their declarations.
#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

const Inputs& inputs() {
  static const Inputs* in = new Inputs{
      {"n", Int(5)},
      {"t", I64({3}, {1, 2, 3})},
  };
  return *in;
}

void expect_body_error(std::vector<Stmt> body, UserErrorKind kind, const std::string& substring) {
  expect_error(program_of(inputs(), std::move(body)), inputs(), kind, substring);
}

TEST(InterpreterErrors, CheckFailsWithMessage) {
  expect_body_error({check(C(OpKind::kLt, {V("n"), I(2)}), "n is small")},
                    UserErrorKind::kCheckFailed, "check failed: n is small");
}

TEST(InterpreterErrors, CheckNeedsBool) {
  expect_body_error({check(V("n"), "n")}, UserErrorKind::kInvalidProgram,
                    "check: condition must be a bool scalar, got int 5");
}

TEST(InterpreterErrors, CheckOnTensor) {
  expect_body_error({check(C(OpKind::kGt, {V("t"), I(0)}), "all positive")},
                    UserErrorKind::kInvalidProgram,
                    "check: condition must be a bool scalar, got bool[3] tensor");
}

TEST(InterpreterErrors, CheckIsSizeNegative) {
  expect_body_error({check_is_size(C(OpKind::kSub, {I(2), V("n")}))}, UserErrorKind::kCheckFailed,
                    "check_is_size failed: -3 is negative");
}

TEST(InterpreterErrors, CheckIsSizeAboveMax) {
  expect_body_error({check_is_size(V("n"), I(3))}, UserErrorKind::kCheckFailed,
                    "check_is_size failed: 5 > max 3");
}

TEST(InterpreterErrors, CheckIsSizeOfFloat) {
  expect_body_error({check_is_size(F(1.0))}, UserErrorKind::kInvalidProgram,
                    "check_is_size: expected an int, got float 1");
}

TEST(InterpreterErrors, IfNeedsBool) {
  expect_body_error({if_(V("t"), {})}, UserErrorKind::kInvalidProgram,
                    "if: condition must be a bool scalar, got i64[3] tensor");
}

TEST(InterpreterErrors, UndefinedVariable) {
  expect_body_error({ret({V("q")})}, UserErrorKind::kInvalidProgram, "undefined variable 'q'");
}

TEST(InterpreterErrors, NameFromBranchNotTaken) {
  expect_body_error({if_(B(false), {assign("r", I(1))}), ret({V("r")})},
                    UserErrorKind::kInvalidProgram, "undefined variable 'r'");
}

TEST(InterpreterErrors, UnpackCountMismatch) {
  expect_body_error({unpack({"a", "b"}, C(OpKind::kTolist, {V("t")}))}, UserErrorKind::kValue,
                    "cannot unpack a tuple of 3 into 2 names");
}

TEST(InterpreterErrors, UnpackNonTuple) {
  expect_body_error({unpack({"a", "b"}, V("t"))}, UserErrorKind::kInvalidProgram,
                    "cannot unpack i64[3] tensor into 2 names");
}

TEST(InterpreterErrors, MissingArgument) {
  expect_body_error({ret({C(OpKind::kSelect, {V("t"), I(0)})})}, UserErrorKind::kInvalidProgram,
                    "missing argument 'index'");
}

TEST(InterpreterErrors, ReturnDtype) {
  expect_body_error({ret({D(DType::kFloat32)})}, UserErrorKind::kInvalidProgram,
                    "cannot return dtype f32");
}

TEST(InterpreterErrors, LineOfTheStatement) {
  Stmt s = check(B(false), "located");
  s.loc.line = 7;
  expect_body_error({s}, UserErrorKind::kCheckFailed, "line 7: check failed: located");
}

TEST(InterpreterErrors, MissingInput) {
  Program p = program_of(inputs(), {});
  expect_error(p, {{"n", Int(5)}}, UserErrorKind::kInvalidProgram, "missing value for input 't'");
}

TEST(InterpreterErrors, InputOfWrongDtype) {
  Program p = program_of(inputs(), {});
  expect_error(p, {{"n", Int(5)}, {"t", F32({3}, {1, 2, 3})}}, UserErrorKind::kInvalidProgram,
               "input 't': expected a i64[3] tensor");
}

TEST(InterpreterErrors, ScalarInputOfWrongKind) {
  Program p = program_of(inputs(), {});
  expect_error(p, {{"n", Flt(5)}, {"t", I64({3}, {1, 2, 3})}}, UserErrorKind::kInvalidProgram,
               "input 'n': expected a i64 scalar");
}

TEST(InterpreterErrors, UndeclaredInput) {
  Program p = program_of(inputs(), {});
  Inputs in = inputs();
  in["z"] = Int(1);
  expect_error(p, in, UserErrorKind::kInvalidProgram, "value given for undeclared input 'z'");
}

}  // namespace
}  // namespace sf::eager::testing
