// A self-contained GoogleTest file for a finding: the minimized program embedded as text, run
// through the whole pipeline with every oracle; it passes once the bug is fixed. A compiler
// engineer drops it into a test suite linked against the shapefuzz libraries.
#pragma once

#include <string>

namespace sf::fuzz {

// `test_name` becomes the TEST's name (sanitized); `signature` and `provenance` go in comments.
std::string gtest_file_text(const std::string& test_name, const std::string& program_text,
                            const std::string& signature, const std::string& provenance);

}  // namespace sf::fuzz
