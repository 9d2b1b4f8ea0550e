// Atomic writes go through "<name>.tmp.<pid>" and rename(2), which replaces the old file in one
// step; a campaign killed mid-write leaves at worst a stray temporary, never a truncated result.
#include "fuzz/files.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

namespace sf::fuzz {

void write_atomically(const std::filesystem::path& path, const std::string& text) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(getpid());
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    o << text;
    o.flush();
    if (!o) {
      std::error_code ec(errno ? errno : EIO, std::generic_category()), ignored;
      std::filesystem::remove(tmp, ignored);  // no half-written file left behind
      throw std::filesystem::filesystem_error("cannot write", tmp, ec);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);  // e.g. `path` is a directory: nothing left behind
    throw std::filesystem::filesystem_error("cannot write", path, ec);
  }
}

std::optional<std::string> read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

std::string reproducer_text(const std::string& note, const std::string& program_text) {
  size_t body = program_text.find('\n') + 1;
  return program_text.substr(0, body) + "# " + note + "\n" + program_text.substr(body);
}

std::optional<std::string> check_writable_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  std::filesystem::path probe = dir / (".write-probe." + std::to_string(getpid()));
  {
    std::ofstream o(probe);
    o << "ok";
    o.flush();
    if (!o) return "cannot write in " + dir.string();
  }
  std::filesystem::remove(probe, ec);
  return std::nullopt;
}

std::optional<std::string> check_writable_file(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) return file.string() + " is a directory";
  return check_writable_dir(file.has_parent_path() ? file.parent_path()
                                                   : std::filesystem::path("."));
}

std::vector<std::filesystem::path> sfz_files_under(const std::filesystem::path& dir,
                                                   std::error_code* error) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".sfz") out.push_back(it->path());
  }
  if (error) *error = ec;
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace sf::fuzz
