// The format spec stays honest: every ```sfz block of corpus/README.md parses and is canonical,
// and every corpus/program/*.sfz file parses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"

namespace sf::program {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> sfz_blocks(const std::string& markdown) {
  std::vector<std::string> out;
  const std::string open = "```sfz\n";
  size_t pos = 0;
  while ((pos = markdown.find(open, pos)) != std::string::npos) {
    size_t start = pos + open.size();
    size_t end = markdown.find("```", start);
    if (end == std::string::npos) break;
    out.push_back(markdown.substr(start, end - start));
    pos = end + 3;
  }
  return out;
}

TEST(CorpusTest, ReadmeExamplesParseAndAreCanonical) {
  auto blocks = sfz_blocks(read_file("corpus/README.md"));
  EXPECT_GE(blocks.size(), 4u);
  for (const std::string& block : blocks) {
    try {
      EXPECT_EQ(print_program(parse_program(block)), block);
    } catch (const UserError& e) {
      ADD_FAILURE() << e.what() << "\nin README example:\n" << block;
    }
  }
}

TEST(CorpusTest, ProgramFilesParse) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("corpus/program")) {
    if (entry.path().extension() != ".sfz") continue;
    ++count;
    try {
      Program p = parse_program(read_file(entry.path()));
      EXPECT_FALSE(p.header.found_by.empty()) << entry.path() << " has no # found-by: line";
    } catch (const UserError& e) {
      ADD_FAILURE() << entry.path() << ": " << e.what();
    }
  }
  EXPECT_GE(count, 1);
}

}  // namespace
}  // namespace sf::program
