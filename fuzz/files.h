// Files the harness writes and reads: atomic writes (a report or reproducer is never half-written,
// even under kill -9) and reproducer text (a program with a note, such as its finding's detail,
// in the header).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace sf::fuzz {

// Writes `text` to `path` through a temporary file in the same directory and a rename.
void write_atomically(const std::filesystem::path& path, const std::string& text);

// The whole file, or nullopt when it cannot be read.
std::optional<std::string> read_text_file(const std::filesystem::path& path);

// A program's text with a free-text note as a comment right after the version line, so the file
// still starts with "# sfz 1" and runs as-is with `run`.
std::string reproducer_text(const std::string& note, const std::string& program_text);

// Every .sfz file under `dir` (recursively), sorted; *error is set when `dir` cannot be read.
std::vector<std::filesystem::path> sfz_files_under(const std::filesystem::path& dir,
                                                   std::error_code* error = nullptr);
// Creates `dir` and checks that a file can be written there; the OS's reason when it cannot.
std::optional<std::string> check_writable_dir(const std::filesystem::path& dir);
// Whether `file` can be written (atomically) before any work that ends by writing it: its
// directory is writable and it is not a directory itself; the reason when not.
std::optional<std::string> check_writable_file(const std::filesystem::path& file);

}  // namespace sf::fuzz
