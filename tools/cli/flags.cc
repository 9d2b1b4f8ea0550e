// The option pieces several commands share: the oracle flags, number validators with plain
// messages, and reading a program file (an unreadable one is a usage error).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "tools/cli/commands.h"

namespace sf::cli {

void OracleFlags::add_to(CLI::App* cmd) {
  cmd->add_option("--oracles", oracles,
                  "'all', or a comma list of structural, differential, binding, rename, memo, tv")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) {
            std::string error;
            return oracles::OracleSet::parse(text, &error) ? std::string() : error;
          },
          "ORACLES"));
  cmd->add_option("--oracle-timeout-ms", timeout_ms, "Z3 time limit per query")
      ->capture_default_str()
      ->check(CLI::Range(1u, 3600000u));
  cmd->add_flag("--cross-check", cross_check, "confirm every unsat answer with cvc5");
}

oracles::PipelineOptions OracleFlags::options() const {
  oracles::PipelineOptions opts;
  std::string error;
  opts.oracles = *oracles::OracleSet::parse(oracles, &error);  // validated while parsing
  opts.smt.timeout_ms = timeout_ms;
  opts.smt.cross_check_unsat = cross_check;
  return opts;
}

namespace {

CLI::Validator number_at_least(double low, bool strict, const char* what) {
  return CLI::Validator(
      [=](std::string& text) {
        char* end = nullptr;
        double v = std::strtod(text.c_str(), &end);
        bool ok =
            !text.empty() && *end == '\0' && std::isfinite(v) && (strict ? v > low : v >= low);
        return ok ? std::string() : "expected " + std::string(what) + ", got '" + text + "'";
      },
      strict ? "POSITIVE" : "NONNEGATIVE");
}

}  // namespace

CLI::Validator positive_number() { return number_at_least(0, true, "a positive number"); }
CLI::Validator non_negative_number() { return number_at_least(0, false, "a non-negative number"); }

std::string read_program_file(const std::string& path) {
  std::optional<std::string> text = std::nullopt;
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f) {
      text = std::string();
      char buf[1 << 14];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) text->append(buf, n);
      if (std::ferror(f)) text.reset();
      std::fclose(f);
    }
  }
  if (!text) throw CLI::ValidationError("FILE", "cannot read " + path);
  return *text;
}

}  // namespace sf::cli
