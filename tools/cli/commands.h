// The CLI's subcommands and their tiny argument parser (--key value / --flag).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace sf::cli {

class Args {
 public:
  // Parses argv after the subcommand; positional arguments are kept in order.
  static Args parse(int argc, char** argv, int first);
  std::string get(const std::string& key, const std::string& fallback = "") const;
  double get_double(const std::string& key, double fallback) const;
  uint64_t get_u64(const std::string& key, uint64_t fallback) const;
  bool flag(const std::string& key) const { return values_.count(key) > 0; }
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

int fuzz_shape_env_command(const Args& args);
int run_command(const Args& args);
int diff_backends_command(const Args& args);
int campaign_command(const Args& args);
int bench_shape_env_command(const Args& args);
int zoo_command(const Args& args);
int gen_command(const Args& args);
int bench_oracles_command(const Args& args);
bool read_file(const std::string& path, std::string* out);
// A reproducer file: a program's text with a note (its bucket) as a comment right after the
// version line, so that the file still starts with "# sfz 1" and runs as-is with `run`.
std::string reproducer_text(const std::string& note, const std::string& program_text);
// Writes `text` to `path` through a temporary file and a rename, so a report is never half-written.
void write_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace sf::cli
