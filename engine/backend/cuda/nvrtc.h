// NVRTC loaded with dlopen at run time (no binary links libnvrtc), and the compile cache: cubins
// keyed by sha256(NVRTC version, architecture, options, source), in memory and on disk.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace sf::backend::cuda {

// Options every generated kernel is compiled with: IEEE float arithmetic without contraction
// into fused multiply-adds, so results match the CPU backend bit for bit.
std::vector<std::string> default_nvrtc_options();

class Nvrtc {
 public:
  // The process-wide instance (loads libnvrtc on first use).
  static Nvrtc& get();
  bool available(std::string* why) const;
  std::string version() const;  // "13.0"
  // Compiles `source` to a cubin for `arch` ("sm_90"); a compile error throws EngineBug with the
  // NVRTC log (a generated kernel that does not compile is an engine bug).
  std::string compile_cubin(const std::string& source, const std::string& arch,
                            const std::vector<std::string>& options,
                            const std::string& name = "kernel.cu") const;

 private:
  Nvrtc();
  struct Api;
  Api* api_ = nullptr;
  std::string why_;
  int major_ = 0, minor_ = 0;
};

// Compiled cubins by content key. Thread-safe. Disk entries are written atomically (a temporary
// file renamed into place), so concurrent processes share the directory safely.
class NvrtcCache {
 public:
  // `dir` empty: memory only.
  explicit NvrtcCache(std::string dir);
  // The process-wide cache in default_dir().
  static NvrtcCache& shared();
  // $SHAPEFUZZ_CACHE_DIR, else $HOME/.cache/shapefuzz/nvrtc (empty when neither is set).
  static std::string default_dir();

  std::string cubin(const std::string& source, const std::string& arch,
                    const std::vector<std::string>& options);
  static std::string key(const std::string& source, const std::string& arch,
                         const std::vector<std::string>& options);

  int64_t hits() const { return memory_hits_ + disk_hits_; }
  int64_t memory_hits() const { return memory_hits_; }
  int64_t disk_hits() const { return disk_hits_; }
  int64_t misses() const { return misses_; }
  const std::string& dir() const { return dir_; }

 private:
  bool read_disk(const std::string& key, std::string* out) const;
  void write_disk(const std::string& key, const std::string& cubin) const;

  std::string dir_;
  mutable std::mutex mu_;
  std::map<std::string, std::string> memory_;
  int64_t memory_hits_ = 0, disk_hits_ = 0, misses_ = 0;
};

}  // namespace sf::backend::cuda
