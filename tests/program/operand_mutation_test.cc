// The static rule cond and while_loop apply to their functions: a mutation of a tensor operand,
// through any alias the analysis can see, is found and named; a mutation of a copy is not.
#include "engine/program/operand_mutation.h"

#include <gtest/gtest.h>

#include "engine/base/errors.h"
#include "engine/program/parser.h"

namespace sf::program {
namespace {

// The mutation found in `def f(x, k):` with this body (x a tensor, k an int).
std::optional<OperandMutation> found_in(const std::string& body) {
  Program p = parse_program(
      "# sfz 1\ninput a: f32[4] = arange()\ninput n: i64[] = full(2)\n"
      "def f0(x):\n  return x + 1\ndef f(x, k):\n" +
      body + "c = cond(n > 1, f, f, [a, n])\nreturn c\n");
  return find_operand_mutation(*p.function("f"), {true, false});
}

TEST(OperandMutation, FoundThroughEveryAlias) {
  auto direct = found_in("  y = add_(x, 1)\n  return y\n");
  ASSERT_TRUE(direct);
  EXPECT_EQ(direct->operand, "x");
  EXPECT_EQ(direct->loc.line, 7);
  EXPECT_TRUE(found_in("  z = x\n  y = add_(z, 1)\n  return y\n")) << "a plain assignment";
  EXPECT_TRUE(found_in("  v = transpose(view(x, [2, 2]), 0, 1)\n  y = add_(v, 1)\n  return y\n"))
      << "a view of a view";
  EXPECT_TRUE(found_in("  return add_(slice(x, 0, 0, 2), 1) + 0\n")) << "inside an expression";
  EXPECT_TRUE(found_in("  y = add_(x + 0, 1)\n  w = add_(add_(x, 1), 1)\n  return w\n"))
      << "add_'s result aliases its target";
  EXPECT_TRUE(found_in("  z = x * 2\n  if k > 1:\n    z = x\n  y = add_(z, 1)\n  return y\n"))
      << "either branch of an if";
  EXPECT_TRUE(found_in("  if k > 1:\n    y = add_(x, 1)\n  return x + 1\n")) << "inside an if";
  EXPECT_TRUE(found_in("  v = view(a=x, shape=[4])\n  y = add_(b=1, a=v)\n  return y\n"))
      << "keyword arguments";
  auto named = found_in("  v = view(x, [2, 2])\n  y = add_(v, 1)\n  return y\n");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->operand, "x") << "the parameter is named, not the view";
}

TEST(OperandMutation, CopiesAndNewValuesAreNotOperands) {
  EXPECT_FALSE(found_in("  c = x + 0\n  y = add_(c, 1)\n  return y\n"));
  EXPECT_FALSE(found_in("  x = x * 2\n  y = add_(x, 1)\n  return y\n")) << "a new value";
  EXPECT_FALSE(found_in("  z = x\n  z = nonzero(x > 0)\n  y = add_(z, 1)\n  return x + 0\n"));
  EXPECT_FALSE(found_in("  c = cond(k > 1, f0, f0, [x])\n  y = add_(c, 1)\n  return y\n"))
      << "a nested cond's outputs are new tensors";
  EXPECT_FALSE(found_in("  return x + 1\n"));
}

TEST(OperandMutation, NonTensorParametersAreNotChecked) {
  Program p = parse_program(
      "# sfz 1\ninput a: f32[4] = arange()\ndef f(x, k):\n  y = add_(x, 1)\n  return y\n"
      "c = cond(True, f, f, [a, 2])\nreturn c\n");
  EXPECT_FALSE(find_operand_mutation(p.functions.at(0), {false, false}));
  EXPECT_TRUE(find_operand_mutation(p.functions.at(0), {true, false}));
}

TEST(OperandMutation, TheErrorNamesTheOpTheFunctionAndTheOperand) {
  Program p = parse_program(
      "# sfz 1\ninput a: f32[4] = arange()\ndef bump(x):\n  y = add_(x, 1)\n  return y\n"
      "c = cond(True, bump, bump, [a])\nreturn c\n");
  try {
    check_no_operand_mutation(p.functions.at(0), {true}, p.body.at(0));
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), UserErrorKind::kInvalidProgram);
    std::string m = e.what();
    EXPECT_NE(m.find("line 4: cond: function 'bump' mutates its operand 'x'"), std::string::npos)
        << m;
  }
  check_no_operand_mutation(p.functions.at(0), {false}, p.body.at(0));  // an int operand: nothing
}

}  // namespace
}  // namespace sf::program
