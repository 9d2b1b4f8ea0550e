// Signatures: what varies between instances of one bug is abstracted, what tells bugs apart is
// kept; an isolated run of a crashing reproducer reports the crash with its SF_CHECK line.
#include "fuzz/outcome.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "fuzz/files.h"
#include "fuzz/utf8.h"
#include "oracles/pipeline.h"

namespace sf::fuzz {
namespace {

TEST(Outcome, NormalizeAbstractsNumbersSymbolsAndNames) {
  EXPECT_EQ(normalize_message("%assert_3 (line 12) uses u17 before  any node binds it"),
            "%assert (line #) uses u# before any node binds it");
  EXPECT_EQ(normalize_message("mask bool[] does not match f32[4, 2]"),
            "mask DT[] does not match DT[#, #]");
  EXPECT_EQ(normalize_message("guard Eq(s0, 3.5e2) in a"), "guard Eq(s#, #) in #v");
  EXPECT_EQ(normalize_message(std::string(500, 'x')).size(), 160u);
}

TEST(Outcome, SignatureKeepsTheBucketAndTheFirstViolation) {
  Outcome a{"fail:INV-6", "FAIL at oracles: invariants violated INV-6: %assert uses u1 INV-9: x"};
  Outcome b{"fail:INV-6", "FAIL at oracles: invariants violated INV-6: %assert_2 uses u7"};
  EXPECT_EQ(signature(a), signature(b));
  EXPECT_EQ(signature(a),
            "fail:INV-6: FAIL at oracles: invariants violated INV-#: %assert uses u#");
  EXPECT_NE(signature(a), signature(Outcome{"fail:INV-9", b.detail}));
  EXPECT_EQ(signature(Outcome{"rejected:shape", "anything"}), "rejected:shape");
  EXPECT_EQ(signature(Outcome{"pass", ""}), "pass");
  EXPECT_EQ(signature_bucket(signature(a)), "fail:INV-6");
  EXPECT_EQ(signature_bucket("crash:signal6: engine/x.cc:#: internal"), "crash:signal6");
  EXPECT_EQ(signature_bucket("pass"), "pass");
}

TEST(Outcome, IsolatedCrashCarriesItsCheckLine) {
  // A zoo reproducer whose fault makes an internal invariant fail (SF_CHECK abort).
  std::optional<std::string> text = read_text_file("corpus/zoo/extern_binds_unresolved_name.sfz");
  ASSERT_TRUE(text.has_value());
  oracles::PipelineOptions opts;
  Outcome o = run_program_isolated(*text, opts, IsolationLimits());
  EXPECT_EQ(o.bucket, "crash:signal6");
  EXPECT_NE(o.detail.find("internal invariant failed"), std::string::npos) << o.detail;
  EXPECT_NE(o.detail.find(".cc:"), std::string::npos) << o.detail;
}

TEST(Outcome, HangsAndOomHaveBareSignatures) {
  EXPECT_EQ(signature(Outcome{"crash:timeout", "no progress for 10 s"}), "crash:timeout");
  EXPECT_EQ(signature(Outcome{"crash:oom", "whatever"}), "crash:oom");
  EXPECT_EQ(signature(Outcome{"fail:tv", "   "}), "fail:tv");  // no trailing ": "
  EXPECT_EQ(printable(std::string("a\0b\x7f\n", 5)), "a b  ");
  EXPECT_EQ(utf8_prefix("ab\xcf\x83", 3), "ab");  // never half of sigma
}

TEST(Isolated, NoDescriptorLeaksAcrossRuns) {
  auto open_fds = [] {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
    return n;
  };
  size_t before = open_fds();
  for (int i = 0; i < 200; ++i) run_isolated([] { return std::string("x"); }, 10);
  EXPECT_EQ(open_fds(), before);
}

TEST(Outcome, TextThatDoesNotParseIsInvalid) {
  EXPECT_EQ(run_program_isolated("# sfz 1\nx = \n", {}, IsolationLimits()).bucket, "invalid");
}

}  // namespace
}  // namespace sf::fuzz
