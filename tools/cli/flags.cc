// The option pieces several commands share: the oracle flags, number validators with plain
// messages, and reading a program file (an unreadable one is a usage error).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/base/errors.h"
#include "engine/program/parser.h"
#include "fuzz/files.h"
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
  cmd->add_option("--oracle-timeout-ms", timeout_ms,
                  "wall-clock limit per solver query (a watchdog interrupts Z3; past it the query "
                  "is unknown, never a pass)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 3600000u));
  cmd->add_option("--oracle-deadline-ms", deadline_ms,
                  "wall-clock limit per oracle per program (past it the oracle stops and is "
                  "undecided, never a pass)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 3600000u));
  cmd->add_flag("--cross-check", cross_check, "confirm every unsat answer with cvc5");
}

oracles::PipelineOptions OracleFlags::options() const {
  oracles::PipelineOptions opts;
  std::string error;
  opts.oracles = *oracles::OracleSet::parse(oracles, &error);  // validated while parsing
  opts.smt.timeout_ms = timeout_ms;
  opts.oracle_deadline_ms = deadline_ms;
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

CLI::Validator seed_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        size_t start = text.find_first_not_of(" \t");
        if (start != std::string::npos && (text[start] == '-' || text[start] == '+')) {
          return "expected a seed from 0 to 18446744073709551615, got '" + text + "'";
        }
        return std::string();
      },
      "SEED");
}

void IsolationFlags::add_to(CLI::App* cmd) {
  cmd->add_option("--timeout", limits.timeout_seconds,
                  "seconds a program may run without progress before it is a hang (crash:timeout)")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 86400.0));
  cmd->add_option("--memory-mb", limits.memory_mb,
                  "address-space cap of the process running programs (crash:oom past it)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{256}, size_t{1} << 20));
}

std::string read_program_file(const std::string& path) {
  std::error_code ec;
  std::optional<std::string> text;
  if (std::filesystem::is_regular_file(path, ec)) text = fuzz::read_text_file(path);
  if (!text) throw CLI::ValidationError("FILE", "cannot read " + path);
  return *text;
}

program::Program parse_program_file(const std::string& path, std::string* text) {
  *text = read_program_file(path);
  try {
    return program::parse_program(*text);
  } catch (const UserError& e) {
    throw CLI::ValidationError("FILE", path + " does not parse: " + e.what());
  }
}

}  // namespace sf::cli
