// cond and while_loop in the eager reference: the taken branch only, loops to their condition,
// carries that keep their shape, and the iteration bound.
#include "engine/program/parser.h"
#include "tests/eager/test_util.h"

namespace sf::eager::testing {
namespace {

EagerResult run_text(const std::string& body) {
  return run_eager(program::parse_program("# sfz 1\n" + body));
}

UserErrorKind error_kind(const std::string& body) {
  try {
    run_text(body);
  } catch (const UserError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no error";
  return UserErrorKind::kInvalidProgram;
}

TEST(EagerHigherOrder, CondRunsOnlyTheTakenBranch) {
  // The untaken branch would fail its check: eager never runs it.
  const std::string prog =
      "input x: i64[3] = [1, 0, 2]\ninput p: bool[1] = [$]\n"
      "def good(a):\n  return nonzero(a)\n"
      "def bad(a):\n  check(size(a, 0) == 7, \"never\")\n  return nonzero(a)\n"
      "r = cond(p, good, bad, [x])\nreturn r\n";
  std::string taken = prog, other = prog;
  taken.replace(taken.find('$'), 1, "True");
  other.replace(other.find('$'), 1, "False");
  EagerResult r = run_text(taken);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].tensor.sizes, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(error_kind(other), UserErrorKind::kCheckFailed);
}

TEST(EagerHigherOrder, WhileLoopCarriesUntilTheConditionFails) {
  EagerResult r = run_text(
      "input x: i64[2] = [1, 2]\n"
      "def more(i, v):\n  return i < 4\n"
      "def step(i, v):\n  return i + 1, v * 2\n"
      "n, y = while_loop(more, step, [0, x])\nreturn n, y\n");
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[0].i, 4);
  EXPECT_EQ(r.outputs[1].tensor.ints, (std::vector<int64_t>{16, 32}));
}

TEST(EagerHigherOrder, CarriesKeepTheirShape) {
  EXPECT_EQ(error_kind("input x: i64[2] = [1, 0]\n"
                       "def more(v):\n  return size(v, 0) > 1\n"
                       "def step(v):\n  return squeeze(nonzero(v), 1)\n"
                       "y = while_loop(more, step, [x])\nreturn y\n"),
            UserErrorKind::kShape);
}

TEST(EagerHigherOrder, LoopsAreBounded) {
  EXPECT_EQ(error_kind("input x: i64[1] = [1]\n"
                       "def forever(i):\n  return i >= 0\n"
                       "def step(i):\n  return i + 1\n"
                       "n = while_loop(forever, step, [0])\nreturn n\n"),
            UserErrorKind::kTooComplex);
}

TEST(EagerHigherOrder, PredicateMustBeOneBool) {
  EXPECT_EQ(error_kind("input x: bool[2] = [True, False]\n"
                       "def f(a):\n  return a\n"
                       "r = cond(x, f, f, [x])\nreturn r\n"),
            UserErrorKind::kInvalidProgram);
}

}  // namespace
}  // namespace sf::eager::testing
