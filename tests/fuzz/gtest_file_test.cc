// The GoogleTest file a campaign writes per finding is checked in once, generated from
// corpus/program/design_example.sfz, as tests/fuzz/generated_finding_test.cc (built and run by
// this package, so the generated code is known to compile and pass on a fixed program); this test
// keeps the generator and that file identical. SF_UPDATE_GOLDEN=1 rewrites the file.
#include "fuzz/gtest_file.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "fuzz/files.h"

namespace sf::fuzz {
namespace {

TEST(GtestFile, MatchesTheCheckedInGeneratedTest) {
  std::optional<std::string> program = read_text_file("corpus/program/design_example.sfz");
  ASSERT_TRUE(program.has_value());
  std::string text = gtest_file_text("fail:example-0123abcd", *program,
                                     "fail:tv: an example signature", "hand-written");
  const char* update = std::getenv("SF_UPDATE_GOLDEN");
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (update && workspace) {
    write_atomically(std::string(workspace) + "/tests/fuzz/generated_finding_test.cc", text);
  }
  std::optional<std::string> golden = read_text_file("tests/fuzz/generated_finding_test.cc");
  ASSERT_TRUE(golden.has_value());
  EXPECT_EQ(text, *golden);
}

}  // namespace
}  // namespace sf::fuzz
