// Resource limits through the whole pipeline (CPU backend, every oracle): programs whose symbolic
// expressions grow exponentially or nest thousands deep, and tensors whose sizes are huge or
// overflow int64, end in a typed user error (too_complex, or the error eager raises), never an
// abort, a hang, a stack overflow or a FAIL.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "oracles/pipeline.h"
#include "tests/graph/test_util.h"

namespace sf::graph {
namespace {

using namespace sf::graph::testing;
using oracles::Verdict;

oracles::PipelineResult run(const std::string& text) {
  std::unique_ptr<backend::Backend> b = backend::make_cpu_backend();
  oracles::PipelineOptions opts;
  opts.backend = b.get();
  opts.oracles = oracles::OracleSet::all();
  return oracles::run_pipeline(sfz(text), opts);
}

void expect_rejected(const oracles::PipelineResult& r, UserErrorKind kind,
                     std::initializer_list<const char*> parts) {
  EXPECT_EQ(r.verdict.kind, Verdict::Kind::kRejected) << r.verdict.str();
  EXPECT_EQ(r.verdict.error_kind, kind) << r.verdict.str();
  for (const char* p : parts) {
    EXPECT_NE(r.verdict.message.find(p), std::string::npos) << r.verdict.str();
  }
}

// `first` then `count` statements `body` with {i} and {p} (the previous index) substituted.
std::string chain(const std::string& first, const std::string& body, int count,
                  const std::string& ret) {
  std::string s = first;
  for (int i = 1; i <= count; ++i) {
    std::string line = body;
    for (size_t at; (at = line.find("{i}")) != std::string::npos;) {
      line.replace(at, 3, std::to_string(i));
    }
    for (size_t at; (at = line.find("{p}")) != std::string::npos;) {
      line.replace(at, 3, std::to_string(i - 1));
    }
    s += line + "\n";
  }
  std::string r = ret;
  r.replace(r.find("{n}"), 3, std::to_string(count));
  return s + r + "\n";
}

// 1. Growth: each statement uses the previous values twice, so the trees double (the DAG stays
// linear). Before the size limit, 40 rounds hung printing the traced graph.
TEST(LimitsTest, DoublingMinMaxChainIsTooComplex) {
  std::string p = chain(
      "input t: i64[2] = [3, 4]\na0 = item(slice(t, 0, 0, 1))\nb0 = item(slice(t, 0, 1, 2))\n",
      "a{i} = max(a{p}, b{p})\nb{i} = min(a{p}, b{p})", 40, "return a{n}");
  expect_rejected(run(p), UserErrorKind::kTooComplex, {"line ", "Max", "grew too large"});
}

TEST(LimitsTest, DoublingDivModChainIsTooComplex) {
  std::string p = chain("input t: i64[1] = [3]\na0 = item(t)\n", "a{i} = a{p} // 2 + a{p} % 3",
                        4000, "return a{n}");
  expect_rejected(run(p), UserErrorKind::kTooComplex, {"line 14:", "grew too large"});
}

// a = a * a: u0**(2**k) is two nodes, but evaluating or bounding it loops 2**k times.
TEST(LimitsTest, RepeatedSquaringIsTooComplex) {
  std::string p =
      chain("input t: i64[1] = [1]\na0 = item(t)\n", "a{i} = a{p} * a{p}", 61, "return a{n} + 1");
  expect_rejected(run(p), UserErrorKind::kTooComplex, {"line 10:", "Pow", "exponent 128"});
}

// 2. Depth: before the depth limit, 4,000 statements overflowed the stack evaluating the output
// size in the CPU runner (sym::evaluate recursed 8,000 levels).
TEST(LimitsTest, DeepSymbolicChainIsTooComplex) {
  for (int n : {4000, 20000}) {
    std::string p =
        chain("input t: i64[1] = [3]\na0 = item(t)\n", "a{i} = -(a{p} // 3)", n, "return a{n}");
    expect_rejected(run(p), UserErrorKind::kTooComplex, {"line 503:", "nest too deeply"});
  }
}

// Long programs whose expressions stay small are fine: every pass iterates over statements.
TEST(LimitsTest, LongChainsRun) {
  auto start = std::chrono::steady_clock::now();
  const char* cases[][3] = {
      {"input x: f32[4] dynamic(0) = randn(seed=1)\nv0 = unsqueeze(x, 0)\n",
       "v{i} = unsqueeze(squeeze(v{p}, 0), 0)", "return v{n}"},
      {"input x: f32[4] dynamic(0) = randn(seed=1)\ny0 = x\n", "y{i} = mul(add(y{p}, 1.0), 0.5)",
       "return y{n}"},
      {"input t: f32[1] = [3.0]\na0 = item(t)\n", "a{i} = a{p} * 0.5 + 1.0", "return a{n}"},
      {"input t: i64[1] = [3]\na0 = item(t)\n", "a{i} = a{p} + {i} - a0 // 2", "return a{n}"},
  };
  for (const auto& c : cases) {
    oracles::PipelineResult r = run(chain(c[0], c[1], 4000, c[2]));
    EXPECT_EQ(r.verdict.kind, Verdict::Kind::kPass) << c[1] << ": " << r.verdict.str();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

// 3. Huge tensors. Eager refuses to materialize more than 2^26 elements; the plan runner must
// refuse the same views and iteration spaces, not gather them (std::bad_alloc before).
TEST(LimitsTest, HugeExpandIsTooComplexEverywhere) {
  const char* programs[] = {
      "x = zeros([1, 4])\nreturn expand(x, [1000000000000, 4])\n",
      "x = zeros([1, 4])\nreturn sum(expand(x, [1000000000000, 4]))\n",
      "input t: i64[1] = [1000000000000]\nn = item(t)\nx = zeros([1, 4])\n"
      "return sum(expand(x, [n, 4]))\n",
      "x = zeros([1])\nreturn nonzero(expand(x, [1000000000000]))\n",
      "x = zeros([1])\nreturn unique(expand(x, [1000000000000]))\n",
  };
  for (const char* p : programs) {
    oracles::PipelineResult r = run(p);
    expect_rejected(r, UserErrorKind::kTooComplex, {"2^26"});
    ASSERT_TRUE(r.run_error) << p;
    EXPECT_EQ(r.run_error->kind, UserErrorKind::kTooComplex) << r.run_error->str();
  }
}

// tolist's length can be any int64 through a view; it used to become that many graph nodes.
TEST(LimitsTest, TolistOfAHugeViewIsTooComplex) {
  expect_rejected(run("x = zeros([1], dtype=i64)\nreturn tolist(expand(x, [1000000000000]))\n"),
                  UserErrorKind::kTooComplex, {"line 3:", "tolist", "the limit is 256"});
}

// Sizes near int64's maximum (2^53 * 1023) on empty tensors: valid, and eager computes them.
// Before: the runner refused the empty buffers (FAIL), eager's take_rows / cat / stack looped
// over the huge outer extent, and a cat whose sizes overflow aborted eager (SF_CHECK).
TEST(LimitsTest, HugeEmptyTensorsRun) {
  const std::string n =
      "input t: i64[1] = [9007199254740992]\ninput i: i64[0] = []\nn = item(t) * 1023\n";
  const char* bodies[] = {
      "return zeros([n, n, 0])\n",
      "x = zeros([1, 0])\ny = expand(x, [n, 0])\nreturn stack([y, y, y], 0)\n",
      "x = zeros([1, 0])\ny = expand(x, [n, 0])\nreturn stack([y, y], 1)\n",
      "x = zeros([1, 0])\ny = expand(x, [n, 0])\nreturn cat([y, y], 1)\n",
      "x = zeros([1, 0])\ny = expand(x, [n, 0])\nreturn index_select(y, 1, i)\n",
      "x = zeros([1, 0])\ny = expand(x, [n, 0])\nreturn where(gt(y, 0), y, 1.0)\n",
  };
  for (const char* b : bodies) {
    oracles::PipelineResult r = run(n + b);
    EXPECT_EQ(r.verdict.kind, Verdict::Kind::kPass) << b << r.verdict.str();
  }
}

TEST(LimitsTest, SizesBeyondInt64AreTooComplex) {
  const std::string n = "input t: i64[1] = [9007199254740992]\n";
  // 2 * 2^62 elements along dim 0.
  expect_rejected(run(n + "m = item(t) * 512\nx = zeros([1, 0])\ny = expand(x, [m, 0])\n"
                          "return cat([y, y], 0)\n"),
                  UserErrorKind::kTooComplex, {"cat"});
  // (2^53 * 1023)^2: eager wrapped the product to 0 and returned f32[0, 0] (FAIL).
  expect_rejected(run(n + "m = item(t) * 1023\nreturn flatten(zeros([m, m, 0]), 0, 1)\n"),
                  UserErrorKind::kTooComplex, {"flatten"});
}

}  // namespace
}  // namespace sf::graph
