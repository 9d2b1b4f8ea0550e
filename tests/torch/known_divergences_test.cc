// The known-divergence file: what a rule matches (backend, class, detail, every program pattern,
// path; the first rule wins; ours-failed only by name), each malformed file an error naming its
// line, and the checked-in file parses with every rule reachable.
#include "fuzz/torch/known_divergences.h"

#include <gtest/gtest.h>

#include "engine/base/errors.h"

namespace sf::torch_ref {
namespace {

const char* kRules = R"(# two rules
[scan-guard]
backends = aot_eager
class = torch-rejects-we-accept torch-self
detail = data-dependent expression Eq\(.*, 0\)
program = \bscan\(
why = PyTorch's scan tests the leading dim in Python

[stride-of-nonzero]
detail = output \d+: \d+ vs \d+
program = \bstride\(
program = \bnonzero\(
why = deliberate
)";

const std::string kGuard =
    "torch raised data_dependent_guard (UserError: Could not guard on "
    "data-dependent expression Eq(u2, 0) (unhinted: Eq(u2, 0)))";

TEST(KnownDivergences, ARuleMatchesItsBackendClassDetailAndProgram) {
  KnownDivergences k = KnownDivergences::parse(kRules);
  ASSERT_EQ(k.rules().size(), 2u);
  const std::string scan = "c = scan(f, [x], [y])\n";
  const KnownDivergence* r = k.match("aot_eager", "torch-rejects-we-accept", kGuard, scan);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->id, "scan-guard");
  EXPECT_EQ(r->line, 2);
  EXPECT_NE(k.match("aot_eager", "torch-self", kGuard, scan), nullptr);
  // Each condition on its own keeps it from matching.
  EXPECT_EQ(k.match("eager", "torch-rejects-we-accept", kGuard, scan), nullptr);
  EXPECT_EQ(k.match("aot_eager", "torch-crashes", kGuard, scan), nullptr);
  EXPECT_EQ(k.match("aot_eager", "torch-rejects-we-accept", "Eq(u2, 1)", scan), nullptr);
  EXPECT_EQ(k.match("aot_eager", "torch-rejects-we-accept", kGuard, "m = map(f, [x])\n"), nullptr);
  EXPECT_EQ(k.match("aot_eager", "torch-rejects-we-accept", kGuard, "c = myscan(x)\n"), nullptr);
}

TEST(KnownDivergences, EveryProgramPatternMustMatch) {
  KnownDivergences k = KnownDivergences::parse(kRules);
  const std::string detail = "output 1: 2 vs 1";
  EXPECT_NE(k.match("eager", "different-outputs", detail, "a = nonzero(x)\nb = stride(a, 0)\n"),
            nullptr);
  EXPECT_EQ(k.match("eager", "different-outputs", detail, "b = stride(x, 0)\n"), nullptr);
  EXPECT_EQ(k.match("eager", "different-outputs", detail, "a = nonzero(x)\n"), nullptr);
}

TEST(KnownDivergences, TheFirstMatchingRuleNamesIt) {
  KnownDivergences k = KnownDivergences::parse(
      "[broad]\ndetail = Eq\nwhy = a\n[narrow]\ndetail = Eq\\(u2, 0\\)\nwhy = b\n");
  EXPECT_EQ(k.match("eager", "torch-crashes", kGuard, "")->id, "broad");
}

// Our own failure is known only to a rule that names ours-failed (a program made to fail ours);
// a rule for any class does not hide it.
TEST(KnownDivergences, OursFailedIsKnownOnlyToARuleThatNamesIt) {
  KnownDivergences k = KnownDivergences::parse(
      "[any-class]\nprogram = nonzero\nwhy = a\n"
      "[zoo]\nclass = ours-failed\nprogram = (^|\\n)# faults: \\w\nwhy = b\n");
  const std::string zoo = "# faults: swap_bindings\nn = nonzero(x)\n";
  EXPECT_EQ(k.match("eager", "torch-crashes", "crash", zoo)->id, "any-class");
  EXPECT_EQ(k.match("eager", "ours-failed", "fail:INV-6", zoo)->id, "zoo");
  EXPECT_EQ(k.match("eager", "ours-failed", "fail:INV-6", "n = nonzero(x)\n"), nullptr);
}

// `path` matches the program's name: its file under a corpus directory.
TEST(KnownDivergences, APathPatternMatchesTheProgramsName) {
  KnownDivergences k =
      KnownDivergences::parse("[kept]\npath = (^|/)corpus/pytorch/\nwhy = PyTorch's\n");
  EXPECT_NE(k.match("eager", "torch-self", "x", "", "/w/corpus/pytorch/a.sfz"), nullptr);
  EXPECT_EQ(k.match("eager", "torch-self", "x", "", "/w/corpus/regressions/a.sfz"), nullptr);
  EXPECT_EQ(k.match("eager", "torch-self", "x", "", "seed-12"), nullptr);
}

void expect_error(const std::string& text, const std::string& what) {
  try {
    KnownDivergences::parse(text, "k.txt");
    ADD_FAILURE() << "no error for: " << text;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(KnownDivergences, AMalformedFileIsAnErrorNamingItsLine) {
  expect_error("[a]\ndetail = x\nwhy = y\nfrobs = z\n", "k.txt:4: unknown key 'frobs'");
  expect_error("[a]\nclass = agree\n", "k.txt:2: 'agree' is not a disagreement class");
  expect_error("[a]\nclass = torch-rejects\n", "'torch-rejects' is not a disagreement class");
  expect_error("[a]\ndetail = (unclosed\n", "k.txt:2: bad pattern '(unclosed'");
  expect_error("[a]\ndetail = x\n\n[b]\ndetail = y\nwhy = z\n", "k.txt:1: rule 'a' has no 'why'");
  expect_error("[a]\nwhy = z\nbackends = eager\n",
               "k.txt:1: rule 'a' needs a 'detail', 'program' or 'path'");
  expect_error("[a]\ndetail = x\ndetail = y\nwhy = z\n", "k.txt:3: 'detail' is given twice");
  expect_error("[a]\ndetail = x\nwhy = y\n[a]\n", "k.txt:4: the id 'a' is used twice");
  expect_error("detail = x\n", "k.txt:1: 'detail = x' is outside a rule");
  expect_error("[a]\ndetail\n", "k.txt:2: expected 'key = value'");
  expect_error("[a]\ndetail =\n", "k.txt:2: 'detail' has no value");
  expect_error("[]\n", "k.txt:1: a rule starts with [id]");
}

TEST(KnownDivergences, AnUnreadableFileIsAnError) {
  EXPECT_THROW(KnownDivergences::load("/nonexistent/known.txt"), UserError);
}

TEST(KnownDivergences, TheCheckedInFileParses) {
  KnownDivergences k = KnownDivergences::load("corpus/pytorch/known-divergences.txt");
  EXPECT_GE(k.rules().size(), 10u);
  for (const KnownDivergence& r : k.rules()) EXPECT_FALSE(r.why.empty()) << r.id;
}

}  // namespace
}  // namespace sf::torch_ref
