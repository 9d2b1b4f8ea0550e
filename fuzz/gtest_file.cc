// The generated test compiles against the public headers only (parser, CPU backend, pipeline).
#include "fuzz/gtest_file.h"

#include <cctype>

namespace sf::fuzz {

namespace {

std::string identifier(const std::string& s) {
  std::string out;
  bool upper = true;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      upper = false;
    } else {
      upper = true;
    }
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "Finding" + out;
  return out;
}

std::string comment(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\n' ? ' ' : c;
  return out;
}

}  // namespace

std::string gtest_file_text(const std::string& test_name, const std::string& program_text,
                            const std::string& signature, const std::string& provenance) {
  std::string out;
  out +=
      "// Regression test written by shapefuzz for a finding; it fails while the bug is there.\n";
  out += "// Reproduces: " + comment(signature) + "\n";
  out += "// Found by: " + comment(provenance) + "\n";
  out +=
      "// Build with deps on //engine/program, //engine/backend:cpu, //oracles:pipeline and "
      "gtest.\n";
  out += "#include <gtest/gtest.h>\n\n";
  out += "#include \"engine/backend/cpu/cpu_backend.h\"\n";
  out += "#include \"engine/program/parser.h\"\n";
  out += "#include \"oracles/pipeline.h\"\n\n";
  out += "namespace {\n\n";
  out += "constexpr const char* kProgram = R\"sfz(" + program_text + ")sfz\";\n\n";
  out += "TEST(ShapefuzzFinding, " + identifier(test_name) + ") {\n";
  out += "  sf::program::Program p = sf::program::parse_program(kProgram);\n";
  out += "  auto cpu = sf::backend::make_cpu_backend();\n";
  out += "  sf::oracles::PipelineOptions opts;\n";
  out += "  opts.backend = cpu.get();\n";
  out += "  opts.oracles = sf::oracles::OracleSet::all();\n";
  out += "  sf::oracles::Verdict v = sf::oracles::run_pipeline(p, opts).verdict;\n";
  out += "  // Fixed: the pipeline accepts it (every oracle agrees) or rejects it as eager does.\n";
  out += "  EXPECT_TRUE(v.kind == sf::oracles::Verdict::Kind::kPass ||\n";
  out += "              v.kind == sf::oracles::Verdict::Kind::kRejected)\n";
  out += "      << v.str();\n";
  out += "}\n\n";
  out += "}  // namespace\n";
  return out;
}

}  // namespace sf::fuzz
