// The program shrinker on planted failures: a checker forced to fire on one op pattern (a value
// with a data-dependent size flowing into a reduction) in generated 30-statement programs must be
// shrunk to a handful of statements, deterministically; figures are printed for the issue note.
#include "fuzz/shrink_program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "engine/program/schema.h"
#include "fuzz/fuzz_source.h"
#include "fuzz/gen/program_gen.h"
#include "fuzz/shrink.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {
namespace {

bool is_reduction(program::OpKind op) {
  return program::schema(op).family == program::OpFamily::kReduction;
}

// The planted checker: "fires" when a reduction consumes a value that has an unbacked size.
bool has_pattern(const graph::Graph& g) {
  bool found = false;
  g.for_each([&](const graph::Node* n) {
    if (n->kind != graph::NodeKind::kCall || !is_reduction(n->op)) return;
    for (const graph::NodeArg& a : n->args) {
      a.for_each_node([&](const graph::Node* src) {
        if (!src->unbacked_bindings.empty()) found = true;
      });
    }
  });
  return found;
}

// Interesting: the program traces and runs (a pass) and the planted checker fires on its graph.
bool planted_failure(const std::string& text) {
  program::Program p;
  try {
    p = program::parse_program(text);
  } catch (const UserError&) {
    return false;
  }
  static auto cpu = backend::make_cpu_backend();
  bool fired = false;
  oracles::PipelineOptions opts;
  opts.backend = cpu.get();
  opts.observers.emplace_back(compile::Stage::kTrace, [&](const compile::StageProducts& s) {
    fired = has_pattern(s.trace->graph);
    return compile::Next::kContinue;
  });
  return oracles::run_pipeline(p, opts).verdict.kind == oracles::Verdict::Kind::kPass && fired;
}

TEST(ShrinkProgram, PlantedFailuresShrinkToAFewStatements) {
  ProgramPolicy policy;
  policy.max_statements = 30;
  std::vector<double> seconds;
  std::vector<int> before, after;
  for (uint64_t seed = 1; seconds.size() < 20 && seed < 5000; ++seed) {
    SeedSource src(seed);
    std::string text = program::print_program(generate_program(src, policy));
    if (program_text_lines(text) < 25 || !planted_failure(text)) continue;
    auto t0 = std::chrono::steady_clock::now();
    ShrinkResult r = shrink_program(text, planted_failure);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    before.push_back(program_text_lines(text));
    after.push_back(program_text_lines(r.text));
    EXPECT_TRUE(planted_failure(r.text)) << r.text;
    EXPECT_LE(program_text_lines(r.text), 6) << "seed " << seed << ":\n" << r.text;
    if (seconds.size() == 1) {
      // Deterministic: the same input shrinks to the same program.
      ShrinkLimits unlimited_time;
      unlimited_time.seconds = 1e9;
      ShrinkResult a = shrink_program(text, planted_failure, unlimited_time);
      ShrinkResult b = shrink_program(text, planted_failure, unlimited_time);
      EXPECT_EQ(a.text, b.text);
      EXPECT_EQ(a.stopped_by, "fixpoint");
      std::printf("example (seed %llu):\n%s", static_cast<unsigned long long>(seed),
                  r.text.c_str());
    }
  }
  ASSERT_EQ(seconds.size(), 20u);
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> sorted_after = after;
  std::sort(sorted_after.begin(), sorted_after.end());
  double median = (sorted[9] + sorted[10]) / 2;
  std::printf(
      "20 planted failures: statements %d..%d -> max %d (median %d); shrink seconds "
      "median %.3f, max %.3f\n",
      *std::min_element(before.begin(), before.end()),
      *std::max_element(before.begin(), before.end()), sorted_after.back(), sorted_after[10],
      median, sorted.back());
  // (Timings are printed for the record, not asserted: tests do not time.)
}

TEST(ShrinkProgram, AnInputThatIsNotInterestingIsReturnedAsIs) {
  const std::string text = "# sfz 1\n# expect: ok\ninput x: f32[2] = arange()\nreturn x\n";
  ShrinkResult r = shrink_program(text, [](const std::string&) { return false; });
  EXPECT_FALSE(r.reproduced);
  EXPECT_EQ(r.text, text);
}

TEST(ShrinkProgram, ShrinksInputsAndInlinesCopies) {
  // Only the unbacked count flowing into sum matters: the shrinker drops the unused input and
  // statements, shrinks the mask input's size, and inlines the copy.
  const std::string text =
      "# sfz 1\n# expect: ok\n"
      "input x: f32[6, 5] dynamic(0) = randn(seed=3)\n"
      "input m: bool[6] = [1, 0, 1, 1, 0, 1]\n"
      "input unused: i64[4] = arange()\n"
      "y = x\n"
      "z = index(y, m)\n"
      "w = add(z, 1.0)\n"
      "s = sum(z, [1])\n"
      "t = mul(s, 2.0)\n"
      "return t, w\n";
  ASSERT_TRUE(planted_failure(text));
  ShrinkResult r = shrink_program(text, planted_failure);
  EXPECT_TRUE(planted_failure(r.text));
  EXPECT_EQ(r.text.find("unused"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("y = x"), std::string::npos) << r.text;
  EXPECT_LE(program_text_lines(r.text), 5) << r.text;         // 2 inputs, index, sum, return
  EXPECT_EQ(r.text.find("[6"), std::string::npos) << r.text;  // mask and x shrunk together
}

TEST(ShrinkProgram, TextThatDoesNotParseFallsBackToLines) {
  const std::string text = "not a program\nkeep\nnoise\n";
  ShrinkResult r = shrink_program(
      text, [](const std::string& t) { return t.find("keep") != std::string::npos; });
  EXPECT_EQ(r.text, "keep\n");
}

}  // namespace
}  // namespace sf::fuzz
