// libFuzzer target `parser`: any bytes as .sfz text. Bad text must be a typed user error; text that
// parses must print to text that parses back to the same printed program (a round trip).
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "engine/program/printer.h"
#include "fuzz/targets/finding.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sf::fuzz::enable_faults_or_exit();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sf;
  if (size > 64 * 1024) return 0;  // the format's own limits are tested elsewhere; keep execs fast
  std::string text(reinterpret_cast<const char*>(data), size);
  program::Program parsed;
  try {
    parsed = program::parse_program(text);
  } catch (const UserError&) {
    return 0;  // rejected with a typed error: what bad text should get
  }
  std::string printed = program::print_program(parsed);
  program::Program reparsed;
  try {
    reparsed = program::parse_program(printed);
  } catch (const UserError& e) {
    fuzz::report_finding("parser", "the printed program does not parse: " + std::string(e.what()) +
                                       "\n--- printed ---\n" + printed);
  }
  std::string reprinted = program::print_program(reparsed);
  if (reprinted != printed) {
    fuzz::report_finding("parser", "print(parse(print(p))) != print(p)\n--- first ---\n" + printed +
                                       "--- second ---\n" + reprinted);
  }
  return 0;
}
